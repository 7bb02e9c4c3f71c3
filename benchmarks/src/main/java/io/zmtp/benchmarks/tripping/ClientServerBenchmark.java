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
 * The thread-safe types' round trip (issue #45): a CLIENT on the benchmark thread and a SERVER
 * that sends each 5-byte request back to the routing id it came from, over loopback tcp, ours
 * against JeroMQ 0.6.0's CLIENT and SERVER. {@link #synchronous} is one call (send, wait for the
 * reply) per operation; {@link #asynchronous} sends {@value #ASYNC_CALLS} requests and then
 * receives their replies, counted as {@value #ASYNC_CALLS} operations. Scores are calls per
 * second. libzmq has no twin here: Debian's libzmq is built without its draft types.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
public class ClientServerBenchmark {
    /** Requests in flight in one asynchronous operation. */
    public static final int ASYNC_CALLS = TrippingBenchmark.ASYNC_CALLS;

    @Param
    Impl impl;

    private TrippingTopology topology;

    @Setup(Level.Trial)
    public void setUp() {
        topology = impl == Impl.zmtp ? new ZmtpClientServer() : new JeromqClientServer();
        topology.synchronous(100); // connected, every path taken once
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
