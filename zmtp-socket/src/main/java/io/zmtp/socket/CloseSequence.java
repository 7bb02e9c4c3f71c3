package io.zmtp.socket;

import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * How a socket closes, on its event loop: it stops listening and reconnecting, fails the sends
 * still waiting for a peer, drops what the application has not taken, and lets each peer flush
 * what was written to it for up to the linger (ZMQ_LINGER) before its connection closes; when the
 * linger runs out, whatever is left is closed. The socket is CLOSED once every pipe, channel and
 * listener is gone: then the CLOSED event, {@code closed} (the context forgets the socket), and
 * {@link ZmtpSocket#closeFuture()} completes.
 */
final class CloseSequence {
    private final SocketCore core;
    private final SocketEndpoints endpoints;
    private final BlockedSends blocked;
    private final SendReceiveState state;
    private final ReceivePath receiving;
    private final TypeHooks hooks;
    private final Runnable closed;
    private final Promise<Void> done;
    private ScheduledFuture<?> lingerTimer;

    CloseSequence(SocketCore core, SocketEndpoints endpoints, BlockedSends blocked, SendReceiveState state,
                  ReceivePath receiving, TypeHooks hooks, Runnable closed) {
        this.core = core;
        this.endpoints = endpoints;
        this.blocked = blocked;
        this.state = state;
        this.receiving = receiving;
        this.hooks = hooks;
        this.closed = closed;
        this.done = core.loop().newPromise();
        core.whenPartGone(this::maybeFinish);
    }

    Promise<Void> future() {
        return done;
    }

    /** Starts closing, flushing for at most {@code linger}; a second call does nothing. */
    void start(Duration linger) {
        if (!core.startClosing()) {
            return;
        }
        endpoints.stopAll();
        blocked.failAll();
        state.failWaiters();
        receiving.releaseAll();
        hooks.beforeClose();
        Set<Pipe> lingering = new HashSet<>();
        for (Pipe p : new ArrayList<>(core.pipes())) {
            if (linger.isZero()) {
                p.close();
            } else {
                lingering.add(p);
                p.closeAfterFlush(this::maybeFinish);
            }
        }
        core.channels().closeAllBut(ch -> {
            for (Pipe p : lingering) {
                if (p instanceof ChannelPipe cp && cp.channel() == ch) {
                    return true;
                }
            }
            return false;
        });
        core.flushes().flush();
        if (!linger.isZero()) {
            lingerTimer = core.loop().schedule(this::closeNow, linger.toMillis(), TimeUnit.MILLISECONDS);
        }
        maybeFinish();
    }

    /** The linger ran out: close what is still open. */
    private void closeNow() {
        for (Pipe p : new ArrayList<>(core.pipes())) {
            p.close();
        }
        core.channels().closeAllBut(ch -> false);
    }

    /** Called as pipes, channels and listeners go: once all have, the socket is closed. */
    void maybeFinish() {
        if (!core.isClosing() || core.isClosed() || !core.pipes().isEmpty() || !core.channels().allClosed()) {
            return;
        }
        core.finishClosing();
        if (lingerTimer != null) {
            lingerTimer.cancel(false);
        }
        core.monitor().event(SocketEvent.Type.CLOSED, null, null, null, null);
        closed.run();
        done.trySuccess(null);
    }
}
