package io.zmtp.patterns.paranoidpirate;

import io.netty.buffer.Unpooled;
import io.zmtp.patterns.kit.FailureSimulation;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.testing.Recorder;
import io.zmtp.patterns.simplepirate.QueueEvent;
import io.zmtp.patterns.kit.RequestHandler;
import io.zmtp.patterns.kit.WorkerEvent;
import io.zmtp.patterns.lazypirate.LazyPirateClient;
import io.zmtp.patterns.kit.Heartbeat;
import io.zmtp.patterns.kit.ManualClock;
import io.zmtp.patterns.kit.PatternClock;
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
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Paranoid Pirate on real tcp connections. Heartbeats, expiry and backoff run on a
 * {@link ManualClock} the test moves one interval at a time, waiting for the heartbeats of each
 * interval to arrive before the next: deterministic whatever the machine's load. One test runs on
 * real time end to end.
 */
class ParanoidPirateTest {
    /** Expiry after 3 x 30 ms (of the manual clock). */
    static final Heartbeat HEARTBEAT = Heartbeat.of(Duration.ofMillis(30), 3);
    static final Duration I = HEARTBEAT.interval();
    static final SocketOptions FAST_RECONNECT = SocketOptions.builder()
            .reconnectInterval(Duration.ofMillis(10)).reconnectIntervalMax(Duration.ofMillis(50)).build();

    ZmtpContext ctx;
    ExecutorService userThreads;
    final ManualClock clock = new ManualClock();
    final List<AutoCloseable> toClose = new ArrayList<>();
    final CountDownLatch releaseAtEnd = new CountDownLatch(1);
    ParanoidPirateQueue queue;
    final Recorder<QueueEvent> queueEvents = new Recorder<>();

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
        userThreads = Executors.newCachedThreadPool();
        queue = queue("tcp://127.0.0.1:0", "tcp://127.0.0.1:0", queueEvents, clock, HEARTBEAT);
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

    ParanoidPirateQueue queue(String frontend, String backend, Recorder<QueueEvent> events, PatternClock c,
            Heartbeat hb) {
        ParanoidPirateQueue q = new ParanoidPirateQueue(ctx, ParanoidPirateQueue.Settings.builder()
                .frontend(frontend).backend(backend).heartbeat(hb).linger(Duration.ZERO).traceMessages(true)
                .clock(c).build(), events);
        toClose.add(q);
        get(q.start().toCompletableFuture());
        return q;
    }

    ParanoidPirateWorker worker(String identity, RequestHandler handler, FailureSimulation simulation,
                                Recorder<WorkerEvent> events) {
        return worker(identity, handler, simulation, events, clock, HEARTBEAT);
    }

    ParanoidPirateWorker worker(String identity, RequestHandler handler, FailureSimulation simulation,
                                Recorder<WorkerEvent> events, PatternClock c, Heartbeat hb) {
        ParanoidPirateWorker w = new ParanoidPirateWorker(ctx, ParanoidPirateWorker.Settings.builder()
                .endpoint(queue.backendEndpoint()).heartbeat(hb).reconnectInterval(Duration.ofMillis(50))
                .reconnectIntervalMax(Duration.ofMillis(200)).identity(identity).handler(handler)
                .simulation(simulation).socketOptions(FAST_RECONNECT).traceMessages(true).clock(c).build(), events);
        toClose.add(w);
        get(w.start().toCompletableFuture());
        return w;
    }

    /** A worker whose reply names it: [identity, request body...]. */
    ParanoidPirateWorker namingWorker(String identity, Recorder<WorkerEvent> events) {
        return worker(identity, naming(identity), FailureSimulation.NONE, events);
    }

    static RequestHandler naming(String identity) {
        return request -> CompletableFuture.completedFuture(request.addFirst(Unpooled.wrappedBuffer(identity.getBytes())));
    }

    /** A client on real time: its retries are not what these tests are about. */
    LazyPirateClient client(Duration timeout, int retries) {
        LazyPirateClient c = new LazyPirateClient(ctx, LazyPirateClient.Settings.builder()
                .endpoint(queue.frontendEndpoint()).timeout(timeout).retries(retries).socketOptions(FAST_RECONNECT)
                .build(), null);
        toClose.add(c);
        get(c.start().toCompletableFuture());
        return c;
    }

