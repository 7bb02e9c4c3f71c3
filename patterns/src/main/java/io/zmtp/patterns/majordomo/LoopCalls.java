package io.zmtp.patterns.majordomo;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs a call on a component's event loop from any thread and waits for its result. */
final class LoopCalls {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private LoopCalls() {
    }

    static <T> T onLoop(EventLoop loop, Callable<T> c) {
        if (loop.inEventLoop()) {
            try {
                return c.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        return await(loop.submit(c), WAIT);
    }

    /**
     * Runs {@code r} on the loop (at once if already there); false if the loop no longer takes
     * tasks (its context was closed under the component).
     */
    static boolean run(EventLoop loop, Runnable r) {
        if (loop.inEventLoop()) {
            r.run();
            return true;
        }
        try {
            loop.execute(r);
            return true;
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return false;
        }
    }

    static <T> T await(Future<T> f, Duration timeout) {
        try {
            return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException) {
                throw (RuntimeException) c;
            }
            throw new IllegalStateException(c);
        } catch (TimeoutException e) {
            throw new IllegalStateException("no result within " + timeout.toMillis() + " ms");
        }
    }
}
