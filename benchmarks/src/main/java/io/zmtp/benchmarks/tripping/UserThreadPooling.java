package io.zmtp.benchmarks.tripping;

import io.netty.util.concurrent.FastThreadLocalThread;

import java.lang.management.ManagementFactory;

/**
 * What pooling messages on the user's thread changes for the guide's blocking client (a main
 * program, not JMH: the JMH thread cannot be made a pooling thread for a whole trial). Netty 4.2
 * pools objects only on threads that clean up their fast thread-locals; a plain thread can become
 * one with {@link FastThreadLocalThread#runWithFastThreadLocal}. Runs the asynchronous round trip
 * ({@value TrippingBenchmark#ASYNC_CALLS} calls sent, then received) on the calling thread, plain
 * or so wrapped, and prints the bytes that thread allocated per call and the calls per second.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.zmtp.benchmarks.tripping.UserThreadPooling {plain|pooled} {tcp|inproc}</pre>
 */
public final class UserThreadPooling {
    private static final int WARMUP_OPS = 300;
    private static final int OPS_PER_ROUND = 200;
    private static final int ROUNDS = 3;

    private UserThreadPooling() {
    }

    public static void main(String[] args) {
        if (args.length != 2 || !(args[0].equals("plain") || args[0].equals("pooled"))) {
            System.err.println("usage: UserThreadPooling {plain|pooled} {tcp|inproc}");
            System.exit(2);
        }
        boolean pooled = args[0].equals("pooled");
        String transport = args[1];
        try (ZmtpTripping topology = new ZmtpTripping(transport)) {
            Runnable rounds = () -> run(topology, args[0] + " " + transport);
            if (pooled) {
                FastThreadLocalThread.runWithFastThreadLocal(rounds);
            } else {
                rounds.run();
            }
        }
    }

    private static void run(ZmtpTripping topology, String label) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().getId();
        topology.synchronous(100);
        for (int i = 0; i < WARMUP_OPS; i++) {
            topology.asynchronous(TrippingBenchmark.ASYNC_CALLS);
        }
        for (int round = 0; round < ROUNDS; round++) {
            long bytes = threads.getThreadAllocatedBytes(self);
            long start = System.nanoTime();
            for (int i = 0; i < OPS_PER_ROUND; i++) {
                topology.asynchronous(TrippingBenchmark.ASYNC_CALLS);
            }
            long nanos = System.nanoTime() - start;
            double calls = (double) OPS_PER_ROUND * TrippingBenchmark.ASYNC_CALLS;
            System.out.printf("%s: %.1f B allocated per call on this thread, %,.0f calls/s%n", label,
                    (threads.getThreadAllocatedBytes(self) - bytes) / calls, calls / (nanos / 1e9));
        }
    }
}