    void awaitReady(ParanoidPirateQueue q, int n) {
        eventually(n + " workers ready", () -> get(q.workerCounts())[0] == n);
    }

    static boolean about(QueueEvent e, Class<? extends QueueEvent> type, String worker) {
        return type.isInstance(e) && (worker == null || worker.equals(String.valueOf(e.worker())));
    }

    /**
     * Moves the clock one heartbeat interval, then waits until each of {@code live} (worker events)
     * has its queue's heartbeat and the queue has each one's: the interval's heartbeats arrived.
     */
    void beat(List<String> live, List<Recorder<WorkerEvent>> liveEvents) {
        List<Long> before = liveEvents.stream().map(r -> r.count(e -> e instanceof WorkerEvent.QueueHeartbeat)).toList();
        List<Long> queueBefore = live.stream()
                .map(w -> queueEvents.count(e -> about(e, QueueEvent.WorkerHeartbeat.class, w))).toList();
        clock.advance(I);
        for (int i = 0; i < live.size(); i++) {
            long b = before.get(i);
            long qb = queueBefore.get(i);
            String w = live.get(i);
            Recorder<WorkerEvent> r = liveEvents.get(i);
            eventually(w + " heard the queue", () -> r.count(e -> e instanceof WorkerEvent.QueueHeartbeat) > b);
            eventually("the queue heard " + w, () -> queueEvents.count(e -> about(e, QueueEvent.WorkerHeartbeat.class, w)) > qb);
        }
    }

    @Test
    void idleWorkersAndTheQueueKeepEachOtherAlive() {
        Recorder<WorkerEvent> events = new Recorder<>();
        namingWorker("W", events);
        queueEvents.await("W ready", e -> about(e, QueueEvent.WorkerReady.class, "W"));
        for (int i = 0; i < 5 * HEARTBEAT.liveness(); i++) { // many expiry times
            beat(List.of("W"), List.of(events));
        }
        assertEquals(0, queueEvents.count(e -> e instanceof QueueEvent.WorkerExpired));
        assertEquals(0, events.count(e -> e instanceof WorkerEvent.HeartbeatLost));
        assertEquals(List.of("W", "hello"), client(Duration.ofSeconds(5), 1).request("hello"));
    }

    @Test
    void aSilentWorkerExpiresAfterExactlyLivenessIntervals() {
        ZmtpSocket raw = rawWorker("raw", new LinkedBlockingQueue<>());
        get(Futures.of(raw.send(Ppp.signal(Ppp.READY))));
        queueEvents.await("raw ready", e -> about(e, QueueEvent.WorkerReady.class, "raw"));
        clock.advance(I.multipliedBy(HEARTBEAT.liveness()).minusNanos(1));
        assertEquals(0, queueEvents.count(e -> e instanceof QueueEvent.WorkerExpired), "not yet");
        clock.advance(Duration.ofNanos(1));
        QueueEvent.WorkerExpired expired = (QueueEvent.WorkerExpired) queueEvents.await("expired",
                e -> about(e, QueueEvent.WorkerExpired.class, "raw"));
        assertFalse(expired.busy());
        assertEquals(0, get(queue.workerCounts())[1]);
        raw.close(Duration.ZERO);
    }

    @Test
    void aQueueWhoseLoopStalledExpiresNobodyOnItsLateTick() {
        ZmtpSocket raw = rawWorker("raw", new LinkedBlockingQueue<>());
        get(Futures.of(raw.send(Ppp.signal(Ppp.READY))));
        queueEvents.await("raw ready", e -> about(e, QueueEvent.WorkerReady.class, "raw"));
        clock.stall(I.multipliedBy(10)); // the queue's loop could not read for ten intervals
        assertEquals(0, queueEvents.count(e -> e instanceof QueueEvent.WorkerExpired),
                "a late tick does not count silence the loop could not have heard the end of");
        clock.advance(I); // the next tick, on time: the worker really was silent
        queueEvents.await("expired on the next tick", e -> about(e, QueueEvent.WorkerExpired.class, "raw"));
        raw.close(Duration.ZERO);
    }

