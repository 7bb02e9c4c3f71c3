package io.zmtp.benchmarks.throughput;

import io.zmtp.benchmarks.Impl;
import io.zmtp.socket.SocketOptions;
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

import java.util.concurrent.TimeUnit;

/**
 * RADIO -> DISH throughput of {@value #SIZE}-byte messages, all to one group the DISH joined
 * (issue #45). {@link #tcp}: ours against JeroMQ 0.6.0's, as {@link ThroughputBenchmark}'s
 * PUB/SUB (each invocation sends {@value ThroughputBenchmark#BATCH} and returns when the DISH has
 * them all; both high-water marks at {@value ThroughputBenchmark#PUBSUB_HWM} on both sides, since
 * a RADIO, as a PUB, drops at its mark). {@link #udp}: ours only (JeroMQ has no udp://), in
 * windows of {@value #WINDOW} datagrams, each waited for at most {@value #WINDOW_WAIT_MS} ms: a
 * window fits the loopback socket buffers, so little is dropped, and whatever is, is counted.
 * Its primary score is datagrams sent per second; its secondary results {@code received} (what
 * the DISH counted, late arrivals included) and {@code missing} (not arrived within the wait),
 * per second; the comparison reads {@code received}. libzmq has no twin here: Debian's libzmq is
 * built without its draft types.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
public class RadioDishBenchmark {
    public static final int SIZE = 100;
    /** Datagrams per udp window. */
    public static final int WINDOW = 100;
    /** How long a udp window is waited for before what is missing is given up on. */
    public static final long WINDOW_WAIT_MS = 100;

    /** RADIO -> DISH over tcp, ours or JeroMQ's. */
    @State(Scope.Thread)
    public static class Tcp {
        @Param
        Impl impl;

        MessageFlow flow;

        @Setup(Level.Trial)
        public void setUp() {
            int hwm = ThroughputBenchmark.PUBSUB_HWM;
            flow = impl == Impl.zmtp
                    ? new ZmtpRadioDishFlow(SIZE, SocketOptions.builder().hwm(hwm).build(), "tcp://127.0.0.1:0")
                    : new JeromqRadioDishFlow(SIZE, hwm);
            flow.sendBatch(1000); // every path taken once
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            flow.close();
        }
    }

    /** RADIO -> DISH over udp://, ours. */
    @State(Scope.Thread)
    public static class Udp {
        MessageFlow flow;

        @Setup(Level.Trial)
        public void setUp() {
            flow = new ZmtpRadioDishFlow(SIZE, SocketOptions.DEFAULTS, "udp://127.0.0.1:0");
            flow.sendWindow(WINDOW, TimeUnit.SECONDS.toNanos(1)); // every path taken once
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            flow.close();
        }
    }

    /** The udp run's secondary results, per second: datagrams counted by the DISH, and given up on. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Arrivals {
        public long received;
        public long missing;

        @Setup(Level.Iteration)
        public void clear() {
            received = 0;
            missing = 0;
        }
    }

    @Benchmark
    @OperationsPerInvocation(ThroughputBenchmark.BATCH)
    public void tcp(Tcp s) {
        s.flow.sendBatch(ThroughputBenchmark.BATCH);
    }

    @Benchmark
    @OperationsPerInvocation(WINDOW)
    public void udp(Udp s, Arrivals arrivals) {
        long before = s.flow.received();
        arrivals.missing += s.flow.sendWindow(WINDOW, TimeUnit.MILLISECONDS.toNanos(WINDOW_WAIT_MS));
        arrivals.received += s.flow.received() - before;
    }
}
