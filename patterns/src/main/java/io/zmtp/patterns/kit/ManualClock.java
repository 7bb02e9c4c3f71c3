package io.zmtp.patterns.kit;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;

import java.time.Duration;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A clock for tests: time stands still until the test moves it. Timers are kept here, ordered by
 * when they are due (then by when they were set); {@link #advance} runs each due timer in that
 * order, each on the event loop of the component that set it, waiting for it (and for whatever it
 * handed to its loop) before the next. So a test that advances the clock knows that every timer
 * up to the new time has run, and in which order: heartbeats, expiry, retries and backoff become
 * deterministic and take no real time. Messages between sockets still travel in real time: wait
 * for their effects with a deadline.
 *
 * <p>{@link #advance} runs a timer at its due time (a punctual loop); {@link #stall} moves the
 * time first and then runs what fell due, late (a loop that was stalled). Both must be called
 * from a test thread, never from an event loop. One clock may serve components on several
 * loops.
 */
public final class ManualClock implements PatternClock {
    /** How long advance waits for one timer to run on its loop. */
    private static final long RUN_TIMEOUT_SECONDS = 10;

    private final Object lock = new Object();
    private final PriorityQueue<Task> timers = new PriorityQueue<>();
    private volatile long now;
    private long sequence;

    /** A clock whose time starts at an arbitrary large value (so code that assumes zero shows). */
    public ManualClock() {
        this.now = 1L << 40;
    }

    @Override
    public LoopClock on(EventExecutor loop) {
        Objects.requireNonNull(loop);
        return new LoopClock() {
            @Override
            public EventExecutor loop() {
                return loop;
            }

            @Override
            public long nanoTime() {
                return now;
            }

            @Override
            public Timer schedule(Runnable task, Duration delay) {
                return add(loop, task, delay);
            }

            @Override
            public String toString() {
                return "manual clock on " + loop;
            }
        };
    }

    /** The clock's time, as {@link LoopClock#nanoTime()} reports it. */
    public long nanoTime() {
        return now;
    }

    /** Timers set and not yet run or cancelled. */
    public int pendingTimers() {
        synchronized (lock) {
            return timers.size();
        }
    }

    /**
     * Whether a timer is set to fall due exactly {@code d} from now: how a test sees that a
     * component has begun a pause of that length (a backoff), among its other timers.
     */
    public boolean hasTimerIn(Duration d) {
        long due = now + d.toNanos();
        synchronized (lock) {
            return timers.stream().anyMatch(t -> t.due == due);
        }
    }

    /**
     * Moves the time forward by {@code d}, running every timer due by then at its due time, in
     * order, each on its loop; timers set meanwhile run too if they fall due within {@code d}.
     */
    public void advance(Duration d) {
        long target = now + requireNotNegative(d);
        Task t;
        while ((t = nextDue(target)) != null) {
            if (t.due > now) {
                now = t.due;
            }
            run(t);
        }
        now = target;
    }

    /**
     * Moves the time forward by {@code d} at once, then runs the timers that fell due, late: what
     * a loop that stalled for {@code d} would do.
     */
    public void stall(Duration d) {
        now += requireNotNegative(d);
        Task t;
        while ((t = nextDue(now)) != null) {
            run(t);
        }
    }

    private LoopClock.Timer add(EventExecutor loop, Runnable task, Duration delay) {
        Task t;
        synchronized (lock) {
            t = new Task(loop, task, now + Math.max(0, delay.toNanos()), sequence++);
            timers.add(t);
        }
        return t;
    }

    private Task nextDue(long until) {
        synchronized (lock) {
            Task t = timers.peek();
            if (t == null || t.due > until) {
                return null;
            }
            return timers.poll();
        }
    }

    private void run(Task t) {
        if (t.loop.inEventLoop()) {
            throw new IllegalStateException("advance the manual clock from a test thread, not from an event loop");
        }
        Future<?> ran = t.loop.submit(t::runIfLive);
        await(ran);
        await(t.loop.submit(() -> { })); // what the timer handed to its loop has run too
    }

    private static void await(Future<?> f) {
        try {
            f.get(RUN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while a timer ran", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a timer failed", e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("a timer did not finish within " + RUN_TIMEOUT_SECONDS + " s", e);
        }
    }

    private static long requireNotNegative(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("time only moves forward: " + d);
        }
        return d.toNanos();
    }

    @Override
    public String toString() {
        return "manual clock at " + now + " ns, " + pendingTimers() + " timers";
    }

    private final class Task implements LoopClock.Timer, Comparable<Task> {
        final EventExecutor loop;
        final Runnable task;
        final long due;
        final long seq;
        private volatile boolean done;

        Task(EventExecutor loop, Runnable task, long due, long seq) {
            this.loop = loop;
            this.task = task;
            this.due = due;
            this.seq = seq;
        }

        void runIfLive() {
            if (!done) {
                done = true;
                task.run();
            }
        }

        @Override
        public boolean cancel() {
            synchronized (lock) {
                if (done) {
                    return false;
                }
                done = true;
                timers.remove(this);
                return true;
            }
        }

        @Override
        public int compareTo(Task o) {
            int c = Long.compare(due, o.due);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }
}