    @Test
    void aBusyWorkerKeepsHeartbeatingWhileItsUserCodeBlocks() {
        CountDownLatch release = new CountDownLatch(1);
        Recorder<WorkerEvent> events = new Recorder<>();
        worker("busy", RequestHandler.blocking(request -> {
            await(release);
            return request;
        }, userThreads), FailureSimulation.NONE, events);
        awaitReady(queue, 1);
        CompletableFuture<ZmtpMessage> reply = client(Duration.ofSeconds(8), 1)
                .requestAsync(ZmtpMessage.ofStrings("long job"));
        events.await("the request", e -> e instanceof WorkerEvent.Request);
        // The user code blocks for several expiry times; heartbeats go on both ways.
        for (int i = 0; i < 3 * HEARTBEAT.liveness(); i++) {
            beat(List.of("busy"), List.of(events));
        }
        assertEquals(0, queueEvents.count(e -> e instanceof QueueEvent.WorkerExpired));
        release.countDown();
        assertEquals(List.of("long job"), strings(get(reply)));
    }

    @Test
    void aFrozenWorkerIsExpiredAndNoLongerGivenWork() {
        // The guide's "CPU overload": the worker stops reading and heartbeating (the clock never gets there).
        Recorder<WorkerEvent> frozenEvents = new Recorder<>();
        worker("frozen", naming("frozen"), FailureSimulation.builder().overloadChance(1)
                .overloadTime(Duration.ofHours(1)).build(), frozenEvents);
        awaitReady(queue, 1);
        LazyPirateClient client = client(Duration.ofMillis(300), 20);
        CompletableFuture<ZmtpMessage> first = client.requestAsync(ZmtpMessage.ofStrings("1"));
        frozenEvents.await("the freeze", e -> e instanceof WorkerEvent.Overloaded);
        Recorder<WorkerEvent> healthyEvents = new Recorder<>();
        namingWorker("healthy", healthyEvents);
        queueEvents.await("healthy ready", e -> about(e, QueueEvent.WorkerReady.class, "healthy"));

        for (int i = 0; i < HEARTBEAT.liveness(); i++) {
            beat(List.of("healthy"), List.of(healthyEvents));
        }
        QueueEvent.WorkerExpired expired = (QueueEvent.WorkerExpired) queueEvents.await("the frozen worker expired",
                e -> about(e, QueueEvent.WorkerExpired.class, "frozen"));
        assertTrue(expired.busy(), "its request is lost");
        assertEquals(List.of("healthy", "1"), strings(get(first)));
        for (int i = 2; i <= 5; i++) {
            assertEquals(List.of("healthy", Integer.toString(i)), client.request(Integer.toString(i)));
        }
        // After its expiry, nothing goes to the frozen worker.
        List<QueueEvent> all = queueEvents.all();
        for (QueueEvent e : all.subList(all.indexOf(expired), all.size())) {
            assertFalse(about(e, QueueEvent.RequestRouted.class, "frozen"), () -> "routed to an expired worker: " + all);
        }
        assertEquals(1, get(queue.workerCounts())[1], "only the healthy worker is known");
        assertEquals(0, healthyEvents.count(e -> e instanceof WorkerEvent.HeartbeatLost));
    }

    @Test
    void aWorkerKilledMidRequestLeavesTheRetryToAnotherAndExpires() {
        Recorder<WorkerEvent> doomedEvents = new Recorder<>();
        ParanoidPirateWorker doomed = worker("doomed", RequestHandler.blocking(request -> {
            await(releaseAtEnd);
            return request;
        }, userThreads), FailureSimulation.NONE, doomedEvents);
        awaitReady(queue, 1);
        CompletableFuture<ZmtpMessage> reply = client(Duration.ofMillis(300), 20)
                .requestAsync(ZmtpMessage.ofStrings("job"));
        doomedEvents.await("the doomed worker got the request", e -> e instanceof WorkerEvent.Request);
        doomed.close(); // linger 0, mid-request: as if the process died
        Recorder<WorkerEvent> survivorEvents = new Recorder<>();
        namingWorker("survivor", survivorEvents);
        assertEquals(List.of("survivor", "job"), strings(get(reply)));
        for (int i = 0; i < HEARTBEAT.liveness(); i++) {
            beat(List.of("survivor"), List.of(survivorEvents));
        }
        queueEvents.await("the dead worker expired", e -> about(e, QueueEvent.WorkerExpired.class, "doomed"));
    }

