package io.zmtp.patterns.paranoidpirate;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

/**
 * Runs a heartbeat task every interval on an event loop, and tells it whether silence observed at
 * this tick counts.
 *
 * <p>When the loop itself stalled (a long pause, no CPU for a while), a tick can run before the
 * loop has read what peers sent meanwhile; taking their silence for death then is a false failure.
 * So a tick that runs more than half an interval late does not count silence; the next one, an
 * interval later (after the loop has read its connections), does. At most one tick in a row is
 * discounted, so a loop that is always late still expires silent peers.
 */
final class HeartbeatTimer {
    /** The task run at each tick. */
    interface Tick {
        void run(boolean silenceCounts);
    }

    private final EventLoop loop;
    private final long intervalNanos;
    private final Tick tick;
    private ScheduledFuture<?> next;
    private long due;
    private boolean discountedLast;
    private boolean stopped;

    HeartbeatTimer(EventLoop loop, long intervalNanos, Tick tick) {
        this.loop = loop;
        this.intervalNanos = intervalNanos;
        this.tick = tick;
    }

    /** Starts ticking (call on the loop). */
    void start() {
        schedule();
    }

    /** Stops ticking (call on the loop). */
    void stop() {
        stopped = true;
        if (next != null) {
            next.cancel(false);
        }
    }

    private void schedule() {
        due = loop.ticker().nanoTime() + intervalNanos;
        next = loop.schedule(this::fire, intervalNanos, TimeUnit.NANOSECONDS);
    }

    private void fire() {
        if (stopped) {
            return;
        }
        boolean late = loop.ticker().nanoTime() - due > intervalNanos / 2;
        boolean silenceCounts = !late || discountedLast;
        discountedLast = !silenceCounts;
        tick.run(silenceCounts);
        if (!stopped) {
            schedule();
        }
    }
}
