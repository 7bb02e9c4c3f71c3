package io.zmtp.patterns.paranoidpirate;

import io.netty.buffer.Unpooled;
import io.zmtp.patterns.FailureSimulation;
import io.zmtp.patterns.Futures;
import io.zmtp.patterns.PatternTesting.Recorder;
import io.zmtp.patterns.RequestHandler;
import io.zmtp.patterns.lazypirate.LazyPirateClient;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.zmtp.patterns.PatternTesting.T;
import static io.zmtp.patterns.PatternTesting.eventually;
import static io.zmtp.patterns.PatternTesting.get;
import static io.zmtp.patterns.PatternTesting.port;
import static io.zmtp.patterns.PatternTesting.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Paranoid Pirate on real tcp connections, with heartbeats of tens of milliseconds: liveness both
 * ways, a frozen worker expired, a killed worker's request retried elsewhere, the queue restarted.
 */
class ParanoidPirateTest {
    /** Expiry after 3 x 30 ms. */
    static final PirateHeartbeat HEARTBEAT = PirateHeartbeat.of(Duration.ofMillis(30), 3);
    static final SocketOptions FAST_RECONNECT = SocketOptions.builder()
            .reconnectInterval(Duration.ofMillis(10)).reconnectIntervalMax(Duration.ofMillis(50)).build();

