package io.zmtp.wire;

import io.netty.channel.Channel;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
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
 *   <li>A paused connection whose peer has closed must still come to its end, or its reservation
 *       would be held for good. Netty's epoll and NIO channels read to the end of the stream
 *       when the peer closes, paused or not; its io_uring channel (4.2.18) does not always.
 *       For such channels the budget is given a {@link #InboundBudget(long, Predicate) probe}
 *       that a connection asks every {@value #PROBE_MILLIS} ms from its first pause until its
 *       unfinished message is done: once it says the peer has closed, the connection reads what
 *       is left, budget or not (as epoll does), and if no end of the stream has come by the next
 *       look, it is closed.</li>
 * </ul>
 * Thread-safe: reservations are one atomic add; pausing and waking take a lock.
 */
public final class InboundBudget {
    /** A connection holding at most this many unfinished bytes (64 KiB) is never paused by the budget. */
    public static final int SMALL_HOLDING = 64 * 1024;
    /** How often a connection paused for the budget asks the {@link #peerClosed() probe}. */
    public static final long PROBE_MILLIS = 1000;

    private final long limit;
    private final Predicate<Channel> peerClosed;
    private final AtomicLong reserved = new AtomicLong();
    private final AtomicInteger waiting = new AtomicInteger();
    private final Set<Runnable> waiters = new LinkedHashSet<>();

    /** A budget of {@code limit} bytes (at least {@link #SMALL_HOLDING}). */
    public InboundBudget(long limit) {
        this(limit, null);
    }

    /**
     * A budget of {@code limit} bytes whose paused connections ask {@code peerClosed} every
     * {@value #PROBE_MILLIS} ms whether their peer has closed (null: they need not ask, as over
     * epoll and NIO); it runs on the connection's event loop.
     */
    public InboundBudget(long limit, Predicate<Channel> peerClosed) {
        if (limit < SMALL_HOLDING) {
            throw new IllegalArgumentException("an inbound budget is at least " + SMALL_HOLDING + " bytes");
        }
        this.limit = limit;
        this.peerClosed = peerClosed;
    }

    /** What a paused connection asks about its peer, or null. */
    Predicate<Channel> peerClosed() {
        return peerClosed;
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
