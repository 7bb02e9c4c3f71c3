package io.zmtp.benchmarks.throughput;

import io.zmtp.benchmarks.latency.ZmtpReqRep;
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

import java.util.concurrent.TimeUnit;

/**
 * ws:// against tcp:// in one run: PUSH -> PULL throughput (100-byte messages, batches of
 * {@value ThroughputBenchmark#BATCH}, messages received per second) and REQ-REP round trips
 * (100 bytes, round trips per second), ours. libzmq's twins: {@code native/throughput} and
 * {@code native/reqrep_latency} with {@code --bind ws://127.0.0.1:*}{@code /b}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
public class TransportBenchmark {
    @Param({"tcp", "ws"})
    String transport;

    @Param({"100"})
    int size;

    private MessageFlow flow;
    private ZmtpReqRep reqRep;

    String endpoint() {
        return transport.equals("ws") ? "ws://127.0.0.1:0/bench" : "tcp://127.0.0.1:0";
    }

    @Setup(Level.Trial)
    public void setUp() {
        flow = new ZmtpFlow(false, size, SocketOptions.DEFAULTS, SocketOptions.DEFAULTS, endpoint());
        flow.sendBatch(1000);
        reqRep = new ZmtpReqRep(size, endpoint());
        reqRep.call();
    }

    @Benchmark
    @OperationsPerInvocation(ThroughputBenchmark.BATCH)
    public void pushPullMessages() {
        flow.sendBatch(ThroughputBenchmark.BATCH);
    }

    @Benchmark
    public void reqRepRoundTrips() {
        reqRep.call();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        flow.close();
        reqRep.close();
    }
}
