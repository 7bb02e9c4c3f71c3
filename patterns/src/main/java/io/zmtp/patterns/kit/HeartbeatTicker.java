package io.zmtp.patterns.kit;


import java.time.Duration;

/**
 * Runs a heartbeat task every interval on a component's loop clock, and tells it whether silence
 * observed at this tick counts.
 *
 * <p>When the loop itself stalled (a long pause, no CPU for a while), a tick can run before the
 * loop has read what peers sent meanwhile; taking their silence for death then is a false
 * failure, and a stall of several intervals must not count as several missed beats. So a tick
 * that runs more than half an interval late does not count silence (and the ticks the stall
 * swallowed are not replayed: the next one is an interval after this one). At most one tick in a
 * row is discounted, so a loop that is always late still finds silent peers. Used on the loop.
 */
public final class HeartbeatTicker {
    /** The task run at each tick. */
    @FunctionalInterface
    public interface Tick {
        /** @param silenceCounts false for a late tick: do not count silence or expire peers now */
        void run(boolean silenceCounts);
    }

    private final LoopClock clock;
    private final Duration interval;
    private final long intervalNanos;
    private final Tick tick;
    private LoopClock.Timer next;
    private long due;
    private boolean discountedLast;
    private boolean stopped;

    public HeartbeatTicker(LoopClock clock, Duration interval, Tick tick) {
        this.clock = clock;
        this.interval = interval;
        this.intervalNanos = interval.toNanos();
        this.tick = tick;
    }

    /** Starts ticking, or starts again: the next tick is an interval from now. */
    public void start() {
        stopped = false;
        if (next != null) {
            next.cancel();
        }
        discountedLast = false;
        schedule();
    }

    /** Stops ticking. */
    public void stop() {
        stopped = true;
        if (next != null) {
            next.cancel();
            next = null;
        }
    }

    private void schedule() {
        due = clock.nanoTime() + intervalNanos;
        next = clock.schedule(this::fire, interval);
    }

    private void fire() {
        next = null;
        if (stopped) {
            return;
        }
        boolean late = clock.nanoTime() - due > intervalNanos / 2;
        boolean silenceCounts = !late || discountedLast;
        discountedLast = !silenceCounts;
        tick.run(silenceCounts);
        if (!stopped && next == null) {
            schedule();
        }
    }
}
