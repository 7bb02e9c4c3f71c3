package io.zmtp.benchmarks.throughput;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * One-way messages over loopback tcp: a sender on the calling (benchmark) thread and a receiver
 * that counts. PUB -> SUB (subscribed to everything) or PUSH -> PULL, the sender binding; RADIO
 * -> DISH (joined to the group sent to), over tcp or udp, the DISH binding as it must for udp.
 */
abstract class MessageFlow implements AutoCloseable {
    private static final long READY_LIMIT_NANOS = 10_000_000_000L;

    final ReceiveCounter counter = new ReceiveCounter();
    final byte[] data;
    final byte[] probe;

    MessageFlow(int size) {
        data = new byte[size];
        probe = new byte[size];
        Arrays.fill(data, ReceiveCounter.DATA);
        Arrays.fill(probe, ReceiveCounter.PROBE);
    }

    /** Sends one message (from the calling thread). */
    abstract void send(byte[] message);

    /** Sends probes until one arrives: the receiver is connected (and subscribed). */
    final void awaitReady() {
        long deadline = System.nanoTime() + READY_LIMIT_NANOS;
        while (!counter.probeSeen()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(this + ": receiver not ready within 10 s");
            }
            send(probe);
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** Sends {@code messages} messages and waits until the receiver has them all. */
    final void sendBatch(int messages) {
        counter.expect(messages);
        for (int i = 0; i < messages; i++) {
            send(data);
        }
        counter.awaitBatch();
    }

    /**
     * Sends a window of {@code messages} and waits at most {@code waitNanos} for them all, for a
     * transport that may drop (udp); returns how many had not arrived by then, which are given up
     * on (any that arrive later count toward the next window: {@link #received()} counts them).
     */
    final long sendWindow(int messages, long waitNanos) {
        counter.expect(messages);
        for (int i = 0; i < messages; i++) {
            send(data);
        }
        return counter.awaitBatch(waitNanos) ? 0 : counter.giveUp();
    }

    /** The data messages the receiver has counted so far. */
    final long received() {
        return counter.receivedSoFar();
    }

    @Override
    public abstract void close();
}
