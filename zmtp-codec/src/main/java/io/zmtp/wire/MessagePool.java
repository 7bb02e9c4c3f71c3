package io.zmtp.wire;

import io.netty.util.internal.PlatformDependent;

import java.util.Arrays;
import java.util.Queue;

/**
 * The released message objects one event-loop thread keeps for reuse ({@link ZmtpMessage}'s;
 * the pool itself knows nothing of what it keeps). Only the owning thread takes from it and puts
 * back into it, with plain array operations: no atomic, no fence.
 *
 * <p>Another thread that releases one of its messages returns it through a bounded queue the
 * owner drains when its array runs out, unless the message was marked
 * {@link ZmtpMessage#doNotReuse()} (as the inproc pipe marks a message that passed between two
 * event loops: where a message changes threads, not where it is released, since such a message
 * often ends on the loop that made it).
 *
 * <p>A caller that makes many messages on one thread (the frame reader of a connection) keeps the
 * pool it got from {@link ZmtpMessage#currentPool()} and checks {@link #ownedByCurrentThread()}
 * instead of looking the pool up per message.
 *
 * @param <M> what it keeps
 */
final class MessagePool<M> {
    private static final int INITIAL_CAPACITY = 256;

    private final Thread owner;
    private final int max;
    private Object[] free;
    private int count;
    /** Messages released by other threads; grows by chunks up to {@link #max}. */
    private final Queue<M> returned;

    /** A pool owned by {@code owner} keeping at most {@code max} objects (and as many again being returned). */
    MessagePool(Thread owner, int max) {
        this.owner = owner;
        this.max = max;
        this.free = new Object[Math.min(INITIAL_CAPACITY, max)];
        this.returned = PlatformDependent.newMpscQueue(INITIAL_CAPACITY, Math.max(INITIAL_CAPACITY * 2, max));
    }

    boolean ownedByCurrentThread() {
        return owner == Thread.currentThread();
    }

    /** An object the owning thread kept, or null when it has none: the caller makes a new one. */
    @SuppressWarnings("unchecked")
    M take() {
        if (count == 0 && !drainReturned()) {
            return null;
        }
        return (M) free[--count];
    }

    /** Keeps {@code m} (reset, released) for reuse, or leaves it to the collector when full. */
    void recycle(M m) {
        if (owner == Thread.currentThread()) {
            keep(m);
        } else {
            returned.offer(m); // full: the object goes to the collector
        }
    }

    /** Puts {@code m} in the free array, growing it up to the limit; at the limit, drops it. */
    private void keep(M m) {
        if (count == free.length) {
            if (count == max) {
                return;
            }
            free = Arrays.copyOf(free, Math.min(max, count * 2));
        }
        free[count++] = m;
    }

    /** Moves what other threads returned into the free array; whether it got any. */
    private boolean drainReturned() {
        M m;
        while (count < max && (m = returned.poll()) != null) {
            keep(m);
        }
        return count > 0;
    }
}
