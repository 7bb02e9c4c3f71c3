package io.zmtp.socket;

import io.zmtp.wire.ZmtpMessage;

import java.util.ArrayDeque;

/**
 * Received messages the application has not been handed yet: those that arrive before it sets a
 * handler ({@link ZmtpSocket#onMessage}), or while it has none. They are handed over in order
 * once a handler is set; until then the socket pauses reading from its peers at the receive limit
 * ({@link ReadPause#UNDELIVERED}), so a socket nobody reads from holds at most that many. With
 * CONFLATE only the newest waits.
 *
 * <p>While nothing waits and a handler is set, the socket hands messages to it directly
 * ({@link ReceivePath#deliver}) and this queue is not touched. On the socket's event loop.
 */
final class UndeliveredQueue {
    private final ZmtpSocket socket;
    private final ReceivePath receiving;
    private final ArrayDeque<ZmtpMessage> queue = new ArrayDeque<>();
    /** The application's handler, or null while it has none. */
    private MessageHandler handler;

    UndeliveredQueue(ZmtpSocket socket, ReceivePath receiving) {
        this.socket = socket;
        this.receiving = receiving;
    }

    /** A message arrived while no handler takes messages directly: it waits behind the others. */
    void add(ZmtpMessage msg) {
        if (socket.conflating()) {
            // keep only the last: the new message replaces what the application has not taken
            ZmtpMessage old;
            while ((old = queue.poll()) != null) {
                old.release();
            }
            queue.add(msg);
            return;
        }
        queue.add(msg);
        socket.counters.undelivered(queue.size());
        if (queue.size() >= receiving.limit()) {
            receiving.pause(ReadPause.UNDELIVERED);
        }
    }

    /**
     * The application's handler is now {@code h} (null: none): what waited goes to it first, in
     * order, and messages go to it directly once nothing waits. Messages that arrive meanwhile
     * (from the handler itself) queue behind.
     */
    void handTo(MessageHandler h) {
        handler = h;
        receiving.handDirectlyTo(null);
        ZmtpMessage m;
        while (handler != null && (m = queue.poll()) != null) {
            receiving.handOver(handler, m);
        }
        socket.counters.undelivered(queue.size());
        if (queue.isEmpty()) {
            receiving.resume(ReadPause.UNDELIVERED);
            receiving.handDirectlyTo(handler);
        }
    }

    /** Releases what waits (the socket is closing). */
    void releaseAll() {
        ZmtpMessage m;
        while ((m = queue.poll()) != null) {
            m.release();
        }
        socket.counters.undelivered(0);
    }
}
