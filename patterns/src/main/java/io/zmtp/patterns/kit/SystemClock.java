package io.zmtp.patterns.kit;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/** The real clock on one loop ({@link PatternClock#system()}): the loop's ticker for the time, its scheduler for timers. */
final class SystemClock implements LoopClock {
    private final EventExecutor loop;

    SystemClock(EventExecutor loop) {
        this.loop = Objects.requireNonNull(loop);
    }

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

    @Override
    public String toString() {
        return "system clock on " + loop;
    }
}
