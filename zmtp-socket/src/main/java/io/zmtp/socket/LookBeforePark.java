package io.zmtp.socket;

import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * How a user thread waits for an answer from an event loop: it looks for a short while (spinning,
 * then yielding the CPU between looks) before it parks. A reply over loopback comes within tens
 * of microseconds; parking and being woken costs two system calls and a scheduler wake-up each
 * time, which would dominate a synchronous round trip. The look is bounded and only follows a
 * request, so an idle thread costs nothing.
 */
public final class LookBeforePark {
    static final int SPINS = 64;

    /** How long to look before parking: {@code zmtp.blocking.waitMicros}, 100 us by default. */
    public static final long NANOS = TimeUnit.MICROSECONDS.toNanos(Long.getLong("zmtp.blocking.waitMicros", 100));

    private LookBeforePark() {
    }

    /** Looks until {@code f} is done or the look is over; true if it is done (no parking needed). */
    public static boolean look(Future<?> f) {
        for (int i = 0; i < SPINS; i++) {
            if (f.isDone()) {
                return true;
            }
            Thread.onSpinWait();
        }
        long stop = System.nanoTime() + NANOS;
        while (!f.isDone()) {
            if (System.nanoTime() - stop >= 0) {
                return false;
            }
            Thread.yield();
        }
        return true;
    }
}
