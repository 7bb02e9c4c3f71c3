package io.zmtp.socket;

import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The sends of one socket that wait because no peer can take them (every peer at its send
 * high-water mark, or none yet), in the order they were made. Each waits with its future and,
 * when the socket has a send timeout, a timer that fails it. They are tried again, oldest first,
 * whenever a peer attaches or has room again ({@link #roomAvailable}); a send made while others
 * wait queues behind them, so messages leave in order. A {@link BlockingSocket}'s sends wait in
 * its own queue and register a task here instead ({@link #whenRoom}). Lives on the socket's
 * event loop.
 *
 * <p>With CONFLATE only the newest waits: a new one replaces what waited, whose send completes
 * (conflated away, as a send at the mark is in libzmq).
 */
final class BlockedSends {
    private final SocketCore core;
    private final TypeHooks hooks;
    private final SendReceiveState state;
    private final ArrayDeque<PendingSend> queue = new ArrayDeque<>();
    /** Run once, the next time a peer attaches or a full peer has room. */
    private final ArrayList<Runnable> roomWaiters = new ArrayList<>(1);

    BlockedSends(SocketCore core, TypeHooks hooks, SendReceiveState state) {
        this.core = core;
        this.hooks = hooks;
        this.state = state;
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    int size() {
        return queue.size();
    }

    /** {@code msg} waits behind the others; {@code p} completes when a peer takes it. */
    void add(ZmtpMessage msg, Promise<Void> p) {
        if (core.conflating()) {
            PendingSend old;
            while ((old = queue.poll()) != null) {
                old.done();
                old.msg.release();
                old.promise.trySuccess(null);
            }
        }
        PendingSend ps = new PendingSend(msg, p);
        Duration timeout = core.options().sendTimeout();
        if (timeout != null) {
            ps.timer = core.loop().schedule(() -> {
                if (queue.remove(ps)) {
                    core.counters().queuedSends(queue.size());
                    ReferenceCountUtil.safeRelease(ps.msg);
                    failed(ps.promise, new SendTimeoutException("no peer could take the message within "
                            + timeout.toMillis() + " ms"));
                }
            }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        queue.add(ps);
        core.counters().queuedSends(queue.size());
    }

    /** Routes what waits, in order, as long as peers take it. */
    void retry() {
        PendingSend ps;
        while (!core.isClosing() && (ps = queue.peek()) != null) {
            try {
                if (hooks.route(ps.msg) == SendResult.WOULD_BLOCK) {
                    return;
                }
                queue.poll();
                core.counters().queuedSends(queue.size());
                ps.done();
                ps.promise.trySuccess(null);
            } catch (RuntimeException e) {
                queue.poll();
                core.counters().queuedSends(queue.size());
                ps.done();
                ReferenceCountUtil.safeRelease(ps.msg);
                failed(ps.promise, e);
            }
        }
    }

    /**
     * A send accepted by the type's state did not reach a peer (its message already released):
     * the state is rolled back, then {@code p} fails.
     */
    void failed(Promise<Void> p, Throwable cause) {
        if (state.keptByReactor()) {
            state.abandon();
        }
        p.tryFailure(cause);
    }

    /** A peer attached, or a full one has room again: what waits for room goes now. */
    void roomAvailable() {
        if (!queue.isEmpty()) {
            retry();
        }
        if (roomWaiters.isEmpty()) {
            return;
        }
        Runnable[] tasks = roomWaiters.toArray(new Runnable[0]);
        roomWaiters.clear();
        for (Runnable r : tasks) {
            r.run();
        }
    }

    /** Runs {@code task} once, on the loop, the next time a peer attaches or a full peer has room. */
    void whenRoom(Runnable task) {
        roomWaiters.add(task);
    }

    /** Fails every waiting send: the socket is closing. */
    void failAll() {
        PendingSend ps;
        while ((ps = queue.poll()) != null) {
            ps.done();
            ReferenceCountUtil.safeRelease(ps.msg);
            failed(ps.promise, new SocketClosedException("socket closed before the message could be sent"));
        }
        core.counters().queuedSends(0);
    }

    private static final class PendingSend {
        final ZmtpMessage msg;
        final Promise<Void> promise;
        ScheduledFuture<?> timer;

        PendingSend(ZmtpMessage msg, Promise<Void> promise) {
            this.msg = msg;
            this.promise = promise;
        }

        void done() {
            if (timer != null) {
                timer.cancel(false);
            }
        }
    }
}
