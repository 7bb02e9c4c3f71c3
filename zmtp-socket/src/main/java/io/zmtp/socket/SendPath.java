package io.zmtp.socket;

import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Promise;
import io.zmtp.wire.ZmtpMessage;

/**
 * The application's send, from its call to the type's {@code route}: the checks, the type's
 * send/receive state ({@link SendReceiveState}), and the wait at the high-water mark in
 * {@link BlockedSends}. One per socket, on its event loop.
 */
final class SendPath {
    private final SocketCore core;
    private final TypeHooks hooks;
    private final SendReceiveState state;
    private final BlockedSends blocked;

    SendPath(SocketCore core, TypeHooks hooks, SendReceiveState state, BlockedSends blocked) {
        this.core = core;
        this.hooks = hooks;
        this.state = state;
        this.blocked = blocked;
    }

    /** {@link ZmtpSocket#send(ZmtpMessage)} on the loop: {@code p} completes when a peer took the message. */
    void send(ZmtpMessage msg, Promise<Void> p) {
        if (msg.isEmpty()) {
            msg.release();
            p.tryFailure(new IllegalArgumentException("a message has at least one frame"));
            return;
        }
        String multipart = multipartRefusal(core.type(), msg);
        if (multipart != null) {
            // Untouched, as a type's validation in route leaves it: the caller's to release.
            p.tryFailure(new IllegalArgumentException(multipart));
            return;
        }
        if (core.isClosing()) {
            msg.release();
            p.tryFailure(new SocketClosedException("socket is closed"));
            return;
        }
        if (state.keptByReactor()) {
            try {
                state.start();
            } catch (SocketStateException e) {
                msg.release();
                p.tryFailure(e);
                return;
            }
        }
        if (!blocked.isEmpty()) {
            blocked.add(msg, p);
            return;
        }
        try {
            if (hooks.route(msg) == SendResult.WOULD_BLOCK) {
                blocked.add(msg, p);
            } else {
                p.trySuccess(null);
            }
        } catch (RuntimeException e) {
            ReferenceCountUtil.safeRelease(msg);
            blocked.failed(p, e);
        }
    }

    /**
     * The single-frame rule of ZMTP 3.1's thread-safe types (CLIENT, SERVER, RADIO, DISH, GATHER,
     * SCATTER, PEER, CHANNEL): why {@code msg} may not be sent, or null. The one place the rule
     * is checked on the way out, before anything is consumed.
     */
    static String multipartRefusal(io.zmtp.wire.SocketType type, ZmtpMessage msg) {
        if (type.isSingleFrame() && msg.size() > 1) {
            return "a " + type + " socket sends single-frame messages only, not " + msg.size() + " frames";
        }
        return null;
    }

    /** {@link ZmtpSocket#trySend}, on the loop. */
    boolean trySend(ZmtpMessage msg) {
        if (core.isClosing()) {
            throw new SocketClosedException("socket is closed");
        }
        if (msg.isEmpty()) {
            throw new IllegalArgumentException("a message has at least one frame");
        }
        String multipart = multipartRefusal(core.type(), msg);
        if (multipart != null) {
            throw new IllegalArgumentException(multipart);
        }
        if (core.conflating()) {
            if (blocked.isEmpty() && hooks.route(msg) != SendResult.WOULD_BLOCK) {
                return true;
            }
            blocked.add(msg, core.loop().newPromise());   // replaces what waited
            return true;
        }
        if (!blocked.isEmpty()) {
            return false;
        }
        boolean application = state.keptByReactor();
        if (application) {
            state.start();
        }
        boolean taken;
        try {
            taken = hooks.route(msg) != SendResult.WOULD_BLOCK;
        } catch (RuntimeException e) {
            if (application) {
                state.abandon();
            }
            throw e;
        }
        if (!taken && application) {
            state.abandon();
        }
        return taken;
    }
}
