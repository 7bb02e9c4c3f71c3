package io.zmtp.patterns.kit;

import io.netty.channel.EventLoop;
import io.zmtp.socket.SocketClosedException;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;

/**
 * The one lifecycle of every pattern component (queues, brokers, workers, clients): built from
 * its settings without side effects, {@link #start()} binds or connects and completes when that
 * is done, {@link #closeAsync()} / {@link #close()} stop it. The component lives on one event loop
 * (its sockets, timers and state) and reads the time from its settings' clock, bound to that
 * loop ({@link #clock()}). {@code onStart} and {@code onClose} run on the loop, once each; a
 * component closed before it started never starts.
 *
 * <p>A component may close itself when it cannot go on ({@link #closeFailed}): a worker whose
 * socket stopped reconnecting to its broker or queue ({@link ReconnectStoppedException}). Its
 * {@link #terminated()} then fails with the reason, once it has closed; its {@link #start()}, if
 * still waiting, fails with it too.
 */
public abstract class LoopComponent implements AutoCloseable {
    /** How long a caller on another thread waits for the loop: {@link #close()}, {@link #callOnLoop}. */
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final EventLoop loop;
    private final LoopClock clock;
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    private boolean starting;
    private boolean closing;
    /** Why the component closed itself ({@link #closeFailed}), or null. */
    private Throwable failure;

    protected LoopComponent(EventLoop loop, PatternClock clock) {
        this.loop = Objects.requireNonNull(loop);
        this.clock = Objects.requireNonNull(clock).on(loop);
    }

    /** The event loop that runs the component's sockets, timers and listener. */
    public final EventLoop eventLoop() {
        return loop;
    }

    /** The component's clock, on its loop. */
    protected final LoopClock clock() {
        return clock;
    }

    /**
     * Starts the component (binds or connects its sockets, starts its timers). The stage
     * completes when it is bound or connected, or fails (a bind error, or closed first).
     * Calling it again returns the same outcome.
     */
    public final CompletionStage<Void> start() {
        inLoop(() -> {
            if (starting || closing) {
                if (closing) {
                    started.completeExceptionally(new SocketClosedException("closed before it started"));
                }
                return;
            }
            starting = true;
            CompletionStage<Void> s;
            try {
                s = Objects.requireNonNull(onStart(), "onStart");
            } catch (RuntimeException e) {
                s = CompletableFuture.failedFuture(e);
            }
            s.whenComplete((r, e) -> {
                if (e != null) {
                    started.completeExceptionally(e);
                } else {
                    started.complete(null);
                }
            });
        });
        return started.copy();
    }

    /** Closes the component; the stage completes when it has closed. Any thread, any number of times. */
    public final CompletionStage<Void> closeAsync() {
        inLoop(() -> {
            if (closing) {
                return;
            }
            closing = true;
            started.completeExceptionally(failure != null ? failure : new SocketClosedException("closed"));
            CompletionStage<Void> s;
            try {
                s = onClose();
            } catch (RuntimeException e) {
                s = CompletableFuture.failedFuture(e);
            }
            s.whenComplete((r, e) -> {
                if (failure != null) {
                    terminated.completeExceptionally(failure);
                } else {
                    terminated.complete(null);
                }
            });
        });
        return terminated.copy();
    }

    /**
     * Closes the component because it cannot go on: as {@link #closeAsync()}, and once closed its
     * {@link #terminated()} fails with {@code cause} (a {@link ReconnectStoppedException}: its
     * peer is out of reach for good). Does nothing if close has begun already. On the loop.
     */
    protected final void closeFailed(Throwable cause) {
        if (closing) {
            return;
        }
        failure = java.util.Objects.requireNonNull(cause);
        closeAsync();
    }

    /** Closes the component and waits (up to 10 s) for it, unless called on its own loop. */
    @Override
    public final void close() {
        closeAsync();
        if (!loop.inEventLoop()) {
            Futures.awaitQuietly(terminated, WAIT);
        }
    }

    /**
     * Completes when the component has closed: normally after {@link #close()} or a simulated
     * crash; exceptionally, with the reason, when the component closed itself because it could not
     * go on ({@link #closeFailed}: a worker's {@link ReconnectStoppedException}).
     */
    public final CompletionStage<Void> terminated() {
        return terminated.copy();
    }

    /** Whether close has begun (on the loop). */
    protected final boolean isClosing() {
        return closing;
    }

    /** Binds or connects; runs on the loop, once. */
    protected abstract CompletionStage<Void> onStart();

    /** Stops timers, releases what is held, closes the sockets; runs on the loop, once. */
    protected abstract CompletionStage<Void> onClose();

    /**
     * Runs {@code call} on the loop (at once if called there) and waits for its result, at most
     * 10 s: how a component answers questions about its state from any thread.
     */
    protected final <T> T callOnLoop(Callable<T> call) {
        if (loop.inEventLoop()) {
            try {
                return call.call();
            } catch (Exception e) {
                throw Futures.unchecked(e);
            }
        }
        return Futures.await(Futures.of(loop.submit(call)), WAIT);
    }

    /** Runs {@code task} on the loop: now if called there. */
    protected final void inLoop(Runnable task) {
        if (loop.inEventLoop()) {
            task.run();
        } else {
            try {
                loop.execute(task);
            } catch (RejectedExecutionException e) {
                terminated.complete(null);
            }
        }
    }
}
