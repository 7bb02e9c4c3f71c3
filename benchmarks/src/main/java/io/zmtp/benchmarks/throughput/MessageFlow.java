package io.zmtp.benchmarks.throughput;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * One-way messages over loopback tcp: a sender on the calling (benchmark) thread that binds, and
 * a receiver that connects and counts. PUB -> SUB (subscribed to everything) or PUSH -> PULL.
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

    @Override
    public abstract void close();
}
