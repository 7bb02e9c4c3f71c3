package io.zmtp.benchmarks.throughput;

import io.zmtp.benchmarks.Impl;
import io.zmtp.security.Authenticator;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
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

/**
 * Workload 3 with CURVE: PUSH -> PULL throughput of 100-byte and 1 KiB messages over loopback
 * tcp, every frame encrypted and authenticated. The PUSH binds and is the CURVE server (accepting any
 * client key), the PULL connects as a CURVE client; default high-water marks. One operation is
 * one message received, as in {@link ThroughputBenchmark}. libzmq's twin is
 * {@code benchmarks/native/throughput.c --curve}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
public class CurveThroughputBenchmark {
    /** Messages per invocation (CURVE is slower: a smaller batch keeps iterations short). */
    public static final int BATCH = 10_000;

    @Param
    Impl impl;

    /** Message bytes: 100 (where the box's fixed cost shows most), 1 KiB (where the cipher's speed per byte does). */
    @Param({"100", "1024"})
    int size;

    private MessageFlow flow;

    @Setup(Level.Trial)
    public void setUp() {
        if (impl == Impl.zmtp) {
            CurveKeyPair server = CurveKeyPair.generate();
            CurveKeyPair client = CurveKeyPair.generate();
            flow = new ZmtpFlow(false, size,
                    SocketOptions.builder().mechanism(CurveMechanism.server(server, Authenticator.allowAll())).build(),
                    SocketOptions.builder().mechanism(CurveMechanism.client(server.publicKey(), client)).build());
        } else {
            ZMQ.Curve.KeyPair server = ZMQ.Curve.generateKeyPair();
            ZMQ.Curve.KeyPair client = ZMQ.Curve.generateKeyPair();
            flow = new JeromqFlow(false, size, s -> {
                s.setCurveServer(true);
                s.setCurveSecretKey(ZMQ.Curve.z85Decode(server.secretKey));
            }, s -> {
                s.setCurveServerKey(ZMQ.Curve.z85Decode(server.publicKey));
                s.setCurvePublicKey(ZMQ.Curve.z85Decode(client.publicKey));
                s.setCurveSecretKey(ZMQ.Curve.z85Decode(client.secretKey));
            });
        }
        flow.sendBatch(1000);
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
