package io.zmtp.wire;

import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.internal.PlatformDependent;

import java.util.Arrays;
import java.util.Queue;

/**
 * The released {@link ZmtpMessage} objects one event-loop thread keeps for reuse. Only the owning
 * thread takes from it and puts back into it, with plain array operations: no atomic, no fence.
 *
 * <p>Another thread that releases one of its messages returns it through a bounded queue the
 * owner drains when its array runs out, unless the message was marked
 * {@link ZmtpMessage#doNotReuse()} (as the inproc pipe marks a message that passed between two
 * event loops: where a message changes threads, not where it is released, since such a message
 * often ends on the loop that made it).
 *
 * <p>A caller that makes many messages on one thread (the frame reader of a connection) keeps the
 * pool it got from {@link #current()} and checks {@link #ownedByCurrentThread()} instead of
 * looking the pool up per message. Threads that are not Netty's ({@link FastThreadLocalThread},
 * or a thread inside {@link FastThreadLocalThread#runWithFastThreadLocal}), such as an
 * application's own, get no pool: their messages are new objects.
 */
final class MessagePool {

    private static final FastThreadLocal<MessagePool> POOLS = new FastThreadLocal<MessagePool>() {
        @Override
        protected MessagePool initialValue() {
            return new MessagePool(Thread.currentThread(), ZmtpMessage.POOL_PER_THREAD);
        }
    };

    private static final int INITIAL_CAPACITY = 256;

    private final Thread owner;
    private final int max;
    private ZmtpMessage[] free;
    private int count;
    /** Messages released by other threads; grows by chunks up to {@link #max}. */
    private final Queue<ZmtpMessage> returned;

    /** A pool owned by {@code owner} keeping at most {@code max} objects (and as many again being returned). */
    MessagePool(Thread owner, int max) {
        this.owner = owner;
        this.max = max;
        this.free = new ZmtpMessage[Math.min(INITIAL_CAPACITY, max)];
        this.returned = PlatformDependent.newMpscQueue(INITIAL_CAPACITY, Math.max(INITIAL_CAPACITY * 2, max));
    }

    /** The calling thread's pool, or null when it has none (not a Netty thread, or pooling is off). */
    static MessagePool current() {
        if (ZmtpMessage.CHECKED || ZmtpMessage.POOL_PER_THREAD <= 0
                || !FastThreadLocalThread.currentThreadHasFastThreadLocal()) {
            return null;
        }
        return POOLS.get();
    }

    boolean ownedByCurrentThread() {
        return owner == Thread.currentThread();
    }

    /** A message object for the owning thread: one it kept, or a new one. */
    ZmtpMessage take() {
        if (count == 0 && !drainReturned()) {
            return new ZmtpMessage(this);
        }
        return free[--count];
    }

    /** Keeps {@code m} (reset, released) for reuse, or leaves it to the collector when full. */
    void recycle(ZmtpMessage m) {
        if (owner == Thread.currentThread()) {
            keep(m);
        } else {
            returned.offer(m); // full: the object goes to the collector
        }
    }

    /** Puts {@code m} in the free array, growing it up to the limit; at the limit, drops it. */
    private void keep(ZmtpMessage m) {
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
        ZmtpMessage m;
        while (count < max && (m = returned.poll()) != null) {
            keep(m);
        }
        return count > 0;
    }
}
