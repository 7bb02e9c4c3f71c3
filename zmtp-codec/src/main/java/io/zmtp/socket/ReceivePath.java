package io.zmtp.socket;

import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A received message, from the type to the application: the peers the type reads from, fair
 * queued ({@link FairQueue}), and the reasons reading pauses ({@link ReadPause}); the
 * application's handler, or the messages waiting for one ({@link UndeliveredQueue}). One per
 * socket, on its event loop; the type reaches it through {@link ZmtpSocket#deliver},
 * {@link ZmtpSocket#receiveFrom} and {@link ZmtpSocket#stopReceivingFrom}.
 */
final class ReceivePath {
    private static final Logger log = LoggerFactory.getLogger(ZmtpSocket.class);

    private final ZmtpSocket socket;
    /** The application's handler while no message waits for it, else null ({@link UndeliveredQueue}). */
    private MessageHandler handler;
    private final UndeliveredQueue undelivered;
    private final FairQueue fairQueue = new FairQueue();

    ReceivePath(ZmtpSocket socket) {
        this.socket = socket;
        this.undelivered = new UndeliveredQueue(socket, this);
    }

    /** The application's handler is now {@code h}: what waited goes to it first. */
    void handTo(MessageHandler h) {
        undelivered.handTo(h);
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
        return (long) socket.options().receiveHwm() * Math.max(1, fairQueue.size());
    }

    void receiveFrom(Pipe pipe) {
        fairQueue.attach(pipe);
    }

    void stopReceivingFrom(Pipe pipe) {
        fairQueue.detach(pipe);
    }

    /**
     * Hands a message to the application with its peer's routing id in front, as ROUTER and STREAM
     * deliver every message; a peer without a routing id (not yet identified) is dropped.
     */
    void deliverWithRoutingId(Pipe pipe, ZmtpMessage msg) {
        RoutingIdFrame id = pipe.routingIdInFront();
        if (id == null) {
            msg.release();
            return;
        }
        msg.addFirst(id); // by reference: a buffer only if the application reads it
        deliver(msg);
    }

    /** Hands a message to the application. */
    void deliver(ZmtpMessage msg) {
        MessageHandler h = handler;
        if (h != null) {
            handOver(h, msg);
            return;
        }
        undelivered.add(msg);
    }

    /** Set by the {@link UndeliveredQueue}: the handler messages go to directly, or null while some wait. */
    void handDirectlyTo(MessageHandler h) {
        handler = h;
    }

    /**
     * The handler takes {@code msg}. The type's state hears of it first (a REP's handler may
     * answer at once); those waiting in {@link ZmtpSocket#whenSendAllowed} hear after the
     * handler ran.
     */
    void handOver(MessageHandler handler, ZmtpMessage msg) {
        SendPath sends = socket.sends;
        boolean application = sends.stateKeptByReactor();
        if (application) {
            socket.messageTaken();
        }
        try {
            handler.onMessage(msg);
        } catch (Throwable t) {
            log.warn("{} message handler failed", socket, t);
        }
        if (application) {
            sends.stateChanged();
        }
    }

    /** Releases what waits for the application (the socket is closing). */
    void releaseAll() {
        undelivered.releaseAll();
    }
}
