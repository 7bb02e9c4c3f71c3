package io.zmtp.benchmarks.majordomo;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Issue #43's Majordomo crowd: echo requests ("Hello world", MDP/0.1, one service) through one
 * broker, with few or many workers and clients, and the same {@value #IN_FLIGHT} requests in flight
 * in every configuration (each client keeps {@code IN_FLIGHT / clients} of its own outstanding:
 * 100 each for 10 clients, 1 each for 1,000). The goal: 1,000 workers and 1,000 clients keep at
 * least half the throughput of 10 and 10.
 *
 * <p>{@code crowd} is {@code WORKERSxCLIENTS}. The clients drive themselves (a new request as
 * each reply comes, see {@link MajordomoCrowdRig}); an operation is one reply, and the benchmark
 * thread only waits, parked, for the next {@value #BATCH} of them. {@code impl=zmtp}: this
 * library's broker, workers and asynchronous clients, each kind on an event loop of its own;
 * {@code impl=jeromq}: the same on JeroMQ (a thread per worker, one thread polling every client
 * socket).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar MajordomoCrowd -f 1 -wi 3 -w 2s -i 5 -r 2s
 * java -jar benchmarks/target/benchmarks.jar MajordomoCrowd -p impl=zmtp -p crowd=1000x1000,1000x10
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = "-Dio.netty.leakDetection.level=disabled")
public class MajordomoCrowdBenchmark {
    /** Requests in flight in every configuration. */
    public static final int IN_FLIGHT = 1000;
    /** Replies per operation batch (the benchmark thread wakes once per batch at most). */
    public static final int BATCH = 1000;

    @Param({"zmtp", "jeromq"})
    public String impl;

    /** Workers x clients. */
    @Param({"10x10", "100x100", "1000x1000"})
    public String crowd;

    private MajordomoCrowdRig rig;
    private long target;

    @Setup(Level.Trial)
    public void start() throws Exception {
        String[] wc = crowd.split("x");
        int workers = Integer.parseInt(wc[0]);
        int clients = Integer.parseInt(wc[1]);
        if (IN_FLIGHT % clients != 0) {
            throw new IllegalArgumentException(clients + " clients do not share " + IN_FLIGHT + " requests evenly");
        }
        rig = "jeromq".equals(impl) ? new JeromqCrowdRig() : new ZmtpCrowdRig();
        rig.start(workers, clients, IN_FLIGHT / clients);
    }

    /** Counts from now: replies that came between iterations are not this iteration's. */
    @Setup(Level.Iteration)
    public void mark() {
        target = rig.replies();
    }

    /** Waits for the next {@value #BATCH} replies. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long replies() {
        target += BATCH;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (rig.replies() < target) {
            rig.check();
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no progress for 30 s: " + rig.replies() + " replies");
            }
            LockSupport.parkNanos(1_000_000);
        }
        return target;
    }

    @TearDown(Level.Trial)
    public void stop() {
        if (rig != null) {
            rig.close();
        }
    }
}
