package io.zmtp.socket;

import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A received message, from the type to the application: the peers the type reads from, fair
 * queued ({@link FairQueue}), and the reasons reading pauses ({@link ReadPause}); the
 * application's handler, or the messages waiting for one ({@link UndeliveredQueue}); and the
 * type's send/receive state, which hears when the application takes a message. One per socket, on
 * its event loop; the type reaches it through {@link ZmtpSocket#deliver},
 * {@link ZmtpSocket#receiveFrom} and {@link ZmtpSocket#stopReceivingFrom}.
 */
final class ReceivePath {
    private static final Logger log = LoggerFactory.getLogger(ReceivePath.class);

    private final SocketCore core;
    private final SendReceiveState state;
    private final FairQueue fairQueue = new FairQueue();
    private final UndeliveredQueue undelivered;
    /** The application's handler, or null while it has none. */
    private MessageHandler handler;
    /** The handler messages go to directly: {@link #handler} while nothing waits, else null. */
    private MessageHandler direct;

    ReceivePath(SocketCore core, SendReceiveState state) {
        this.core = core;
        this.state = state;
        this.undelivered = new UndeliveredQueue(core);
    }

    /**
     * The application's handler is now {@code h} (null: none): what waited goes to it first, in
     * order, and messages go to it directly once nothing waits. Messages that arrive meanwhile
     * (from the handler itself) queue behind.
     */
    void handTo(MessageHandler h) {
        handler = h;
        direct = null;
        ZmtpMessage m;
        while (handler != null && (m = undelivered.poll()) != null) {
            handOver(handler, m);
        }
        if (undelivered.isEmpty()) {
            resume(ReadPause.UNDELIVERED);
            direct = handler;
        }
    }

    /**
     * Stops reading from every peer for {@code reason} until {@link #resume} clears it; each
     * reason is independent (the application's pause, a blocking consumer behind, a type's own
     * queue).
     */
    void pause(ReadPause reason) {
        fairQueue.pause(reason);
    }

    /** Clears {@code reason}; reading resumes once no reason is left. */
    void resume(ReadPause reason) {
        fairQueue.resume(reason);
    }

    /**
     * How many received messages the socket as a whole may hold for its application before it
     * pauses reading: the receive high-water mark per peer read from. Any thread.
     */
    long limit() {
        return (long) core.options().receiveHwm() * Math.max(1, fairQueue.size());
    }

    void receiveFrom(Pipe pipe) {
        fairQueue.attach(pipe);
    }

    void stopReceivingFrom(Pipe pipe) {
        fairQueue.detach(pipe);
    }

    /**
     * The single-frame rule on the way in (CLIENT, SERVER, RADIO, DISH, GATHER, SCATTER, PEER,
     * CHANNEL): a multipart message from a peer is released and counted in
     * {@link SocketMetrics#multipartDrops()}, before the type sees it. True when {@code msg} was
     * dropped. The one place the rule is checked on the way in.
     */
    boolean droppedAsMultipart(ZmtpMessage msg) {
        if (core.type().isSingleFrame() && msg.size() > 1) {
            msg.release();
            core.counters().multipartDrop();
            return true;
        }
        return false;
    }

    /**
     * Hands a message to the application with its peer's routing id in front, as ROUTER and STREAM
     * deliver every message; a peer without a routing id (not yet identified) is dropped.
     */
    void deliverWithRoutingId(Pipe pipe, ZmtpMessage msg) {
        RoutingId.Frame id = pipe.routingIdInFront();
        if (id == null) {
            msg.release();
            return;
        }
        msg.addFirst(id); // by reference: a buffer only if the application reads it
        deliver(msg);
    }

    /** Hands a message to the application, or queues it while none takes it directly. */
    void deliver(ZmtpMessage msg) {
        MessageHandler h = direct;
        if (h != null) {
            handOver(h, msg);
            return;
        }
        if (undelivered.add(msg) >= limit()) {
            pause(ReadPause.UNDELIVERED);
        }
    }

    /**
     * The handler takes {@code msg}. The type's state hears of it first (a REP's handler may
     * answer at once); those waiting in {@link ZmtpSocket#whenSendAllowed} hear after the
     * handler ran.
     */
    private void handOver(MessageHandler handler, ZmtpMessage msg) {
        boolean application = state.keptByReactor();
        if (application) {
            state.messageTaken();
        }
        try {
            handler.onMessage(msg);
        } catch (Throwable t) {
            log.warn("{} message handler failed", core, t);
        }
        if (application) {
            state.changed();
        }
    }

    /** Releases what waits for the application (the socket is closing). */
    void releaseAll() {
        undelivered.releaseAll();
    }
}
