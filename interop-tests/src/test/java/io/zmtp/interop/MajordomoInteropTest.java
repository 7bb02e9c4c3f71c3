package io.zmtp.interop;

import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.majordomo.MajordomoAsyncClient;
import io.zmtp.patterns.majordomo.MajordomoBroker;
import io.zmtp.patterns.majordomo.MajordomoBrokerSettings;
import io.zmtp.patterns.majordomo.MajordomoClient;
import io.zmtp.patterns.majordomo.MajordomoClientSettings;
import io.zmtp.patterns.majordomo.MajordomoEvent;
import io.zmtp.patterns.majordomo.MajordomoHandler;
import io.zmtp.patterns.majordomo.MajordomoReply;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.patterns.majordomo.MajordomoWorkerSettings;
import io.zmtp.patterns.majordomo.MdpVersion;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Majordomo across implementations: MDP/0.1 and MDP/0.2 clients and workers written with real
 * libzmq (python3-zmq, {@code peers/mdp_*.py}) against our broker, and our clients and workers
 * against a libzmq broker.
 */
class MajordomoInteropTest {
    static final long T = 15_000;
    static final Duration HEARTBEAT = Duration.ofMillis(100);

    ZmtpContext ctx;
    final List<AutoCloseable> opened = new ArrayList<>();
    final List<MajordomoEvent> brokerEvents = new CopyOnWriteArrayList<>();

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

    static String label(MdpVersion v) {
        return v.label();
    }

    /** Our broker, on an ephemeral port; not started yet. */
    MajordomoBroker ourBroker(MajordomoBrokerSettings.Builder b) {
        return open(new MajordomoBroker(ctx, b.endpoints("tcp://127.0.0.1:0").heartbeatInterval(HEARTBEAT)
                .heartbeatLiveness(5).listener(brokerEvents::add).build()));
    }

    /** Starts our broker (it binds); returns the endpoint bound. */
    String bind(MajordomoBroker broker) {
        return started(broker).endpoint();
    }

