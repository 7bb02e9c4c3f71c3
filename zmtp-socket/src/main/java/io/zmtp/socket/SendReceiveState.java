package io.zmtp.socket;

import io.netty.util.concurrent.Promise;

import java.util.ArrayList;

/**
 * The type's send/receive state as the application sees it (REQ and REP alternate: libzmq's
 * EFSM), who keeps it, and who waits for it to allow a send ({@link ZmtpSocket#whenSendAllowed}).
 * The send path asks it before a send and rolls it back when the send never reaches a peer; the
 * receive path tells it when the application takes a message. One per socket.
 *
 * <p>The type's hooks ({@link TypeHooks#sendRefusal}, {@code sendAccepted}, {@code sendAbandoned},
 * {@code messageTaken}) are called by the socket's application side, one thread at a time: on the
 * event loop by the reactor API (send, trySend, delivery to the handler), or on its user's thread
 * by a {@link BlockingSocket} that wraps the socket and {@link #keepOnUserThread keeps the state}
 * from then on. Routing state (which peer the reply must come from) stays in the type's route and
 * received, on the loop.
 */
final class SendReceiveState {
    private final SocketCore core;
    private final TypeHooks hooks;
    /**
     * Set by a {@link BlockingSocket} that wraps the socket: its thread is then the application,
     * and it calls the state hooks itself; the reactor entry points leave them alone.
     */
    private volatile boolean keptByBlockingSocket;
    /** {@link ZmtpSocket#whenSendAllowed} futures waiting for the type's state to allow a send. */
    private final ArrayList<Promise<Void>> waiters = new ArrayList<>(1);

    SendReceiveState(SocketCore core, TypeHooks hooks) {
        this.core = core;
        this.hooks = hooks;
    }

    /** A blocking socket keeps the send/receive state on its thread from now on. */
    void keepOnUserThread() {
        keptByBlockingSocket = true;
    }

    /** Whether the reactor side calls the state hooks (no {@link BlockingSocket} keeps them). */
    boolean keptByReactor() {
        return !keptByBlockingSocket;
    }

    /** Checks the type's state and accepts the send, or throws {@link SocketStateException}. */
    void start() {
        String refusal = hooks.sendRefusal();
        if (refusal != null) {
            throw new SocketStateException(refusal);
        }
        hooks.sendAccepted();
    }

    /** Rolls an accepted send back and wakes those waiting for the state to allow a send. */
    void abandon() {
        hooks.sendAbandoned();
        if (!keptByBlockingSocket) {
            changed();
        }
    }

    /** The application took a received message: the type's state hears of it. */
    void messageTaken() {
        hooks.messageTaken();
    }

    /** {@link ZmtpSocket#whenSendAllowed}, on the loop. */
    void whenAllowed(Promise<Void> p) {
        if (core.isClosing()) {
            p.tryFailure(new SocketClosedException("socket is closed"));
        } else if (hooks.sendRefusal() == null) {
            p.trySuccess(null);
        } else {
            waiters.add(p);
        }
    }

    /** The type's state may allow a send now: those waiting hear of it. */
    void changed() {
        if (!waiters.isEmpty() && !core.isClosing() && hooks.sendRefusal() == null) {
            Promise<?>[] ready = waiters.toArray(new Promise<?>[0]);
            waiters.clear();
            for (Promise<?> p : ready) {
                p.trySuccess(null);
            }
        }
    }

    /** The socket closes: those waiting for a send to be allowed fail. */
    void failWaiters() {
        for (Promise<Void> w : waiters) {
            w.tryFailure(new SocketClosedException("socket closed"));
        }
        waiters.clear();
    }
}
