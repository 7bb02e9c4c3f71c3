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
 * {@link TrippingBenchmark}'s asynchronous round trip over loopback tcp with CURVE on both hops:
 * the broker's ROUTERs are CURVE servers, the client and the worker CURVE clients, so each call is
 * sealed and opened four times. Scores are calls per second. libzmq's twin is
 * {@code benchmarks/native/tripping.c --mode async --curve}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
public class CurveTrippingBenchmark {

    @Param
    Impl impl;

    private TrippingTopology topology;

    @Setup(Level.Trial)
    public void setUp() {
        topology = impl == Impl.zmtp ? new ZmtpTripping("tcp", true) : new JeromqTripping("tcp", true);
        topology.synchronous(100); // every connection up and through its handshake, every path taken once
    }

    @Benchmark
    @OperationsPerInvocation(TrippingBenchmark.ASYNC_CALLS)
    public void asynchronous() {
        topology.asynchronous(TrippingBenchmark.ASYNC_CALLS);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        topology.close();
    }
}