    ZmtpContext ctx;
    ExecutorService userThreads;
    final List<AutoCloseable> toClose = new ArrayList<>();
    final CountDownLatch releaseAtEnd = new CountDownLatch(1);
    ParanoidPirateQueue queue;
    final Recorder<ParanoidPirateQueue.Event> queueEvents = new Recorder<>();

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
        userThreads = Executors.newCachedThreadPool();
        queue = queue("tcp://127.0.0.1:0", "tcp://127.0.0.1:0", queueEvents);
    }

    @AfterEach
    void stop() throws Exception {
        releaseAtEnd.countDown();
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        userThreads.shutdownNow();
        userThreads.awaitTermination(5, TimeUnit.SECONDS);
        ctx.close(Duration.ofSeconds(5));
    }

    ParanoidPirateQueue queue(String frontend, String backend, Recorder<ParanoidPirateQueue.Event> events) {
        ParanoidPirateQueue q = new ParanoidPirateQueue(ctx, ParanoidPirateQueue.Settings.builder()
                .frontend(frontend).backend(backend).heartbeat(HEARTBEAT).linger(Duration.ZERO).traceMessages(true)
                .build(), events);
        toClose.add(q);
        return q.start();
    }

    ParanoidPirateWorker worker(String identity, RequestHandler handler, FailureSimulation simulation,
                                Recorder<ParanoidPirateWorker.Event> events) {
        ParanoidPirateWorker w = new ParanoidPirateWorker(ctx, ParanoidPirateWorker.Settings.builder()
                .backend(queue.backendEndpoint()).heartbeat(HEARTBEAT).reconnectInterval(Duration.ofMillis(50))
                .reconnectIntervalMax(Duration.ofMillis(200)).identity(identity).handler(handler)
                .simulation(simulation).socketOptions(FAST_RECONNECT).traceMessages(true).build(), events);
        toClose.add(w);
        return w.start();
    }

    /** A worker whose reply names it: [identity, request body...]. */
    ParanoidPirateWorker namingWorker(String identity, Recorder<ParanoidPirateWorker.Event> events) {
        return worker(identity, naming(identity), FailureSimulation.NONE, events);
    }

    static RequestHandler naming(String identity) {
        return request -> CompletableFuture.completedFuture(request.addFirst(Unpooled.wrappedBuffer(identity.getBytes())));
    }

    LazyPirateClient client(Duration timeout, int retries) {
        LazyPirateClient c = new LazyPirateClient(ctx, LazyPirateClient.Settings.builder()
                .endpoint(queue.frontendEndpoint()).timeout(timeout).retries(retries).socketOptions(FAST_RECONNECT)
                .build(), null);
        toClose.add(c);
        return c.start();
    }

    void awaitReady(ParanoidPirateQueue q, int n) {
        eventually(n + " workers ready", () -> get(q.workerCounts())[0] == n);
    }

    static boolean is(ParanoidPirateQueue.Event e, ParanoidPirateQueue.Event.Type t, String worker) {
        return e.type() == t && (worker == null || worker.equals(String.valueOf(e.worker())));
    }

    @Test
    void idleWorkersAndTheQueueKeepEachOtherAlive() {
        Recorder<ParanoidPirateWorker.Event> events = new Recorder<>();
        namingWorker("W", events);
        queueEvents.await("W ready", e -> is(e, ParanoidPirateQueue.Event.Type.WORKER_READY, "W"));
        // Many times the expiry time passes, with heartbeats both ways.
        events.awaitCount("queue heartbeats", e -> e.type() == ParanoidPirateWorker.Event.Type.QUEUE_HEARTBEAT,
                5 * HEARTBEAT.liveness());
        assertEquals(0, queueEvents.count(e -> e.type() == ParanoidPirateQueue.Event.Type.WORKER_EXPIRED));
        assertEquals(0, events.count(e -> e.type() == ParanoidPirateWorker.Event.Type.HEARTBEAT_LOST));
        assertEquals(List.of("W", "hello"), client(Duration.ofSeconds(5), 1).request("hello"));
    }

    @Test
    void aBusyWorkerKeepsHeartbeatingWhileItsUserCodeBlocks() {
        CountDownLatch release = new CountDownLatch(1);
        Recorder<ParanoidPirateWorker.Event> events = new Recorder<>();
        worker("busy", RequestHandler.blocking(request -> {
            await(release);
            return request;
        }, userThreads), FailureSimulation.NONE, events);
        awaitReady(queue, 1);
        CompletableFuture<ZmtpMessage> reply = client(Duration.ofSeconds(8), 1)
                .requestAsync(ZmtpMessage.ofStrings("long job"));
        events.await("the request", e -> e.type() == ParanoidPirateWorker.Event.Type.REQUEST);
        long before = events.count(e -> e.type() == ParanoidPirateWorker.Event.Type.QUEUE_HEARTBEAT);
        // The user code blocks for several expiry times; heartbeats go on both ways.
        eventually("heartbeats while busy", () -> events.count(e -> e.type()
                == ParanoidPirateWorker.Event.Type.QUEUE_HEARTBEAT) >= before + 3L * HEARTBEAT.liveness());
        assertEquals(0, queueEvents.count(e -> e.type() == ParanoidPirateQueue.Event.Type.WORKER_EXPIRED));
        release.countDown();
        assertEquals(List.of("long job"), strings(get(reply)));
    }

    @Test
    void aFrozenWorkerIsExpiredAndNoLongerGivenWork() {
        // The guide's "CPU overload": the worker stops reading and heartbeating (for longer than the test).
        Recorder<ParanoidPirateWorker.Event> frozenEvents = new Recorder<>();
        worker("frozen", naming("frozen"), FailureSimulation.builder().overloadChance(1)
                .overloadTime(Duration.ofSeconds(30)).build(), frozenEvents);
        awaitReady(queue, 1);
        LazyPirateClient client = client(Duration.ofMillis(300), 5);
        CompletableFuture<ZmtpMessage> first = client.requestAsync(ZmtpMessage.ofStrings("1"));
        frozenEvents.await("the freeze", e -> e.type() == ParanoidPirateWorker.Event.Type.OVERLOADED);
        namingWorker("healthy", null);

        ParanoidPirateQueue.Event expired = queueEvents.await("the frozen worker expired",
                e -> is(e, ParanoidPirateQueue.Event.Type.WORKER_EXPIRED, "frozen"));
        assertEquals("its request is lost", expired.detail());
        assertEquals(List.of("healthy", "1"), strings(get(first)));
        for (int i = 2; i <= 5; i++) {
            assertEquals(List.of("healthy", Integer.toString(i)), client.request(Integer.toString(i)));
        }
        // After its expiry, nothing goes to the frozen worker unless the queue hears from it again
        // (a heartbeat it sent just before freezing may still be on its way: that is a sign of life).
        List<ParanoidPirateQueue.Event> all = queueEvents.all();
        boolean expiredNow = false;
        for (ParanoidPirateQueue.Event e : all.subList(all.indexOf(expired), all.size())) {
            if (!"frozen".equals(String.valueOf(e.worker()))) {
                continue;
            }
            switch (e.type()) {
                case WORKER_EXPIRED -> expiredNow = true;
                case WORKER_READY, WORKER_ADOPTED -> expiredNow = false;
                case REQUEST_ROUTED -> assertFalse(expiredNow, () -> "routed to an expired worker: " + all);
                default -> { }
            }
        }
        eventually("only the healthy worker is known (the frozen one expired)",
                () -> get(queue.workerCounts())[1] == 1);
    }

    @Test
    void aWorkerKilledMidRequestLeavesTheRetryToAnotherAndExpires() {
        Recorder<ParanoidPirateWorker.Event> doomedEvents = new Recorder<>();
        ParanoidPirateWorker doomed = worker("doomed", RequestHandler.blocking(request -> {
            await(releaseAtEnd);
            return request;
        }, userThreads), FailureSimulation.NONE, doomedEvents);
        awaitReady(queue, 1);
        CompletableFuture<ZmtpMessage> reply = client(Duration.ofMillis(300), 5)
                .requestAsync(ZmtpMessage.ofStrings("job"));
        doomedEvents.await("the doomed worker got the request", e -> e.type() == ParanoidPirateWorker.Event.Type.REQUEST);
        doomed.close(); // linger 0, mid-request: as if the process died
        namingWorker("survivor", null);
        assertEquals(List.of("survivor", "job"), strings(get(reply)));
        queueEvents.await("the dead worker expired", e -> is(e, ParanoidPirateQueue.Event.Type.WORKER_EXPIRED, "doomed"));
    }

    @Test
    void workersReconnectWithBackoffWhenTheQueueRestarts() {
        Recorder<ParanoidPirateWorker.Event> events = new Recorder<>();
        namingWorker("W", events);
        awaitReady(queue, 1);
        String frontend = queue.frontendEndpoint();
        String backend = queue.backendEndpoint();

        queue.close(Duration.ZERO);
        List<ParanoidPirateWorker.Event> reconnects = events.awaitCount("four reconnects",
                e -> e.type() == ParanoidPirateWorker.Event.Type.RECONNECTING, 4);
        assertEquals(List.of(50L, 100L, 200L, 200L), reconnects.subList(0, 4).stream()
                .map(e -> e.delay().toMillis()).toList(), "doubling from the reconnect interval up to its maximum");
        assertTrue(events.count(e -> e.type() == ParanoidPirateWorker.Event.Type.HEARTBEAT_LOST) >= 4,
                "each reconnect follows a heartbeat failure");

        Recorder<ParanoidPirateQueue.Event> restartedEvents = new Recorder<>();
        queue = queue("tcp://127.0.0.1:" + port(frontend), "tcp://127.0.0.1:" + port(backend), restartedEvents);
        restartedEvents.await("W back", e -> e.type() == ParanoidPirateQueue.Event.Type.WORKER_READY
                || e.type() == ParanoidPirateQueue.Event.Type.WORKER_ADOPTED);
        assertEquals(List.of("W", "again"), client(Duration.ofSeconds(5), 1).request("again"));

        // Having heard the queue, the worker starts its backoff over.
        int seen = (int) events.count(e -> e.type() == ParanoidPirateWorker.Event.Type.RECONNECTING);
        queue.close(Duration.ZERO);
        List<ParanoidPirateWorker.Event> after = events.awaitCount("a reconnect after the second loss",
                e -> e.type() == ParanoidPirateWorker.Event.Type.RECONNECTING, seen + 1);
        assertEquals(50L, after.get(seen).delay().toMillis());
    }

    @Test
    void aFailedHandlerMakesTheWorkerReadyAgainAndTheRetryIsServed() {
        AtomicInteger calls = new AtomicInteger();
        Recorder<ParanoidPirateWorker.Event> events = new Recorder<>();
        worker("flaky", request -> {
            if (calls.incrementAndGet() == 1) {
                request.release();
                return CompletableFuture.failedFuture(new IllegalStateException("first call fails"));
            }
            return CompletableFuture.completedFuture(request);
        }, FailureSimulation.NONE, events);
        awaitReady(queue, 1);
        assertEquals(List.of("try again"), client(Duration.ofMillis(300), 3).request("try again"));
        events.await("the failure", e -> e.type() == ParanoidPirateWorker.Event.Type.HANDLER_FAILED);
        queueEvents.await("the request abandoned", e -> is(e, ParanoidPirateQueue.Event.Type.REQUEST_ABANDONED, "flaky"));
    }

    @Test
    void aHeartbeatFromAnUnknownWorkerMakesItReadyAndInvalidMessagesAreDropped() throws Exception {
        ZmtpSocket raw = ctx.socket(SocketType.DEALER, FAST_RECONNECT.toBuilder().identity("raw").linger(Duration.ZERO)
                .build());
        BlockingQueue<ZmtpMessage> received = new LinkedBlockingQueue<>();
        raw.onMessage(m -> {
            if (m.size() == 1) {
                m.release(); // the queue's heartbeats
            } else {
                received.add(m);
            }
        });
        get(Futures.of(raw.connect(queue.backendEndpoint())));
        // A hand-made worker that only heartbeats (more often than the interval, to stay alive).
        raw.scheduleAtFixedRate(() -> {
            ZmtpMessage hb = ZmtpMessage.of(new byte[] {Ppp.HEARTBEAT});
            if (raw.isClosed() || !raw.trySend(hb)) {
                hb.release();
            }
        }, Duration.ZERO, Duration.ofMillis(10));
        queueEvents.await("ready by heartbeat", e -> is(e, ParanoidPirateQueue.Event.Type.WORKER_ADOPTED, "raw"));

        get(Futures.of(raw.send(ZmtpMessage.ofStrings("no", "delimiter"))));
        get(Futures.of(raw.send(ZmtpMessage.of(new byte[] {0x03}))));
        queueEvents.awaitCount("two invalid messages", e -> e.type() == ParanoidPirateQueue.Event.Type.INVALID_MESSAGE, 2);

        CompletableFuture<ZmtpMessage> reply = client(Duration.ofSeconds(5), 1).requestAsync(ZmtpMessage.ofStrings("hi"));
        ZmtpMessage request = received.poll(T.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(3, request.size(), "client address, delimiter, body");
        assertEquals("hi", request.frameString(2));
        get(Futures.of(raw.send(request)));  // echo it back as the reply
        assertEquals(List.of("hi"), strings(get(reply)));
        raw.close(Duration.ZERO);
        assertNull(received.poll());
    }

    @Test
    void theGuidesDefaultsAndValidation() {
        assertEquals(Duration.ofSeconds(1), PirateHeartbeat.DEFAULT.interval());
        assertEquals(3, PirateHeartbeat.DEFAULT.liveness());
        assertEquals(Duration.ofSeconds(3), PirateHeartbeat.DEFAULT.expiry());
        ParanoidPirateWorker.Settings w = ParanoidPirateWorker.Settings.builder().build();
        assertEquals(Duration.ofSeconds(1), w.reconnectInterval());
        assertEquals(Duration.ofSeconds(32), w.reconnectIntervalMax());
        assertEquals(PirateHeartbeat.DEFAULT, w.heartbeat());
        assertEquals(PirateHeartbeat.DEFAULT, ParanoidPirateQueue.Settings.builder().build().heartbeat());
        assertThrows(IllegalArgumentException.class, () -> PirateHeartbeat.of(Duration.ZERO, 3));
        assertThrows(IllegalArgumentException.class, () -> PirateHeartbeat.of(Duration.ofSeconds(1), 0));
        assertNotEquals(PirateHeartbeat.DEFAULT, HEARTBEAT);
    }

    static void await(CountDownLatch latch) {
        try {
            if (!latch.await(T.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("latch not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
