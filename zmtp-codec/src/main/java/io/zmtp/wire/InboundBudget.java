package io.zmtp.wire;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes that the connections of one socket may hold, together, in messages they have not
 * finished receiving: the frames of an unfinished multipart message (each counted with
 * {@link ZmtpOptions#FRAME_COST}) and the buffered start of an unfinished frame. Without it every
 * connection could hold up to the maximum message size in unfinished bytes, with no bound across
 * connections.
 *
 * <p>How {@link ZmtpCodec} uses it, after each read:
 * <ul>
 *   <li>A connection reserves what it holds. One that holds at most {@value #SMALL_HOLDING} bytes
 *       is never paused, so peers that send normal-size messages are served however full the
 *       budget is (the budget can therefore be overdrawn by at most that much per connection).</li>
 *   <li>A connection that holds more while the budget is overdrawn stops reading (its peer is
 *       slowed by TCP) until other connections release enough: when a message completes, or a
 *       connection closes.</li>
 *   <li>A message that alone would need more than the whole budget closes its connection with a
 *       reason that says so; this is checked on each frame header.</li>
 * </ul>
 * Thread-safe: reservations are one atomic add; pausing and waking take a lock.
 */
public final class InboundBudget {
    /** A connection holding at most this many unfinished bytes (64 KiB) is never paused by the budget. */
    public static final int SMALL_HOLDING = 64 * 1024;

    private final long limit;
    private final AtomicLong reserved = new AtomicLong();
    private final AtomicInteger waiting = new AtomicInteger();
    private final Set<Runnable> waiters = new LinkedHashSet<>();

    /** A budget of {@code limit} bytes (at least {@link #SMALL_HOLDING}). */
    public InboundBudget(long limit) {
        if (limit < SMALL_HOLDING) {
            throw new IllegalArgumentException("an inbound budget is at least " + SMALL_HOLDING + " bytes");
        }
        this.limit = limit;
    }

    public long limit() {
        return limit;
    }

    /** The bytes reserved now by all connections (0 when none holds an unfinished message). */
    public long reserved() {
        return reserved.get();
    }

    /** Connections waiting for the budget to free up. */
    public int waiting() {
        return waiting.get();
    }

    /** Whether the budget is overdrawn now. */
    boolean overdrawn() {
        return reserved.get() > limit;
    }

    /** Changes a connection's reservation by {@code delta}; wakes waiters when a release brings the total within the limit. */
    void change(long delta) {
        if (delta == 0) {
            return;
        }
        long total = reserved.addAndGet(delta);
        if (delta < 0 && total <= limit && waiting.get() > 0) {
            wakeAll();
        }
    }

    /**
     * Registers {@code wake} to be run once the budget is within its limit again. Runs it at once
     * if that is already so (a release may have happened meanwhile).
     */
    void await(Runnable wake) {
        synchronized (waiters) {
            if (waiters.add(wake)) {
                waiting.incrementAndGet();
            }
        }
        if (reserved.get() <= limit) {
            wakeAll();
        }
    }

    /** Forgets {@code wake} (its connection closed). */
    void cancel(Runnable wake) {
        synchronized (waiters) {
            if (waiters.remove(wake)) {
                waiting.decrementAndGet();
            }
        }
    }

    private void wakeAll() {
        List<Runnable> woken;
        synchronized (waiters) {
            woken = new ArrayList<>(waiters);
            waiters.clear();
            waiting.set(0);
        }
        for (Runnable r : woken) {
            r.run();
        }
    }

    @Override
    public String toString() {
        return "InboundBudget{" + reserved.get() + " of " + limit + " bytes, " + waiting.get() + " waiting}";
    }
}
