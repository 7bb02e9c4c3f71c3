package io.zmtp.benchmarks.freelance;

import io.zmtp.benchmarks.latency.ReqRepRoundTrip;
import io.zmtp.benchmarks.latency.ZmtpReqRep;
import io.zmtp.patterns.freelance.FreelanceClient;
import io.zmtp.patterns.freelance.FreelanceServer;
import io.zmtp.socket.ZmtpContext;
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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Freelance model 3 round trip (the blocking {@link FreelanceClient#request} facade, one request
 * at a time, to model 3 servers over loopback tcp; with 1 and with 3 servers), next to our REQ/REP
 * round trip ({@code reqrep}: a REQ blocking socket and a REP reactor, as
 * {@code ReqRepLatencyBenchmark}) in the same run. 11-byte requests ("random name", the guide's).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar FreelanceBenchmark -wi 2 -w 1 -i 3 -r 1    # short
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
public class FreelanceBenchmark {
    private static final byte[] BODY = "random name".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** {@code reqrep}: REQ/REP; {@code model3-1}, {@code model3-3}: Freelance model 3 with 1 or 3 servers. */
    @Param({"reqrep", "model3-1", "model3-3"})
    public String variant;

    private ReqRepRoundTrip reqRep;
    private ZmtpContext ctx;
    private final List<FreelanceServer> servers = new ArrayList<>();
    private FreelanceClient client;

    @Setup(Level.Trial)
    public void setUp() {
        if (variant.equals("reqrep")) {
            reqRep = new ZmtpReqRep(BODY.length);
        } else {
            int n = Integer.parseInt(variant.substring("model3-".length()));
            ctx = ZmtpContext.create();
            List<String> eps = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String ep = freeEndpoint();
                FreelanceServer s = new FreelanceServer(ctx, FreelanceServer.Settings.builder().model(3)
                        .endpoint(ep).build());
                s.start().toCompletableFuture().join();
                servers.add(s);
                eps.add(ep);
            }
            client = new FreelanceClient(ctx, FreelanceClient.Settings.builder().endpoints(eps)
                    .globalTimeout(Duration.ofSeconds(30)).build());
            client.start().toCompletableFuture().join();
        }
        for (int i = 0; i < 100; i++) {
            roundTrip(); // connected, servers alive, every path taken once
        }
    }

    @Benchmark
    public long roundTrip() {
        if (reqRep != null) {
            reqRep.call();
            return 1;
        }
        ZmtpMessage reply = client.request(ZmtpMessage.of(BODY));
        long size = reply.byteSize();
        reply.release();
        if (size != 2) {
            throw new IllegalStateException("reply of " + size + " bytes, not OK");
        }
        return size;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (reqRep != null) {
            reqRep.close();
            return;
        }
        client.close();
        for (FreelanceServer s : servers) {
            s.close();
        }
        ctx.close(Duration.ofSeconds(5));
    }

    private static String freeEndpoint() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return "tcp://127.0.0.1:" + s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
