package io.zmtp.benchmarks.tripping;

import io.zmtp.benchmarks.Impl;
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

import java.util.concurrent.TimeUnit;

/**
 * Workload 1, the guide's round-trip test ("tripping"): DEALER client -> ROUTER/ROUTER broker ->
 * echoing DEALER worker, in one process, over loopback tcp or inproc, with 5-byte requests.
 * {@link #synchronous} is one call (send, wait for the reply) per operation; {@link #asynchronous}
 * sends {@value #ASYNC_CALLS} requests and then receives their replies, counted as
 * {@value #ASYNC_CALLS} operations. Scores are calls per second. libzmq's twin is
 * {@code benchmarks/native/tripping.c}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
public class TrippingBenchmark {
    /** Requests in flight in one asynchronous operation. */
    public static final int ASYNC_CALLS = 10_000;

    @Param
    Impl impl;

    @Param({"tcp", "inproc"})
    String transport;

    private TrippingTopology topology;

    @Setup(Level.Trial)
    public void setUp() {
        topology = impl == Impl.zmtp ? new ZmtpTripping(transport) : new JeromqTripping(transport);
        topology.synchronous(100); // every connection up, every path taken once
    }

    @Benchmark
    public void synchronous() {
        topology.synchronous(1);
    }

    @Benchmark
    @OperationsPerInvocation(ASYNC_CALLS)
    public void asynchronous() {
        topology.asynchronous(ASYNC_CALLS);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        topology.close();
    }
}
