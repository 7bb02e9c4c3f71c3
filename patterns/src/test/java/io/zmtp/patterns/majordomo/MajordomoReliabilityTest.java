package io.zmtp.patterns.majordomo;

import static io.zmtp.patterns.majordomo.MdpTesting.started;

import io.zmtp.patterns.majordomo.MdpTesting.Events;
import io.zmtp.patterns.kit.ManualClock;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.zmtp.patterns.majordomo.MdpTesting.T;
import static io.zmtp.patterns.majordomo.MdpTesting.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Failures with real brokers, workers and clients on real heartbeats: a worker crashing
 * mid-request, a broker crashing or restarting, each side noticing the other gone. A "crash" is
 * a component's whole context shut down at once: its sockets close with nothing said, so it is
 * noticed by the closed connection, at once. Heartbeats go every 100 ms, but a peer counts as
 * gone only after 2 s of silence: a busy machine that stalls a loop for a while must not expire a
 * live worker or broker (expiry itself, to the interval, is {@link MajordomoClockTest}'s).
 */
class MajordomoReliabilityTest {
    static final Duration BEAT = Duration.ofMillis(100);
    /** Heartbeat intervals of silence before a peer counts as gone: 2 s at {@link #BEAT}. */
    static final int LIVENESS = 20;

    ZmtpContext brokerCtx;
    ZmtpContext workerCtx;
    ZmtpContext clientCtx;
    MajordomoBroker broker;
    Events brokerEvents;
    String endpoint;
    Duration beat = BEAT;
    final List<AutoCloseable> opened = new ArrayList<>();
    final List<ZmtpContext> contexts = new ArrayList<>();

    @BeforeEach
    void start() {
        workerCtx = context();
        clientCtx = context();
        brokerCtx = context();
        startBroker("tcp://127.0.0.1:0");
    }

    ZmtpContext context() {
        ZmtpContext c = ZmtpContext.create(1);
        contexts.add(c);
        return c;
    }

    void startBroker(String bind) {
        brokerEvents = new Events();
        broker = started(new MajordomoBroker(brokerCtx, MajordomoBrokerSettings.builder().heartbeatInterval(beat)
                .heartbeatLiveness(LIVENESS).listener(brokerEvents).endpoints(bind).build()));
        endpoint = broker.endpoint();
    }

    /** The broker's process dies: its sockets close, no DISCONNECT is sent. */
    void crashBroker() {
        brokerCtx.close(Duration.ZERO);
        brokerCtx = context();
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        broker.close();
        for (ZmtpContext c : contexts) {
            c.close(Duration.ofSeconds(5));
        }
    }

    MajordomoWorker worker(ZmtpContext ctx, MdpVersion v, String service, MajordomoHandler h, Events events) {
        MajordomoWorker w = new MajordomoWorker(ctx, endpoint, service, h, MajordomoWorkerSettings.builder()
                .version(v).heartbeatInterval(beat).heartbeatLiveness(LIVENESS).reconnectDelay(BEAT)
                .socketOptions(MdpTesting.FAST_RECONNECT).listener(events).build());
        opened.add(w);
        w.start();
        return w;
    }

    MajordomoClientSettings.Builder clientSettings(MdpVersion v) {
        return MajordomoClientSettings.builder().version(v).socketOptions(MdpTesting.FAST_RECONNECT);
    }

    void awaitWorkers(String service, int n) {
        eventually(n + " workers for " + service, () -> broker.workerCount(service) == n);
    }

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void aWorkerCrashingMidRequestIsReplacedByAnotherOnTheClientsRetry(MdpVersion v) {
        ZmtpContext doomedCtx = context();
        CountDownLatch stuck = new CountDownLatch(1);
        CountDownLatch received = new CountDownLatch(1);
        worker(doomedCtx, v, "echo", (req, replies) -> {
            received.countDown();
            stuck.await();
        }, new Events());
        awaitWorkers("echo", 1);
        worker(workerCtx, v, "echo", MajordomoHandler.replying(req -> Frames.ofStrings("from the survivor")),
                new Events());
        awaitWorkers("echo", 2);
        // The client's try times out when the test moves its clock: once, after the crash.
        ManualClock clock = new ManualClock();
        Duration timeout = Duration.ofMillis(300);
        MajordomoClient client = started(new MajordomoClient(clientCtx, endpoint,
                clientSettings(v).clock(clock).timeout(timeout).retries(3).build()));
        opened.add(client);
        CompletableFuture<MajordomoReply> reply = CompletableFuture.supplyAsync(() -> client.request("echo", "hi"));
        try {
            assertTrue(received.await(T.toMillis(), TimeUnit.MILLISECONDS), "the first worker got the request");
            doomedCtx.close(Duration.ZERO);
            clock.advance(timeout); // no reply from the crashed worker: the retry goes to the survivor
            assertEquals(List.of("from the survivor"), reply.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
            // Its connection closed: forgotten at once (the ROUTER's DISCONNECTED), not after the expiry.
            assertEquals("connection closed", brokerEvents.await(MajordomoEvent.Type.WORKER_LEFT).detail());
            assertEquals(1, broker.workerCount("echo"));
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            stuck.countDown();
        }
    }

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void afterABrokerCrashWorkersRegisterAgainAndTheAsyncClientResends(MdpVersion v) throws Exception {
        AtomicBoolean hold = new AtomicBoolean(true);
        CountDownLatch busy = new CountDownLatch(1);
        Events workerEvents = new Events();
        worker(workerCtx, v, "slow", (req, replies) -> {
            if (hold.get()) {
                busy.countDown();
                while (hold.get()) {
                    Thread.sleep(5);
                }
            }
            replies.finish(req);
        }, workerEvents);
        awaitWorkers("slow", 1);
        MajordomoAsyncClient client = started(new MajordomoAsyncClient(clientCtx, endpoint,
                clientSettings(v).timeout(Duration.ofSeconds(2)).retries(3).build()));
        opened.add(client);
        List<CompletableFuture<MajordomoReply>> replies = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            replies.add(client.request("slow", "r" + i));
        }
        assertTrue(busy.await(T.toMillis(), TimeUnit.MILLISECONDS));
        eventually("four requests queued at the broker", () -> broker.queuedRequests("slow") == 4);
        String bound = endpoint;
        crashBroker();
        startBroker(bound);
        brokerEvents.await(MajordomoEvent.Type.WORKER_READY);
        hold.set(false);
        for (int i = 0; i < 5; i++) {
            assertEquals(List.of("r" + i), replies.get(i).get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings(),
                    "one worker: replies in order, each to its own request");
        }
        assertTrue(workerEvents.has(MajordomoEvent.Type.BROKER_LOST)
                || workerEvents.has(MajordomoEvent.Type.DISCONNECT_RECEIVED), workerEvents.seen.toString());
        assertEquals(0, client.outstanding());
    }

    @Test
    void aBrokerThatClosesDisconnectsItsWorkersWhoRegisterWithTheNextOne() throws Exception {
        Events workerEvents = new Events();
        worker(workerCtx, MdpVersion.V0_2, "echo", MajordomoHandler.echo(), workerEvents);
        worker(workerCtx, MdpVersion.V0_1, "echo", MajordomoHandler.echo(), workerEvents);
        awaitWorkers("echo", 2);
        String bound = endpoint;
        broker.close();
        workerEvents.awaitCount(MajordomoEvent.Type.DISCONNECT_RECEIVED, 2);
        startBroker(bound);
        awaitWorkers("echo", 2);
        MajordomoClient client = started(new MajordomoClient(clientCtx, endpoint, clientSettings(MdpVersion.V0_1).build()));
        opened.add(client);
        assertEquals(List.of("back"), client.request("echo", "back").bodyStrings());
    }

    @Test
    void aWorkerNoticesItsBrokerIsGoneAndTheBrokerNoticesAGoneWorker() {
        Events workerEvents = new Events();
        worker(workerCtx, MdpVersion.V0_2, "echo", MajordomoHandler.echo(), workerEvents);
        awaitWorkers("echo", 1);
        // broker -> worker: the connection drops
        String bound = endpoint;
        crashBroker();
        workerEvents.await(MajordomoEvent.Type.BROKER_LOST);
        startBroker(bound);
        awaitWorkers("echo", 1);
        // worker -> broker: a worker whose connection closes is forgotten at once
        ZmtpContext doomed = context();
        worker(doomed, MdpVersion.V0_1, "other", MajordomoHandler.echo(), new Events());
        awaitWorkers("other", 1);
        doomed.close(Duration.ZERO);
        MajordomoEvent e = brokerEvents.await(MajordomoEvent.Type.WORKER_LEFT);
        assertEquals("connection closed", e.detail());
        assertEquals("other", e.service());
        assertEquals(1, broker.workerCount("echo"), "the live worker stays registered");
    }

    @Test
    void manyWorkersAndClientsOfBothVersionsAtOnce() throws Exception {
        // a load test, not a heartbeat test: heartbeats slow enough for a busy two-core machine
        broker.close();
        beat = Duration.ofMillis(500);
        startBroker("tcp://127.0.0.1:0");
        for (int i = 0; i < 20; i++) {
            MdpVersion v = i % 2 == 0 ? MdpVersion.V0_1 : MdpVersion.V0_2;
            worker(workerCtx, v, "svc" + (i % 4), MajordomoHandler.echo(), new Events());
        }
        for (int s = 0; s < 4; s++) {
            awaitWorkers("svc" + s, 5);
        }
        List<CompletableFuture<MajordomoReply>> all = new ArrayList<>();
        for (int c = 0; c < 10; c++) {
            MajordomoAsyncClient client = started(new MajordomoAsyncClient(clientCtx, endpoint,
                    clientSettings(c % 2 == 0 ? MdpVersion.V0_1 : MdpVersion.V0_2).build()));
            opened.add(client);
            for (int r = 0; r < 100; r++) {
                all.add(client.request("svc" + (r % 4), ("c" + c + "r" + r).getBytes(StandardCharsets.UTF_8)));
            }
        }
        for (CompletableFuture<MajordomoReply> f : all) {
            assertEquals(1, f.get(T.toMillis(), TimeUnit.MILLISECONDS).body().size());
        }
        assertEquals(20, broker.workerCount());
    }
}
