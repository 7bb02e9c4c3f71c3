package io.zmtp.benchmarks.tripping;

import io.zmtp.patterns.tripping.TrippingBroker;
import io.zmtp.patterns.tripping.TrippingClient;
import io.zmtp.patterns.tripping.TrippingWorker;
import io.zmtp.socket.ZmtpContext;
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

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Workload 1 with our reactor client: the same topology, message and counts as
 * {@link TrippingBenchmark}, but the client is a socket handler on an event loop (each reply
 * sends the next request; or all requests sent, replies counted) instead of a user thread. This
 * is how the library's own patterns are written. JeroMQ and libzmq have no such client, so this
 * benchmark has no twin; its rows are compared with their blocking clients.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
public class TrippingReactorBenchmark {
    /** Synchronous calls per operation (one reply triggers the next request). */
    public static final int SYNC_CALLS = 100;

    @Param({"tcp", "inproc"})
    String transport;

    private ZmtpContext ctx;
    private TrippingBroker broker;
    private TrippingWorker worker;
    private TrippingClient client;

    @Setup(Level.Trial)
    public void setUp() {
        ctx = ZmtpContext.create();
        broker = new TrippingBroker(ctx);
        String[] bound = transport.equals("tcp")
                ? broker.bind("tcp://127.0.0.1:0", "tcp://127.0.0.1:0")
                : broker.bind("inproc://reactor-frontend", "inproc://reactor-backend");
        worker = new TrippingWorker(ctx, bound[1]);
        client = new TrippingClient(ctx, bound[0]);
        client.synchronousReactor(100);
    }

    @Benchmark
    @OperationsPerInvocation(SYNC_CALLS)
    public void synchronous() {
        client.synchronousReactor(SYNC_CALLS);
    }

    @Benchmark
    @OperationsPerInvocation(TrippingBenchmark.ASYNC_CALLS)
    public void asynchronous() {
        client.asynchronousReactor(TrippingBenchmark.ASYNC_CALLS);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        client.close();
        worker.close();
        broker.close();
        ctx.close(Duration.ofSeconds(5));
    }
}
