package io.zmtp.socket;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The time a thread lost to others so far, read on that thread: what it waited, runnable, for a
 * core (the second field of Linux's {@code /proc/thread-self/schedstat}) and what the collector's
 * pauses took (every collector's total, to the millisecond). A test that measures an event loop's
 * gaps subtracts the difference between two readings, so that a gap on a busy two-core machine,
 * or a collection, is not taken for the loop's own work. Either part is 0 where this system does
 * not say (no schedstat: not Linux, or schedstats off).
 */
final class TimeNotOwn {
    private static final Path SCHEDSTAT = Path.of("/proc/thread-self/schedstat");
    private static final List<GarbageCollectorMXBean> COLLECTORS = ManagementFactory.getGarbageCollectorMXBeans();

    private TimeNotOwn() {
    }

    /** Nanoseconds the calling thread lost so far to other threads and to the collector. */
    static long ofThisThread() {
        return runQueueWait() + collectionMillis() * 1_000_000L;
    }

    private static long runQueueWait() {
        try {
            String[] fields = new String(Files.readAllBytes(SCHEDSTAT), StandardCharsets.US_ASCII).trim().split(" ");
            return fields.length >= 2 ? Long.parseLong(fields[1]) : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static long collectionMillis() {
        long ms = 0;
        for (GarbageCollectorMXBean c : COLLECTORS) {
            ms += Math.max(0, c.getCollectionTime());
        }
        return ms;
    }
}
