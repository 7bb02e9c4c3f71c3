package io.zmtp.interop;

import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.majordomo.MajordomoBroker;
import io.zmtp.patterns.majordomo.MajordomoBrokerSettings;
import io.zmtp.patterns.majordomo.MajordomoClientSettings;
import io.zmtp.patterns.majordomo.MajordomoHandler;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.patterns.majordomo.MajordomoWorkerSettings;
import io.zmtp.patterns.titanic.sqlite.SqliteTitanicStore;
import io.zmtp.patterns.titanic.TitanicClient;
import io.zmtp.patterns.titanic.TitanicClientSettings;
import io.zmtp.patterns.titanic.TitanicException;
import io.zmtp.patterns.titanic.TitanicIds;
import io.zmtp.patterns.titanic.TitanicServer;
import io.zmtp.patterns.titanic.TitanicSettings;
import io.zmtp.patterns.titanic.TitanicStatus;
import io.zmtp.patterns.titanic.TitanicStore;
import io.zmtp.patterns.titanic.sqlite.TitanicStoreSettings;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Titanic (9/TSP) across implementations: the guide's client flow on libzmq
 * ({@code peers/tsp_client.py}) against our Titanic server, and our Titanic client against a
 * Titanic server on libzmq after the guide's design ({@code peers/tsp_server.py}), each through
 * our Majordomo broker and through the libzmq one ({@code peers/mdp_broker.py}).
 */
class TitanicInteropTest {
    static final long T = 30_000;
    static final Duration HEARTBEAT = Duration.ofMillis(100);

    enum Broker { OURS, LIBZMQ }

    ZmtpContext ctx;
    final List<AutoCloseable> opened = new ArrayList<>();
    @TempDir
    Path dir;

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        ctx.close(Duration.ofSeconds(5));
    }

    <C extends AutoCloseable> C open(C c) {
        opened.add(c);
        return c;
    }

    static <C extends LoopComponent> C started(C c) {
        try {
            c.start().toCompletableFuture().get(T, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("did not start: " + c, e);
        }
        return c;
    }

    String broker(Broker kind) {
        if (kind == Broker.OURS) {
            MajordomoBroker b = open(new MajordomoBroker(ctx, MajordomoBrokerSettings.builder()
                    .endpoints("tcp://127.0.0.1:0").heartbeatInterval(HEARTBEAT).heartbeatLiveness(5).build()));
            return started(b).endpoint();
        }
        MdpPeer b = open(MdpPeer.start("mdp_broker.py", "tcp://127.0.0.1:*", "--heartbeat", "100"));
        return b.await("^bound (tcp://\\S+)$", T).group(1);
    }

    MajordomoWorkerSettings workerSettings() {
        return MajordomoWorkerSettings.builder().heartbeatInterval(HEARTBEAT).heartbeatLiveness(5)
                .reconnectDelay(HEARTBEAT).socketOptions(SocketOptions.builder().linger(Duration.ZERO)
                        .reconnectInterval(Duration.ofMillis(20)).reconnectIntervalMax(Duration.ofMillis(100)).build())
                .build();
    }

    void ourEchoWorker(String endpoint) {
        MajordomoWorker w = open(new MajordomoWorker(ctx, endpoint, "echo", MajordomoHandler.echo(),
                workerSettings().toBuilder().executor(Runnable::run).build()));
        w.start();
    }

    @ParameterizedTest
    @EnumSource(Broker.class)
    void theGuidesClientFlowAgainstOurTitanic(Broker kind) {
        String endpoint = broker(kind);
        TitanicStore store = open(SqliteTitanicStore.open(TitanicStoreSettings.in(dir.resolve("store"))));
        open(started(new TitanicServer(ctx, store, TitanicSettings.builder().broker(endpoint)
                .workerSettings(workerSettings()).requestWorkers(2).replyWorkers(1).closeWorkers(1)
                .retryInterval(Duration.ofMillis(200)).build())));
        MdpPeer client = open(MdpPeer.start("tsp_client.py", endpoint, "--count", "3", "--timeout", "5000",
                "Hello", "world"));
        // the client has submitted before the echo service exists: it sees 300 until a worker comes
        client.await("^pending$", T);
        ourEchoWorker(endpoint);
        assertEquals(0, client.waitFor(T), client.lines().toString());
        assertEquals(3, client.count("^uuid [0-9a-f]{32}$"), client.lines().toString());
        assertEquals(3, client.count("^reply Hello\\|world$"), client.lines().toString());
        assertEquals(3, client.count("^closed$"), client.lines().toString());
        client.await("^done 3$", T);
        assertEquals(0L, store.size().join(), "every request closed");
    }

    @ParameterizedTest
    @EnumSource(Broker.class)
    void ourClientAgainstALibzmqTitanic(Broker kind) throws InterruptedException {
        String endpoint = broker(kind);
        MdpPeer titanic = open(MdpPeer.start("tsp_server.py", endpoint, dir.resolve("guide").toString(), "--heartbeat", "100"));
        titanic.await("^ready$", T);
        TitanicClient client = open(new TitanicClient(ctx, endpoint, TitanicClientSettings.builder()
                .majordomo(MajordomoClientSettings.builder().timeout(Duration.ofSeconds(5)).build())
                .pollDelay(Duration.ofMillis(50)).pollDelayMax(Duration.ofMillis(500))
                .retryDelay(Duration.ofMillis(200)).build()));
        client.start();
        // stored while the service has no worker: pending
        String uuid = client.submit("echo", "early");
        assertEquals(32, uuid.length());
        assertFalse(client.poll(uuid).isPresent());
        MdpPeer worker = open(MdpPeer.start("mdp_worker.py", endpoint, "0.1", "echo", "--heartbeat", "100"));
        worker.await("^ready$", T);
        long deadline = System.currentTimeMillis() + T;
        Frames reply;
        while (true) {
            var r = client.poll(uuid);
            if (r.isPresent()) {
                reply = r.get();
                break;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("no reply to " + uuid + "; titanic said " + titanic.lines());
            }
            Thread.sleep(20);
        }
        assertEquals(List.of("early"), strings(reply));
        client.close(uuid);
        TitanicException e = assertThrows(TitanicException.class, () -> client.poll(uuid));
        assertEquals(TitanicStatus.UNKNOWN, e.status());
        client.close(TitanicIds.newId()); // 200 for an unknown uuid
        for (int i = 0; i < 3; i++) {
            assertEquals(List.of("call", "" + i), strings(client.call("echo", Duration.ofMillis(T), "call", "" + i)));
        }
    }

    static List<String> strings(Frames frames) {
        return frames.toStrings();
    }
}
