package io.zmtp.benchmarks.pipeline;

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
 * Workload 4: DEALER -> ROUTER pipelined request/reply throughput over loopback tcp, 100-byte
 * requests echoed back, {@value #WINDOW} requests always in flight: the window is filled at setup,
 * and each operation receives one reply and sends one new request, so the score is requests
 * completed per second with the pipeline never draining. libzmq's twin is
 * {@code benchmarks/native/pipelined.c}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
public class PipelinedRequestBenchmark {
    /** Requests in flight. */
    public static final int WINDOW = 1000;
    public static final int SIZE = 100;

    @Param
    Impl impl;

    private RequestPipeline pipeline;

    @Setup(Level.Trial)
    public void setUp() {
        pipeline = impl == Impl.zmtp ? new ZmtpPipeline(SIZE) : new JeromqPipeline(SIZE);
        for (int i = 0; i < WINDOW; i++) {
            pipeline.send();
        }
    }

    @Benchmark
    public void request() {
        pipeline.receive();
        pipeline.send();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        for (int i = 0; i < WINDOW; i++) {
            pipeline.receive(); // every request answered: nothing left in flight at close
        }
        pipeline.close();
    }
}
