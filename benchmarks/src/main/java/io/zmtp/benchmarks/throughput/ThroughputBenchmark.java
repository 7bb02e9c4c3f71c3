package io.zmtp.benchmarks.throughput;

import io.zmtp.benchmarks.Impl;
import io.zmtp.socket.SocketOptions;
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
import org.zeromq.ZMQ;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Workload 3: PUB -> SUB and PUSH -> PULL throughput over loopback tcp, 10-byte, 100-byte and
 * 1 KiB messages. One operation is one message: each invocation sends {@value #BATCH} from the
 * benchmark thread and returns when the receiver has counted them all, so the score is messages
 * received per second. PUSH/PULL runs with default high-water marks; PUB/SUB with both marks at
 * {@value #PUBSUB_HWM} on both sides, for every implementation, so that a publisher faster than its
 * subscriber queues instead of dropping (a dropped message is not throughput). libzmq's twin is
 * {@code benchmarks/native/throughput.c}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
public class ThroughputBenchmark {
    /** Messages per invocation. */
    public static final int BATCH = 50_000;
    /** PUB/SUB high-water marks: more than one batch, so nothing is dropped. */
    public static final int PUBSUB_HWM = 2 * BATCH;

    @Param
    Impl impl;

    @Param({"pubsub", "pushpull"})
    String pattern;

    @Param({"10", "100", "1024"})
    int size;

    private MessageFlow flow;

    @Setup(Level.Trial)
    public void setUp() {
        boolean pubsub = pattern.equals("pubsub");
        if (!pubsub && !pattern.equals("pushpull")) {
            throw new IllegalArgumentException("pattern " + pattern);
        }
        if (impl == Impl.zmtp) {
            SocketOptions options = pubsub ? SocketOptions.builder().hwm(PUBSUB_HWM).build() : SocketOptions.DEFAULTS;
            flow = new ZmtpFlow(pubsub, size, options, options);
        } else {
            Consumer<ZMQ.Socket> options = pubsub ? s -> s.setHWM(PUBSUB_HWM) : s -> { };
            flow = new JeromqFlow(pubsub, size, options, options);
        }
        flow.sendBatch(1000); // every path taken once
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void messages() {
        flow.sendBatch(BATCH);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        flow.close();
    }
}