    /**
     * A queue that is down refuses connections: that is not a silent queue. The worker's socket
     * reconnects by itself; nothing counts meanwhile, however long (no loss, no backoff); when the
     * queue is back the worker says READY on the new connection at once.
     */
    @Test
    void aWorkerWhoseQueueIsDownIsBackAsSoonAsItRestarts() {
        Recorder<WorkerEvent> events = new Recorder<>();
        namingWorker("W", events);
        awaitReady(queue, 1);
        String frontend = queue.frontendEndpoint();
        String backend = queue.backendEndpoint();

        queue.close();
        events.await("the worker saw the connection drop", e -> e instanceof WorkerEvent.ConnectionLost);
        clock.advance(Duration.ofMillis(1000)); // 33 intervals of a 3-interval liveness
        assertEquals(0, events.count(e -> e instanceof WorkerEvent.HeartbeatLost || e instanceof WorkerEvent.Reconnecting),
                "no loss and no backoff while the queue refuses: " + events.all());

        Recorder<QueueEvent> restartedEvents = new Recorder<>();
        queue = queue("tcp://127.0.0.1:" + port(frontend), "tcp://127.0.0.1:" + port(backend), restartedEvents,
                clock, HEARTBEAT);
        restartedEvents.await("W back, by its socket's own reconnect", e -> about(e, QueueEvent.WorkerReady.class, "W"));
        assertEquals(List.of("W", "again"), client(Duration.ofSeconds(5), 1).request("again"));
        assertEquals(0, events.count(e -> e instanceof WorkerEvent.Reconnecting), "it never waited a backoff");
    }

    /**
     * The guide's backoff is for a queue that accepts the connection but does not answer: here a
     * ROUTER that completes the handshake and never says a word. The worker loses it after its
     * liveness and reconnects after 50, 100, 200, 200 ms (doubling to its maximum); having heard
     * a real queue again, it starts its backoff over.
     */
    @Test
    void aQueueThatAcceptsButNeverAnswersMakesTheWorkerBackOff() {
        String backend = queue.backendEndpoint();
        String frontend = queue.frontendEndpoint();
        queue.close();
        ZmtpSocket mute = ctx.socket(SocketType.ROUTER, SocketOptions.builder().linger(Duration.ZERO).build());
        toClose.add(mute::close);
        mute.onMessage(io.zmtp.wire.ZmtpMessage::release); // takes READY and heartbeats, answers nothing
        get(Futures.of(mute.bind(backend)));
        Recorder<WorkerEvent> events = new Recorder<>();
        worker("W", naming("W"), FailureSimulation.NONE, events);
        for (int i = 0; i < 4; i++) {
            int handshakes = i + 1;
            eventually("connection " + handshakes + " up", () -> mute.peerCount() == 1
                    && events.count(e -> e instanceof WorkerEvent.Ready) >= handshakes);
            for (int t = 0; t < 3; t++) {
                clock.advance(I); // three silent intervals: lost
            }
            int lost = i + 1;
            eventually("lost " + lost, () -> events.count(e -> e instanceof WorkerEvent.Reconnecting) >= lost);
            long delay = ((WorkerEvent.Reconnecting) events.all().stream()
                    .filter(e -> e instanceof WorkerEvent.Reconnecting).toList().get(i)).delay().toMillis();
            clock.advance(Duration.ofMillis(delay)); // the backoff: a new socket after it
        }
        List<Long> delays = events.all().stream().filter(e -> e instanceof WorkerEvent.Reconnecting)
                .map(e -> ((WorkerEvent.Reconnecting) e).delay().toMillis()).toList();
        assertEquals(List.of(50L, 100L, 200L, 200L), delays, "doubling from the reconnect interval up to its maximum");

        mute.close(Duration.ZERO).awaitUninterruptibly(5000);
        Recorder<QueueEvent> realEvents = new Recorder<>();
        queue = queue("tcp://127.0.0.1:" + port(frontend), backend, realEvents, clock, HEARTBEAT);
        realEvents.await("W at the real queue", e -> about(e, QueueEvent.WorkerReady.class, "W"));
        assertEquals(List.of("W", "served"), client(Duration.ofSeconds(5), 1).request("served"));
    }

