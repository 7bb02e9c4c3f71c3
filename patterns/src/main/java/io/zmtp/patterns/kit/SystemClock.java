package io.zmtp.patterns.kit;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** The real clock: the loop's ticker for the time, the loop's scheduler for timers. */
final class SystemClock implements PatternClock {
    static final SystemClock INSTANCE = new SystemClock();

    private SystemClock() {
    }

    @Override
    public LoopClock on(EventExecutor loop) {
        return new LoopClock() {
            @Override
            public EventExecutor loop() {
                return loop;
            }

            @Override
            public long nanoTime() {
                return loop.ticker().nanoTime();
            }

            @Override
            public Timer schedule(Runnable task, Duration delay) {
                ScheduledFuture<?> f = loop.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
                return () -> f.cancel(false);
            }
        };
    }

    @Override
    public String toString() {
        return "system clock";
    }
}
