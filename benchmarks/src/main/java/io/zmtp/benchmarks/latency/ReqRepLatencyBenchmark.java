package io.zmtp.benchmarks.latency;

import io.zmtp.benchmarks.Impl;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Workload 2: REQ -> REP round-trip latency over loopback tcp, 1-byte and 1 KiB requests echoed
 * back. {@code Mode.SampleTime} gives the distribution: read p0.50, p0.99 and p0.999 in
 * microseconds. libzmq's twin is {@code benchmarks/native/reqrep_latency.c}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
public class ReqRepLatencyBenchmark {
    @Param
    Impl impl;

    @Param({"1", "1024"})
    int size;

    private ReqRepRoundTrip roundTrip;

    @Setup(Level.Trial)
    public void setUp() {
        roundTrip = impl == Impl.zmtp ? new ZmtpReqRep(size) : new JeromqReqRep(size);
        for (int i = 0; i < 100; i++) {
            roundTrip.call(); // connected, every path taken once
        }
    }

    @Benchmark
    public void roundTrip() {
        roundTrip.call();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        roundTrip.close();
    }
}
