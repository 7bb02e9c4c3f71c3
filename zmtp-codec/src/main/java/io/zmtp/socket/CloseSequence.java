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
 * server channel is gone: then the CLOSED event, the context forgets it, and
 * {@link ZmtpSocket#closeFuture()} completes.
 */
final class CloseSequence {
    private final ZmtpSocket socket;
    private final Promise<Void> done;
    private ScheduledFuture<?> lingerTimer;

    CloseSequence(ZmtpSocket socket) {
        this.socket = socket;
        this.done = socket.loop.newPromise();
    }

    Promise<Void> future() {
        return done;
    }

    /** Starts closing, flushing for at most {@code linger}; a second call does nothing. */
    void start(Duration linger) {
        if (socket.state != ZmtpSocket.State.OPEN) {
            return;
        }
        socket.state = ZmtpSocket.State.CLOSING;
        socket.endpoints.stopAll();
        socket.blocked.failAll();
        socket.dropQueued();
        Set<Pipe> lingering = new HashSet<>();
        for (Pipe p : new ArrayList<>(socket.pipes())) {
            if (linger.isZero()) {
                p.close();
            } else {
                lingering.add(p);
                p.closeAfterFlush(this::maybeFinish);
            }
        }
        socket.endpoints.closeChannelsExcept(lingering);
        socket.flushes.flush();
        if (!linger.isZero()) {
            lingerTimer = socket.loop.schedule(this::closeNow, linger.toMillis(), TimeUnit.MILLISECONDS);
        }
        maybeFinish();
    }

    /** The linger ran out: close what is still open. */
    private void closeNow() {
        for (Pipe p : new ArrayList<>(socket.pipes())) {
            p.close();
        }
        socket.endpoints.closeChannels();
    }

    /** Called as pipes, channels and server channels go: once all have, the socket is closed. */
    void maybeFinish() {
        if (socket.state != ZmtpSocket.State.CLOSING || !socket.pipes().isEmpty() || !socket.endpoints.allClosed()) {
            return;
        }
        socket.state = ZmtpSocket.State.CLOSED;
        if (lingerTimer != null) {
            lingerTimer.cancel(false);
        }
        socket.monitor.event(SocketEvent.Type.CLOSED, null, null, null, null);
        socket.context.socketClosed(socket);
        done.trySuccess(null);
    }
}
