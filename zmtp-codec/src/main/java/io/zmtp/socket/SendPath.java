package io.zmtp.socket;

import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Promise;
import io.zmtp.wire.ZmtpMessage;

import java.util.ArrayList;

/**
 * The application's send, from its call to the type's {@code route}: the checks, the type's
 * send/receive state (REQ, REP: libzmq's EFSM), and the wait at the high-water mark in
 * {@link BlockedSends}. One per socket, on its event loop.
 *
 * <p>The state hooks ({@link ZmtpSocket#sendRefusal}, {@code sendAccepted}, {@code sendAbandoned},
 * {@code messageTaken}) are the type's. They are called by the socket's application side, one
 * thread at a time: on the event loop by the reactor API (send, trySend, delivery to the
 * handler), or on its user's thread by a {@link BlockingSocket} that wraps the socket and
 * {@link #keepStateOnUserThread keeps the state} from then on. Routing state (which peer the reply
 * must come from) stays in the type's route and received, on the loop.
 */
final class SendPath {
    private final ZmtpSocket socket;
    /**
     * Set by a {@link BlockingSocket} that wraps the socket: its thread is then the application,
     * and it calls the state hooks itself; the reactor entry points leave them alone.
     */
    private volatile boolean stateKeptByBlockingSocket;
    /** {@link ZmtpSocket#whenSendAllowed} futures waiting for the type's state to allow a send. */
    private final ArrayList<Promise<Void>> sendAllowedWaiters = new ArrayList<>(1);

    SendPath(ZmtpSocket socket) {
        this.socket = socket;
    }

    /** {@link ZmtpSocket#send(ZmtpMessage)} on the loop: {@code p} completes when a peer took the message. */
    void send(ZmtpMessage msg, Promise<Void> p) {
        if (msg.isEmpty()) {
            msg.release();
            p.tryFailure(new IllegalArgumentException("a message has at least one frame"));
            return;
        }
        if (socket.isClosing()) {
            msg.release();
            p.tryFailure(new SocketClosedException("socket is closed"));
            return;
        }
        if (!stateKeptByBlockingSocket) {
            try {
                start();
            } catch (SocketStateException e) {
                msg.release();
                p.tryFailure(e);
                return;
            }
        }
        BlockedSends blocked = socket.blocked;
        if (!blocked.isEmpty()) {
            blocked.add(msg, p);
            return;
        }
        try {
            if (socket.route(msg) == SendResult.WOULD_BLOCK) {
                blocked.add(msg, p);
            } else {
                p.trySuccess(null);
            }
        } catch (RuntimeException e) {
            failed(msg, p, e);
        }
    }

    /** {@link ZmtpSocket#trySend}, on the loop. */
    boolean trySend(ZmtpMessage msg) {
        if (socket.isClosing()) {
            throw new SocketClosedException("socket is closed");
        }
        if (msg.isEmpty()) {
            throw new IllegalArgumentException("a message has at least one frame");
        }
        BlockedSends blocked = socket.blocked;
        if (socket.conflating()) {
            if (blocked.isEmpty() && socket.route(msg) != SendResult.WOULD_BLOCK) {
                return true;
            }
            blocked.add(msg, socket.loop.newPromise());   // replaces what waited
            return true;
        }
        if (!blocked.isEmpty()) {
            return false;
        }
        boolean application = !stateKeptByBlockingSocket;
        if (application) {
            start();
        }
        boolean taken;
        try {
            taken = socket.route(msg) != SendResult.WOULD_BLOCK;
        } catch (RuntimeException e) {
            if (application) {
                abandon();
            }
            throw e;
        }
        if (!taken && application) {
            abandon();
        }
        return taken;
    }

    /** A send accepted by {@link #start} did not reach a peer: the type's state is rolled back. */
    void failed(ZmtpMessage msg, Promise<Void> p, Throwable cause) {
        ReferenceCountUtil.safeRelease(msg);
        if (!stateKeptByBlockingSocket) {
            abandon();
        }
        p.tryFailure(cause);
    }

    /** Checks the type's state and accepts the send, or throws {@link SocketStateException}. */
    void start() {
        String refusal = socket.sendRefusal();
        if (refusal != null) {
            throw new SocketStateException(refusal);
        }
        socket.sendAccepted();
    }

    /** Rolls an accepted send back and wakes those waiting for the state to allow a send. */
    void abandon() {
        socket.sendAbandoned();
        if (!stateKeptByBlockingSocket) {
            stateChanged();
        }
    }

    /** A blocking socket keeps the send/receive state on its thread from now on. */
    void keepStateOnUserThread() {
        stateKeptByBlockingSocket = true;
    }

    /** Whether the reactor side calls the state hooks (no {@link BlockingSocket} keeps them). */
    boolean stateKeptByReactor() {
        return !stateKeptByBlockingSocket;
    }

    /** {@link ZmtpSocket#whenSendAllowed}, on the loop. */
    void whenAllowed(Promise<Void> p) {
        if (socket.isClosing()) {
            p.tryFailure(new SocketClosedException("socket is closed"));
        } else if (socket.sendRefusal() == null) {
            p.trySuccess(null);
        } else {
            sendAllowedWaiters.add(p);
        }
    }

    /** The type's state may allow a send now: those waiting hear of it. */
    void stateChanged() {
        if (!sendAllowedWaiters.isEmpty() && !socket.isClosing() && socket.sendRefusal() == null) {
            Promise<?>[] ready = sendAllowedWaiters.toArray(new Promise<?>[0]);
            sendAllowedWaiters.clear();
            for (Promise<?> p : ready) {
                p.trySuccess(null);
            }
        }
    }

    /** The socket closes: those waiting for a send to be allowed fail. */
    void failWaiters() {
        for (Promise<Void> w : sendAllowedWaiters) {
            w.tryFailure(new SocketClosedException("socket closed"));
        }
        sendAllowedWaiters.clear();
    }
}
