package io.zmtp.benchmarks.latency;

import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
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

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * What the garbage-collected byte-array form of {@link BlockingSocket} costs against the
 * reference-counted one: the same REQ -> REP round trip over loopback tcp as
 * {@link ReqRepLatencyBenchmark} (REP echoes on its event loop), the REQ client on the benchmark
 * thread sending and receiving either
 * <ul>
 *   <li>{@code message}: {@code send(ZmtpMessage.of(payload))} (wraps the array, no copy),
 *       {@code receive()} and {@code release()} (zero copy), or</li>
 *   <li>{@code frames}: {@code send(byte[])} (one copy into a pooled buffer) and {@code recv()}
 *       (one copy into a new array), nothing to release.</li>
 * </ul>
 * Score: round trips per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
public class MessageFormBenchmark {
    private static final Duration WAIT = Duration.ofSeconds(30);

    public enum Form { message, frames }

    @Param
    Form form;

    @Param({"16", "1024", "65536"})
    int size;

    private ZmtpContext ctx;
    private BlockingSocket req;
    private byte[] payload;

    @Setup(Level.Trial)
    public void setUp() {
        payload = new byte[size];
        Arrays.fill(payload, (byte) 'R');
        ctx = ZmtpContext.create();
        ZmtpSocket rep = ctx.socket(SocketType.REP);
        rep.onMessage(request -> {
            if (!rep.trySend(request)) {
                request.release();
            }
        });
        String endpoint = rep.bind("tcp://127.0.0.1:0").syncUninterruptibly().getNow();
        req = ctx.blocking(SocketType.REQ);
        req.connect(endpoint);
        for (int i = 0; i < 100; i++) {
            roundTrip();
        }
    }

    @Benchmark
    public int roundTrip() {
        if (form == Form.frames) {
            req.send(payload);
            byte[] reply = req.recv(WAIT);
            if (reply == null) {
                throw new IllegalStateException("no reply within " + WAIT);
            }
            return reply.length;
        }
        req.send(ZmtpMessage.of(payload));
        ZmtpMessage reply = req.receive(WAIT);
        if (reply == null) {
            throw new IllegalStateException("no reply within " + WAIT);
        }
        int n = (int) reply.byteSize();
        reply.release();
        return n;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ctx.close(Duration.ofSeconds(5));
    }
}
