package io.zmtp.wire;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.MessageFormatter;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The log for what remote peers cause (a failed handshake, a malformed frame, a refused
 * connection): it never blocks an event loop and a peer cannot flood it.
 * <ul>
 *   <li>Lines are handed to one daemon thread through a bounded queue ({@value #QUEUE_CAPACITY}
 *       lines); the event loop never calls the logging backend, so a stalled stderr (a pipe that
 *       nobody reads) stalls only that thread. A line that does not fit is dropped and counted.</li>
 *   <li>WARN lines are rate-limited per log: a burst of {@value #BURST}, then one per
 *       {@value #REFILL_MILLIS} ms; the next line that passes says how many were suppressed.
 *       Everything is also available at DEBUG, not rate-limited but still off the loop.</li>
 *   <li>Arguments that a peer supplied must be escaped by the caller with
 *       {@link FrameText#escape(CharSequence)}.</li>
 * </ul>
 * Formatting happens on the calling thread only for lines that will be written.
 */
public final class PeerFailureLog {
    static final int QUEUE_CAPACITY = 1024;
    static final int BURST = 20;
    static final long REFILL_MILLIS = 1000;

    private static final BlockingQueue<Runnable> LINES = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    private static final AtomicLong DROPPED = new AtomicLong();

    static {
        Thread writer = new Thread(PeerFailureLog::writeLines, "zmtp-peer-log");
        writer.setDaemon(true);
        writer.start();
    }

    private final Logger logger;
    private final Object lock = new Object();
    private double tokens = BURST;
    private long lastRefill = System.nanoTime();
    private long suppressed;

    private PeerFailureLog(Logger logger) {
        this.logger = logger;
    }

    public static PeerFailureLog get(Class<?> owner) {
        return new PeerFailureLog(LoggerFactory.getLogger(owner));
    }

    /** A rate-limited WARN line (and a DEBUG one when rate-limited, if DEBUG is on). */
    public void warn(String format, Object... args) {
        if (!logger.isWarnEnabled()) {
            return;
        }
        long dropped;
        synchronized (lock) {
            if (!take()) {
                suppressed++;
                if (logger.isDebugEnabled()) {
                    hand(false, format, args, 0);
                }
                return;
            }
            dropped = suppressed;
            suppressed = 0;
        }
        hand(true, format, args, dropped);
    }

    /** A DEBUG line, written off the calling thread. */
    public void debug(String format, Object... args) {
        if (logger.isDebugEnabled()) {
            hand(false, format, args, 0);
        }
    }

    public boolean isDebugEnabled() {
        return logger.isDebugEnabled();
    }

    /** Lines dropped because the writer thread was behind, since the process started. */
    public static long droppedLines() {
        return DROPPED.get();
    }

    private boolean take() {
        long now = System.nanoTime();
        tokens = Math.min(BURST, tokens + (now - lastRefill) / (REFILL_MILLIS * 1_000_000.0));
        lastRefill = now;
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }

    private void hand(boolean warn, String format, Object[] args, long suppressedBefore) {
        String text = MessageFormatter.arrayFormat(format, args).getMessage();
        if (suppressedBefore > 0) {
            text = text + " (" + suppressedBefore + " similar lines suppressed)";
        }
        String line = text;
        Runnable write = warn ? () -> logger.warn(line) : () -> logger.debug(line);
        if (!LINES.offer(write)) {
            DROPPED.incrementAndGet();
        }
    }

    private static void writeLines() {
        for (;;) {
            try {
                LINES.take().run();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                DROPPED.incrementAndGet();
            }
        }
    }
}