    @Test
    void aFailedHandlerMakesTheWorkerReadyAgainAndTheRetryIsServed() {
        AtomicInteger calls = new AtomicInteger();
        Recorder<WorkerEvent> events = new Recorder<>();
        worker("flaky", request -> {
            if (calls.incrementAndGet() == 1) {
                request.release();
                return CompletableFuture.failedFuture(new IllegalStateException("first call fails"));
            }
            return CompletableFuture.completedFuture(request);
        }, FailureSimulation.NONE, events);
        awaitReady(queue, 1);
        assertEquals(List.of("try again"), client(Duration.ofMillis(300), 3).request("try again"));
        events.await("the failure", e -> e instanceof WorkerEvent.HandlerFailed);
        queueEvents.await("the request abandoned", e -> about(e, QueueEvent.RequestAbandoned.class, "flaky"));
    }

    ZmtpSocket rawWorker(String identity, BlockingQueue<ZmtpMessage> received) {
        ZmtpSocket raw = ctx.socket(SocketType.DEALER, FAST_RECONNECT.toBuilder().identity(identity)
                .linger(Duration.ZERO).build());
        raw.onMessage(m -> {
            if (m.size() == 1) {
                m.release(); // the queue's heartbeats
            } else {
                received.add(m);
            }
        });
        get(Futures.of(raw.connect(queue.backendEndpoint())));
        return raw;
    }

    @Test
    void aHeartbeatFromAnUnknownWorkerMakesItReadyAndInvalidMessagesAreDropped() throws Exception {
        BlockingQueue<ZmtpMessage> received = new LinkedBlockingQueue<>();
        ZmtpSocket raw = rawWorker("raw", received);
        get(Futures.of(raw.send(Ppp.signal(Ppp.HEARTBEAT)))); // the clock stands still: no expiry
        queueEvents.await("ready by heartbeat", e -> about(e, QueueEvent.WorkerAdopted.class, "raw"));

        get(Futures.of(raw.send(ZmtpMessage.ofStrings("no", "delimiter"))));
        get(Futures.of(raw.send(ZmtpMessage.of(new byte[] {0x03}))));
        queueEvents.awaitCount("two invalid messages", e -> e instanceof QueueEvent.InvalidMessage, 2);

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
    void onRealTimeHeartbeatsKeepAWorkerAndAKilledOneExpires() {
        // End to end on the system clock: generous liveness, and only deadlines, no sleeps.
        Heartbeat real = Heartbeat.of(Duration.ofMillis(50), 5);
        Recorder<QueueEvent> events = new Recorder<>();
        queue = queue("tcp://127.0.0.1:0", "tcp://127.0.0.1:0", events, PatternClock.system(), real);
        Recorder<WorkerEvent> workerEvents = new Recorder<>();
        ParanoidPirateWorker w = worker("R", naming("R"), FailureSimulation.NONE, workerEvents, PatternClock.system(),
                real);
        events.await("R ready", e -> about(e, QueueEvent.WorkerReady.class, "R"));
        workerEvents.awaitCount("queue heartbeats", e -> e instanceof WorkerEvent.QueueHeartbeat, 3);
        assertEquals(List.of("R", "x"), client(Duration.ofSeconds(5), 1).request("x"));
        w.close();
        events.await("the killed worker expired", e -> about(e, QueueEvent.WorkerExpired.class, "R"));
    }

    @Test
    void theGuidesDefaultsAndValidation() {
        assertEquals(Duration.ofSeconds(1), Heartbeat.DEFAULT.interval());
        assertEquals(3, Heartbeat.DEFAULT.liveness());
        assertEquals(Duration.ofSeconds(3), Heartbeat.DEFAULT.expiry());
        ParanoidPirateWorker.Settings w = ParanoidPirateWorker.Settings.builder().build();
        assertEquals(Duration.ofSeconds(1), w.reconnectInterval());
        assertEquals(Duration.ofSeconds(32), w.reconnectIntervalMax());
        assertEquals(Heartbeat.DEFAULT, w.heartbeat());
        assertEquals(Heartbeat.DEFAULT, ParanoidPirateQueue.Settings.builder().build().heartbeat());
        assertEquals(PatternClock.system(), w.clock());
        assertThrows(IllegalArgumentException.class, () -> Heartbeat.of(Duration.ZERO, 3));
        assertThrows(IllegalArgumentException.class, () -> Heartbeat.of(Duration.ofSeconds(1), 0));
        assertThrows(IllegalArgumentException.class, () -> ParanoidPirateQueue.Settings.builder().expiryBatch(0));
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
