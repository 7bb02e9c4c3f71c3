package io.zmtp.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits in tests: a condition polled until it holds, failing the test at a deadline. */
public final class Await {
    /** The default deadline of a wait. */
    public static final Duration DEADLINE = Duration.ofSeconds(10);

    private Await() {
    }

    /** Polls {@code condition} every few milliseconds until it holds; fails after {@link #DEADLINE}. */
    public static void until(Supplier<String> what, BooleanSupplier condition) {
        until(DEADLINE, what, condition);
    }

    public static void until(String what, BooleanSupplier condition) {
        until(DEADLINE, () -> what, condition);
    }

    /** Polls {@code condition} until it holds; fails after {@code deadline}, saying what it waited for. */
    public static void until(Duration deadline, Supplier<String> what, BooleanSupplier condition) {
        long end = System.nanoTime() + deadline.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out after " + deadline.toMillis() + " ms waiting for: " + what.get());
            }
            pause();
        }
    }

    /**
     * A negative window: polls {@code condition} for {@code window} and fails as soon as it does
     * not hold. It shows only that nothing happened within the window, so a test first waits for
     * what would make the unwanted thing happen (a connection closed, a subscription arrived), and
     * keeps the window short.
     */
    public static void holdsFor(Duration window, Supplier<String> what, BooleanSupplier condition) {
        long end = System.nanoTime() + window.toNanos();
        do {
            if (!condition.getAsBoolean()) {
                throw new AssertionError("within " + window.toMillis() + " ms: " + what.get());
            }
            pause();
        } while (System.nanoTime() <= end);
        if (!condition.getAsBoolean()) {
            throw new AssertionError("within " + window.toMillis() + " ms: " + what.get());
        }
    }

    /** The future's value, failing the test after {@link #DEADLINE}, or with the future's failure. */
    public static <V> V get(java.util.concurrent.CompletableFuture<V> f) {
        try {
            return f.get(DEADLINE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no result within " + DEADLINE, e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError("failed: " + e.getCause(), e.getCause());
        }
    }

    /** A short pause between two looks at a condition. */
    public static void pause() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting", e);
        }
    }
}
