package io.zmtp.benchmarks.throughput;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Counts what a receiver gets and tells the sending thread when a whole batch is in. The
 * receiving side (an event loop or a receiver thread) calls {@link #received}; the sending thread
 * announces each batch with {@link #expect}, sends it, and waits in {@link #awaitBatch}.
 *
 * <p>Probe messages (first byte {@link #PROBE}) are not counted: they are sent until one
 * arrives, to know that a subscriber's subscription has reached the publisher (before that, a
 * PUB drops everything), and any that arrive later are ignored.
 *
 * <p>Over a transport that may drop (udp), the sender waits for a batch a bounded time
 * ({@link #awaitBatch(long)}), then gives up on what is missing ({@link #giveUp()}), and reads
 * what arrived with {@link #receivedSoFar()}.
 */
final class ReceiveCounter {
    static final byte PROBE = 'P';
    static final byte DATA = 'D';
    private static final long WAIT_SECONDS = 30;
    /** The receiving side's count, read by the sender without making the receiver's write volatile. */
    private static final VarHandle RECEIVED;

    static {
        try {
            RECEIVED = MethodHandles.lookup().findVarHandle(ReceiveCounter.class, "received", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private long received;                          // receiving side only
    private volatile long target = Long.MAX_VALUE;  // written by the sender before each batch
    private volatile boolean probeSeen;
    private final Semaphore batchIn = new Semaphore(0);
    private long expected;                          // sending side only

    /** On the receiving side: a message whose first byte is {@code first} has arrived. */
    void received(byte first) {
        if (first == PROBE) {
            if (!probeSeen) {
                probeSeen = true;
            }
            return;
        }
        if (++received == target) {
            batchIn.release();
        }
    }

    boolean probeSeen() {
        return probeSeen;
    }

    /** On the sending side, before a batch of {@code messages} is sent. */
    void expect(int messages) {
        expected += messages;
        target = expected;
    }

    /**
     * On the sending side: waits at most {@code timeoutNanos} for the batch announced last;
     * whether it arrived whole.
     */
    boolean awaitBatch(long timeoutNanos) {
        try {
            return batchIn.tryAcquire(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * On the sending side, after {@link #awaitBatch(long)} returned false: gives up on the
     * messages of the batches announced so far that have not arrived, and returns how many
     * those are. Any that arrive later count toward the next batch.
     */
    long giveUp() {
        target = Long.MAX_VALUE; // no release for a batch given up on
        long now = receivedSoFar();
        batchIn.drainPermits();
        long missing = Math.max(0, expected - now);
        expected = now;
        return missing;
    }

    /** The data messages received so far (read on any thread; it may lag by a few). */
    long receivedSoFar() {
        return (long) RECEIVED.getOpaque(this);
    }

    /** On the sending side: waits until the batch announced last has arrived whole. */
    void awaitBatch() {
        try {
            if (!batchIn.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("a batch did not arrive whole within " + WAIT_SECONDS
                        + " s (were messages dropped?)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
