package io.zmtp.benchmarks.majordomo;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Issue #43's Majordomo crowd: echo requests ("Hello world", MDP/0.1, one service) through one
 * broker, with few or many workers and clients, and the same {@value #IN_FLIGHT} requests in flight
 * in every configuration (each client keeps {@code IN_FLIGHT / clients} of its own outstanding:
 * 100 each for 10 clients, 1 each for 1,000). The goal: a broker with 1,000 workers and 1,000
 * clients keeps at least half of "its 10-worker throughput". In those words only the workers
 * change, so the baseline is {@code 10x1000} (the same 1,000 clients, 10 workers); {@code 10x10}
 * changes the clients too (10 connections carrying 100 requests each, so that one system call
 * carries dozens of them), the stricter baseline the comparison also reports.
 *
 * <p>{@code crowd} is {@code WORKERSxCLIENTS}. The clients drive themselves (a new request as
 * each reply comes, see {@link MajordomoCrowdRig}); an operation is one reply, and the benchmark
 * thread only looks, once a millisecond, whether the next {@value #BATCH} of them came.
 * {@code impl=zmtp}: this library's broker, workers and asynchronous clients, each kind on an
 * event loop of its own; {@code impl=jeromq}: the same on JeroMQ (a thread per worker, one thread
 * polling every client socket).
 *
 * <p>1,000 workers and 1,000 clients warm up slowly (a few thousand requests a second while the
 * JIT compiles): give them five warm-up iterations of 2 s, the default here; with three the
 * first measured ones still run half-compiled code.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar MajordomoCrowd                      # about 3 minutes
 * java -jar benchmarks/target/benchmarks.jar MajordomoCrowd -p impl=zmtp -p crowd=10x10,10x1000,1000x1000
 * java -jar benchmarks/target/benchmarks.jar MajordomoCrowd -p impl=zmtp -p crowd=1000x10,10x1000
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
public class MajordomoCrowdBenchmark {
    /** Requests in flight in every configuration. */
    public static final int IN_FLIGHT = 1000;
    /** Replies per operation batch (the benchmark thread wakes once per batch at most). */
    public static final int BATCH = 1000;

    @Param({"zmtp", "jeromq"})
    public String impl;

    /** Workers x clients. */
    @Param({"10x10", "10x1000", "100x100", "1000x1000"})
    public String crowd;

    private MajordomoCrowdRig rig;
    private long target;
    private long firstReply;
    private long brokerCpu0;
    private long processCpu0;
    /** 1 / the measured iterations of the run (every fork's): what one iteration's cost counts for. */
    private double share;

    /**
     * Secondary results: CPU time per reply over the iteration, in microseconds, of the broker's
     * threads (its event loop; JeroMQ's receive loop and I/O thread) and of the whole process.
     * Unlike the throughput they change little when other work shares the machine: a broker with
     * a core of its own would serve about 1,000,000 / brokerCpuUs requests per second. JMH adds
     * such counters up over every measured iteration of every fork, so each iteration reports its
     * share of the mean.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Cost {
        public double brokerCpuUs;
        public double processCpuUs;
    }

    @Setup(Level.Trial)
    public void start(BenchmarkParams params) throws Exception {
        share = 1.0 / (Math.max(1, params.getForks()) * params.getMeasurement().getCount());
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
        firstReply = target;
        brokerCpu0 = rig.brokerCpuNanos();
        processCpu0 = processCpuNanos();
    }

    /** Waits for the next {@value #BATCH} replies. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long replies(Cost cost) {
        target += BATCH;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (rig.replies() < target) {
            rig.check();
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no progress for 30 s: " + rig.replies() + " replies");
            }
            LockSupport.parkNanos(1_000_000);
        }
        double n = rig.replies() - firstReply;
        cost.brokerCpuUs = share * (rig.brokerCpuNanos() - brokerCpu0) / 1000.0 / n;
        cost.processCpuUs = share * (processCpuNanos() - processCpu0) / 1000.0 / n;
        return target;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    @TearDown(Level.Trial)
    public void stop() {
        if (rig != null) {
            rig.close();
        }
    }
}
