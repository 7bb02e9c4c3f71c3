package io.zmtp.cli;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import io.zmtp.socket.RouterSocket;
import io.zmtp.socket.SendTimeoutException;
import io.zmtp.socket.SocketClosedException;
import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.function.Function;

/**
 * {@code zmtp cat -t ROUTER}'s input lines waiting for the peer their first frame names. The
 * socket fails a send to an unknown peer at once (mandatory routing), so a line waits here, on
 * the event loop, and is handed to the socket when a handshake brings that peer in, or fails
 * after {@code --send-timeout}. Lines keep their order: one waiting holds back the ones after
 * it, as a send waiting at the high-water mark does.
 */
final class RouterLines {
    private final RouterSocket router;
    private final long sendTimeoutMs;
    private final Function<io.netty.buffer.ByteBuf, String> describeId;
    /** In input order; on the event loop only. */
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    private boolean stopped;

    /**
     * @param sendTimeoutMs how long a line waits for its peer (0: as long as it takes)
     * @param describeId how a routing id is written in an error (as the output writes frames)
     */
    RouterLines(RouterSocket router, long sendTimeoutMs, Function<io.netty.buffer.ByteBuf, String> describeId) {
        this.router = router;
        this.sendTimeoutMs = sendTimeoutMs;
        this.describeId = describeId;
    }

    /** Sends {@code m} (ownership passes) once its peer is connected; any thread. */
    Future<Void> send(ZmtpMessage m) {
        Promise<Void> p = router.eventLoop().newPromise();
        Waiting w = new Waiting(m, p);
        router.inLoop(() -> {
            if (stopped) {
                m.release();
                p.tryFailure(new SocketClosedException("socket is closed"));
                return;
            }
            waiting.add(w);
            if (sendTimeoutMs > 0) {
                w.timer = router.schedule(() -> peerNeverCame(w), Duration.ofMillis(sendTimeoutMs));
            }
            sendReady();
        });
        return p;
    }

    /** A handshake completed (on the loop): the lines waiting for that peer may go, after it is attached. */
    void peerAttached() {
        if (!waiting.isEmpty()) {
            router.eventLoop().execute(this::sendReady);
        }
    }

    /** On the loop: hands the socket the waiting lines whose peers are connected, in order. */
    private void sendReady() {
        Waiting w;
        while (!stopped && (w = waiting.peek()) != null && router.hasPeer(w.routingId)) {
            waiting.poll();
            w.cancelTimer();
            Promise<Void> p = w.promise;
            router.send(w.msg).addListener(f -> {
                if (f.isSuccess()) {
                    p.trySuccess(null);
                } else {
                    p.tryFailure(f.cause());
                }
            });
        }
    }

    private void peerNeverCame(Waiting w) {
        if (waiting.remove(w)) {
            String id = describeId.apply(w.msg.first());
            w.msg.release();
            w.promise.tryFailure(new SendTimeoutException("no peer with routing id " + id + " connected within "
                    + sendTimeoutMs + " ms"));
            sendReady();
        }
    }

    /** On the loop, at the end: the lines still waiting for their peer are dropped. */
    void dropAll() {
        stopped = true;
        Waiting w;
        while ((w = waiting.poll()) != null) {
            w.cancelTimer();
            w.msg.release();
            w.promise.tryFailure(new SocketClosedException("socket is closed"));
        }
    }

    /** A line waiting for the peer it names. */
    private static final class Waiting {
        final ZmtpMessage msg;
        final byte[] routingId;
        final Promise<Void> promise;
        ScheduledFuture<?> timer;

        Waiting(ZmtpMessage msg, Promise<Void> promise) {
            this.msg = msg;
            this.routingId = msg.frameBytes(0);
            this.promise = promise;
        }

        void cancelTimer() {
            if (timer != null) {
                timer.cancel(false);
            }
        }
    }
}
