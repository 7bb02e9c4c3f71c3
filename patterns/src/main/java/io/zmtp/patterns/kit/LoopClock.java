package io.zmtp.patterns.kit;

import io.netty.util.concurrent.EventExecutor;

import java.time.Duration;

/**
 * A clock bound to one event loop: what a component reads the time from and sets its timers
 * with. Timers run on {@link #loop()}. Call on the loop.
 */
public interface LoopClock {

    /** The loop the timers run on. */
    EventExecutor loop();

    /** A monotonic time in nanoseconds (only differences mean anything). */
    long nanoTime();

    /** Runs {@code task} on the loop after {@code delay} (zero or negative: as soon as possible). */
    Timer schedule(Runnable task, Duration delay);

    /** The time elapsed since {@code nanos}, a value of {@link #nanoTime()}. */
    default Duration since(long nanos) {
        return Duration.ofNanos(nanoTime() - nanos);
    }

    /** A timer set with {@link #schedule}. */
    interface Timer {
        /** Cancels the timer; false if it already ran or was cancelled. */
        boolean cancel();
    }
}