    /** Starts a component and waits for its start (bound or connecting). */
    static <C extends LoopComponent> C started(C c) {
        try {
            c.start().toCompletableFuture().get(T, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("did not start: " + c, e);
        }
        return c;
    }

    void awaitWorkers(MajordomoBroker broker, String service, int n) {
        long deadline = System.currentTimeMillis() + T;
        while (broker.workerCount(service) < n) {
            assertTrue(System.currentTimeMillis() < deadline, "no " + n + " worker(s) for " + service);
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    MdpPeer libzmqWorker(String endpoint, MdpVersion v, String service, String... extra) {
        List<String> args = new ArrayList<>(List.of(endpoint, label(v), service, "--heartbeat", "100"));
        args.addAll(List.of(extra));
        return open(MdpPeer.start("mdp_worker.py", args.toArray(new String[0])));
    }

    MdpPeer libzmqClient(String endpoint, MdpVersion v, String service, int count, String... body) {
        List<String> args = new ArrayList<>(List.of(endpoint, label(v), service, String.valueOf(count)));
        args.addAll(List.of(body));
        return open(MdpPeer.start("mdp_client.py", args.toArray(new String[0])));
    }

    // ------------------------------------------------------------------ libzmq peers, our broker

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void libzmqClientAndWorkerThroughOurBroker(MdpVersion v) {
        MajordomoBroker broker = ourBroker(MajordomoBrokerSettings.builder());
        String endpoint = bind(broker);
        libzmqWorker(endpoint, v, "echo");
        awaitWorkers(broker, "echo", 1);
        MdpPeer client = libzmqClient(endpoint, v, "echo", 5, "hello", "world");
        assertEquals(0, client.waitFor(T), client.lines().toString());
        assertEquals(5, client.count("^final hello\\|world$"), client.lines().toString());
        client.await("^done 5$", T);
    }

    @Test
    void libzmqV02WorkerStreamsPartialsToALibzmqV02ClientThroughOurBroker() {
        MajordomoBroker broker = ourBroker(MajordomoBrokerSettings.builder());
        String endpoint = bind(broker);
        libzmqWorker(endpoint, MdpVersion.V0_2, "stream", "--partials", "3");
        awaitWorkers(broker, "stream", 1);
        MdpPeer client = libzmqClient(endpoint, MdpVersion.V0_2, "stream", 1, "s");
        assertEquals(0, client.waitFor(T), client.lines().toString());
        assertEquals(List.of("partial s", "partial s", "partial s", "final s", "done 1"), client.lines());
    }

    @Test
    void aLibzmqV01ClientOfAStreamingLibzmqV02WorkerGetsOneJoinedReply() {
        MajordomoBroker broker = ourBroker(MajordomoBrokerSettings.builder());
        String endpoint = bind(broker);
        libzmqWorker(endpoint, MdpVersion.V0_2, "stream", "--partials", "2");
        awaitWorkers(broker, "stream", 1);
        MdpPeer client = libzmqClient(endpoint, MdpVersion.V0_1, "stream", 2, "a", "b");
        assertEquals(0, client.waitFor(T), client.lines().toString());
        assertEquals(List.of("final a|b|a|b|a|b", "final a|b|a|b|a|b", "done 2"), client.lines());
    }

    @Test
    void libzmqClientsAskOurBrokersMmi() {
        MajordomoBroker broker = ourBroker(MajordomoBrokerSettings.builder());
        String endpoint = bind(broker);
        libzmqWorker(endpoint, MdpVersion.V0_1, "echo");
        awaitWorkers(broker, "echo", 1);
        MdpPeer found = libzmqClient(endpoint, MdpVersion.V0_1, "mmi.service", 1, "echo");
        MdpPeer missing = libzmqClient(endpoint, MdpVersion.V0_2, "mmi.service", 1, "nobody");
        MdpPeer other = libzmqClient(endpoint, MdpVersion.V0_2, "mmi.other", 1, "echo");
        assertEquals(0, found.waitFor(T));
        assertEquals(0, missing.waitFor(T));
        assertEquals(0, other.waitFor(T));
        assertEquals("final 200", found.lines().get(0));
        assertEquals("final 404", missing.lines().get(0));
        assertEquals("final 501", other.lines().get(0));
    }

    @Test
    void ourClientsWithLibzmqWorkersOfTheOtherVersion() throws Exception {
        MajordomoBroker broker = ourBroker(MajordomoBrokerSettings.builder());
        String endpoint = bind(broker);
        libzmqWorker(endpoint, MdpVersion.V0_1, "old");
        libzmqWorker(endpoint, MdpVersion.V0_2, "new", "--partials", "1");
        awaitWorkers(broker, "old", 1);
        awaitWorkers(broker, "new", 1);
        MajordomoClient c2 = open(started(new MajordomoClient(ctx, endpoint,
                MajordomoClientSettings.builder().version(MdpVersion.V0_2).build())));
        assertEquals(List.of("x"), c2.request("old", "x").bodyStrings());
        MajordomoAsyncClient a1 = open(started(new MajordomoAsyncClient(ctx, endpoint,
                MajordomoClientSettings.builder().version(MdpVersion.V0_1).build())));
        assertEquals(List.of("y", "y"), a1.request("new", "y").get(T, TimeUnit.MILLISECONDS).bodyStrings(),
                "one partial and the final, joined for a 0.1 client");
    }

    @Test
    void libzmqWorkersHeartbeatWithOurBrokerAndExpireWhenKilled() {
        AtomicInteger heartbeats = new AtomicInteger();
        MajordomoBroker broker = ourBroker(MajordomoBrokerSettings.builder().tracer((what, m) -> {
            // worker-id | MDPW02 | 05
            if (what.startsWith("I: received") && m.size() == 3 && m.frame(2).readableBytes() == 1
                    && m.frame(2).getByte(m.frame(2).readerIndex()) == 5) {
                heartbeats.incrementAndGet();
            }
        }));
        String endpoint = bind(broker);
        MdpPeer worker = libzmqWorker(endpoint, MdpVersion.V0_2, "echo");
        awaitWorkers(broker, "echo", 1);
        long deadline = System.currentTimeMillis() + T;
        while (heartbeats.get() < 15) {
            assertTrue(System.currentTimeMillis() < deadline, "heartbeats from the libzmq worker");
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
        assertEquals(1, broker.workerCount("echo"), "15 heartbeat intervals later the worker is still registered");
        assertEquals(0, worker.count("broker lost"), "and the worker still hears from our broker");
        worker.kill();
        // Its connection closes with the process: forgotten at once (WORKER_LEFT), or at the latest
        // by heartbeat expiry (WORKER_EXPIRED) if the close went unnoticed.
        while (brokerEvents.stream().noneMatch(e -> e.type() == MajordomoEvent.Type.WORKER_EXPIRED
                || e.type() == MajordomoEvent.Type.WORKER_LEFT)) {
            assertTrue(System.currentTimeMillis() < deadline + T, "the killed worker is forgotten");
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
        assertEquals(0, broker.workerCount("echo"));
    }

    // ------------------------------------------------------------------ our peers, libzmq broker

    String libzmqBroker(String bind) {
        MdpPeer broker = open(MdpPeer.start("mdp_broker.py", bind, "--heartbeat", "100"));
        return broker.await("^bound (tcp://\\S+)$", T).group(1);
    }

    MajordomoWorker ourWorker(String endpoint, MdpVersion v, String service, MajordomoHandler h) {
        MajordomoWorker w = open(new MajordomoWorker(ctx, endpoint, service, h, MajordomoWorkerSettings.builder().version(v)
                .heartbeatInterval(HEARTBEAT).heartbeatLiveness(5).reconnectDelay(HEARTBEAT)
                .socketOptions(SocketOptions.builder().linger(Duration.ZERO).reconnectInterval(Duration.ofMillis(20))
                        .reconnectIntervalMax(Duration.ofMillis(100)).build())
                .build()));
        w.start();
        return w;
    }

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void ourClientsAndWorkersThroughALibzmqBroker(MdpVersion v) throws Exception {
        String endpoint = libzmqBroker("tcp://127.0.0.1:*");
        ourWorker(endpoint, v, "echo", MajordomoHandler.echo());
        ourWorker(endpoint, v, "count", (req, replies) -> {
            replies.partial("one");
            replies.partial("two");
            replies.finish("three");
        });
        MajordomoClientSettings settings = MajordomoClientSettings.builder().version(v)
                .timeout(Duration.ofSeconds(5)).build();
        MajordomoClient client = open(started(new MajordomoClient(ctx, endpoint, settings)));
        for (int i = 0; i < 10; i++) {
            assertEquals(List.of("ping", "" + i), client.request("echo", "ping", "" + i).bodyStrings());
        }
        MajordomoAsyncClient async = open(started(new MajordomoAsyncClient(ctx, endpoint, settings)));
        List<CompletableFuture<MajordomoReply>> fs = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            fs.add(async.request("echo", "a" + i));
        }
        for (int i = 0; i < 100; i++) {
            assertEquals(List.of("a" + i), fs.get(i).get(T, TimeUnit.MILLISECONDS).bodyStrings());
        }
        List<String> partials = new CopyOnWriteArrayList<>();
        MajordomoReply fin = async.request("count", r -> partials.add(r.bodyStrings().get(0)),
                Frames.ofStrings("go")).get(T, TimeUnit.MILLISECONDS);
        if (v == MdpVersion.V0_2) {
            assertEquals(List.of("one", "two"), partials);
            assertEquals(List.of("three"), fin.bodyStrings());
        } else {
            assertEquals(List.of(), partials);
            assertEquals(List.of("one", "two", "three"), fin.bodyStrings(), "our 0.1 worker joins its stream");
        }
        assertEquals(List.of("200"), client.request("mmi.service", "echo").bodyStrings());
    }

    @Test
    void ourWorkerRegistersAgainWhenTheLibzmqBrokerRestarts() {
        String endpoint = libzmqBroker("tcp://127.0.0.1:*");
        MdpPeer first = (MdpPeer) opened.get(opened.size() - 1);
        ourWorker(endpoint, MdpVersion.V0_1, "echo", MajordomoHandler.echo());
        first.await("^worker 0.1 echo$", T);
        first.kill();
        MdpPeer second = open(MdpPeer.start("mdp_broker.py", endpoint, "--heartbeat", "100"));
        second.await("^bound", T);
        second.await("^worker 0.1 echo$", T);
        MajordomoClient client = open(started(new MajordomoClient(ctx, endpoint,
                MajordomoClientSettings.builder().timeout(Duration.ofSeconds(5)).build())));
        assertEquals(List.of("again"), client.request("echo", "again").bodyStrings());
    }
}
