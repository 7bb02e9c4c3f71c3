package io.zmtp.socket;

import io.zmtp.wire.ZmtpMessage;

import java.util.ArrayDeque;

/**
 * Received messages the application has not been handed yet: those that arrive before it sets a
 * handler ({@link ZmtpSocket#onMessage}), or while it has none. The {@link ReceivePath} hands them
 * over in order once a handler is set, and until then pauses reading from the peers at the
 * receive limit ({@link ReadPause#UNDELIVERED}), so a socket nobody reads from holds at most that
 * many. With CONFLATE only the newest waits. On the socket's event loop.
 */
final class UndeliveredQueue {
    private final SocketCore core;
    private final ArrayDeque<ZmtpMessage> queue = new ArrayDeque<>();

    UndeliveredQueue(SocketCore core) {
        this.core = core;
    }

    /**
     * {@code msg} waits behind the others; returns how many wait now, which the receive path holds
     * to its limit (CONFLATE: 0, as the newest replaces what waited and nothing piles up).
     */
    int add(ZmtpMessage msg) {
        if (core.conflating()) {
            // keep only the last: the new message replaces what the application has not taken
            ZmtpMessage old;
            while ((old = queue.poll()) != null) {
                old.release();
            }
            queue.add(msg);
            return 0;
        }
        queue.add(msg);
        core.counters().undelivered(queue.size());
        return queue.size();
    }

    /** The oldest waiting message, or null. */
    ZmtpMessage poll() {
        ZmtpMessage m = queue.poll();
        core.counters().undelivered(queue.size());
        return m;
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    /** Releases what waits (the socket is closing). */
    void releaseAll() {
        ZmtpMessage m;
        while ((m = queue.poll()) != null) {
            m.release();
        }
        core.counters().undelivered(0);
    }
}
