package io.zmtp.patterns.kit;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Bridges Netty futures to CompletableFuture, and bounded waits for the blocking facades. */
public final class Futures {
    private Futures() {
    }

    /** A CompletableFuture that completes as the Netty future does. */
    public static <T> CompletableFuture<T> of(io.netty.util.concurrent.Future<T> f) {
        CompletableFuture<T> c = new CompletableFuture<>();
        f.addListener(r -> {
            if (r.isSuccess()) {
                c.complete(f.getNow());
            } else {
                c.completeExceptionally(r.cause());
            }
        });
        return c;
    }

    /**
     * Waits at most {@code timeout} for {@code f}; its failure is rethrown (unchecked), a timeout
     * or an interrupt throws IllegalStateException (the interrupt flag is kept).
     */
    public static <T> T await(CompletableFuture<T> f, Duration timeout) {
        try {
            return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw unchecked(e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("timed out after " + timeout.toMillis() + " ms", e);
        }
    }

    /** The cause as an unchecked exception (errors are thrown). */
    public static RuntimeException unchecked(Throwable cause) {
        if (cause instanceof RuntimeException) {
            return (RuntimeException) cause;
        }
        if (cause instanceof Error) {
            throw (Error) cause;
        }
        return new IllegalStateException(cause);
    }

    /**
     * Waits at most {@code timeout} for {@code f} to complete, whatever its outcome, without
     * throwing: for close(), which must not fail because the caller was interrupted (the wait is
     * not interruptible; the interrupt flag is kept).
     */
    public static void awaitQuietly(CompletableFuture<?> f, Duration timeout) {
        f.handle((r, e) -> null).toCompletableFuture()
                .completeOnTimeout(null, timeout.toNanos(), TimeUnit.NANOSECONDS).join();
    }

    /** {@link #await(CompletableFuture, Duration)} for a stage (a component's start, say). */
    public static <T> T await(CompletionStage<T> f, Duration timeout) {
        return await(f.toCompletableFuture(), timeout);
    }
}
