package io.zmtp.patterns.titanic;

import io.zmtp.patterns.titanic.sqlite.TitanicStoreSettings;

import io.zmtp.patterns.titanic.sqlite.SqliteTitanicStore;

import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.majordomo.MajordomoBroker;
import io.zmtp.patterns.majordomo.MajordomoBrokerSettings;
import io.zmtp.patterns.majordomo.MajordomoClient;
import io.zmtp.patterns.majordomo.MajordomoHandler;
import io.zmtp.patterns.majordomo.MajordomoReply;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.patterns.kit.ManualClock;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.testing.Await;
import io.zmtp.wire.Frames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Titanic server with a real broker and workers in-process and the SQLite store; the
 * dispatcher (retries, dispatch timeouts, mmi.service) on the manual clock.
 */
class TitanicServerTest {
    static final Duration T = Duration.ofSeconds(10);
    static final Duration RETRY = Duration.ofSeconds(1);
    static final Duration DISPATCH_TIMEOUT = Duration.ofSeconds(5);

    ZmtpContext ctx;
    MajordomoBroker broker;
    String endpoint;
    ManualClock clock = new ManualClock();
    @TempDir
    Path dir;
    TitanicStore store;
    final List<TitanicEvent> events = new CopyOnWriteArrayList<>();
    final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeEach
    void startBroker() {
        store = SqliteTitanicStore.open(TitanicStoreSettings.in(dir.resolve("store")));
        ctx = ZmtpContext.create(2);
        broker = started(new MajordomoBroker(ctx, MajordomoBrokerSettings.builder().endpoints("tcp://127.0.0.1:0").build()));
        endpoint = broker.endpoint();
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        broker.close();
        store.close();
        ctx.close(Duration.ofSeconds(5));
    }

    static <C extends LoopComponent> C started(C c) {
        Futures.await(c.start(), T);
        return c;
    }

    <C extends AutoCloseable> C open(C c) {
        opened.add(c);
        return c;
    }

    TitanicServer titanic() {
        return titanic(store);
    }

    TitanicServer titanic(TitanicStore s) {
        return titanic(s, TitanicSettings.builder());
    }

    TitanicServer titanic(TitanicStore s, TitanicSettings.Builder b) {
        TitanicServer t = open(new TitanicServer(ctx, s, b.broker(endpoint)
                .requestWorkers(2).replyWorkers(1).closeWorkers(1)
                .retryInterval(RETRY).dispatchTimeout(DISPATCH_TIMEOUT)
                .clock(clock).traceMessages(true).listener(events::add).build()));
        started(t);
        awaitWorkers(TitanicServer.REQUEST, 2);
        awaitWorkers(TitanicServer.REPLY, 1);
        awaitWorkers(TitanicServer.CLOSE, 1);
        return t;
    }

    /**
     * A worker for {@code service}; the service's first is registered with the broker when this
     * returns: otherwise the
     * dispatcher's mmi.service question could overtake its READY on a busy machine, and the answer
     * "no workers" would wait for a retry interval of the manual clock that the test never moves.
     */
    MajordomoWorker worker(String service, MajordomoHandler h) {
        int before = broker.workerCount(service);
        MajordomoWorker w = open(new MajordomoWorker(ctx, endpoint, service, h,
                io.zmtp.patterns.majordomo.MajordomoWorkerSettings.builder().executor(Runnable::run).build()));
        w.start();
        if (before == 0) {
            awaitWorkers(service, 1);
        }
        return w;
    }

    void awaitWorkers(String service, int n) {
        Await.until(T, () -> n + " workers for " + service, () -> broker.workerCount(service) >= n);
    }

    TitanicClient client() {
        TitanicClient c = open(new TitanicClient(ctx, endpoint));
        Futures.await(c.start(), T);
        return c;
    }

    <E extends TitanicEvent> E awaitEvent(Class<E> type) {
        Await.until(T, () -> "a " + type.getSimpleName() + " event in " + events, () -> events.stream().anyMatch(type::isInstance));
        return events.stream().filter(type::isInstance).map(type::cast).findFirst().orElseThrow();
    }

    long count(Class<? extends TitanicEvent> type) {
        return events.stream().filter(type::isInstance).count();
    }

    static String text(Frames frames) {
        return String.join("|", frames.toStrings());
    }

    Frames awaitReply(TitanicClient c, String uuid) {
        List<Frames> got = new ArrayList<>();
        Await.until(T, () -> "the reply to " + uuid, () -> {
            Optional<Frames> r = c.poll(uuid);
            r.ifPresent(got::add);
            return r.isPresent();
        });
        return got.get(0);
    }

    @Test
    void submitPollCloseThenTheUuidIsUnknown() {
        titanic();
        worker("echo", MajordomoHandler.echo());
        TitanicClient c = client();
        String uuid = c.submit("echo", "Hello", "world");
        assertTrue(TitanicIds.isValid(uuid));
        assertEquals("Hello|world", text(awaitReply(c, uuid)));
        // idempotent until closed
        assertEquals("Hello|world", text(c.poll(uuid).orElseThrow()));
        c.close(uuid);
        TitanicException e = assertThrows(TitanicException.class, () -> c.poll(uuid));
        assertEquals(TitanicStatus.UNKNOWN, e.status());
        assertFalse(e.retryable());
        c.close(uuid); // 200 again, for what is now unknown
        c.close(TitanicIds.newId()); // and for what never was
    }

    @Test
    void pendingWhileTheServiceHasNoWorkersThenDispatchedWhenOneAppears() {
        titanic();
        TitanicClient c = client();
        String uuid = c.submit("late", "x");
        TitanicEvent.ServiceAbsent absent = awaitEvent(TitanicEvent.ServiceAbsent.class);
        assertEquals("late", absent.service());
        assertEquals(Optional.empty(), c.poll(uuid)); // 300 PENDING
        worker("late", MajordomoHandler.replying(r -> Frames.ofStrings("done")));
        awaitWorkers("late", 1);
        assertEquals(Optional.empty(), c.poll(uuid)); // nothing until the retry interval passes
        assertEquals(0, count(TitanicEvent.Dispatched.class));
        clock.advance(RETRY);
        awaitEvent(TitanicEvent.ServiceAvailable.class);
        assertEquals("done", text(awaitReply(c, uuid)));
        assertEquals(1, count(TitanicEvent.Dispatched.class));
    }

    @Test
    void aDispatchThatTimesOutIsRetriedAndAnsweredOnce() throws Exception {
        TitanicServer t = titanic();
        AtomicInteger swallowed = new AtomicInteger();
        MajordomoWorker blackHole = worker("svc", (request, replies) -> swallowed.incrementAndGet());
        awaitWorkers("svc", 1);
        TitanicClient c = client();
        String uuid = c.submit("svc", "once");
        Await.until(T, () -> "the black hole got the request", () -> swallowed.get() == 1);
        // the worker dies; another comes
        blackHole.close();
        AtomicInteger served = new AtomicInteger();
        worker("svc", (request, replies) -> {
            served.incrementAndGet();
            replies.finish("answer");
        });
        Await.until(T, () -> "one worker for svc", () -> broker.workerCount("svc") == 1);
        assertEquals(Optional.empty(), c.poll(uuid));
        clock.advance(DISPATCH_TIMEOUT);
        awaitEvent(TitanicEvent.DispatchFailed.class);
        assertEquals(Optional.empty(), c.poll(uuid)); // waits for the retry interval
        clock.advance(RETRY);
        assertEquals("answer", text(awaitReply(c, uuid)));
        assertEquals(1, served.get());
        assertEquals(0, (int) Futures.await(t.pendingCount(), T));
    }

    @Test
    void requestsStoredBeforeAStartAreDispatched() {
        List<String> uuids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String uuid = TitanicIds.newId();
            Futures.await(store.putRequest(uuid, "echo", Frames.ofStrings("r" + i)), T);
            uuids.add(uuid);
        }
        worker("echo", MajordomoHandler.echo());
        awaitWorkers("echo", 1);
        titanic();
        assertEquals(5, awaitEvent(TitanicEvent.Started.class).recovered());
        TitanicClient c = client();
        for (int i = 0; i < 5; i++) {
            assertEquals("r" + i, text(awaitReply(c, uuids.get(i))));
        }
    }

    @Test
    void malformedRequestsAreAnswered400AndOthersStillServed() {
        titanic();
        worker("echo", MajordomoHandler.echo());
        MajordomoClient raw = open(new MajordomoClient(ctx, endpoint));
        Futures.await(raw.start(), T);
        assertEquals("400", status(raw.request(TitanicServer.REQUEST, "echo"))); // no body
        assertEquals("400", status(raw.request(TitanicServer.REQUEST, "", "x"))); // empty service
        assertEquals("400", status(raw.request(TitanicServer.REPLY, "not-a-uuid")));
        assertEquals("400", status(raw.request(TitanicServer.REPLY, TitanicIds.newId(), "extra")));
        assertEquals("400", status(raw.request(TitanicServer.CLOSE, "zz" + TitanicIds.newId().substring(2))));
        assertEquals("400", status(raw.request(TitanicServer.REPLY, TitanicIds.newId()))); // unknown
        Await.until(T, () -> "5 Refused events in " + events, () -> count(TitanicEvent.Refused.class) >= 5);
        TitanicClient c = client();
        String uuid = c.submit("echo", "still served");
        assertEquals("still served", text(awaitReply(c, uuid)));
        // an upper-case uuid is the same uuid
        assertEquals("still served", text(c.poll(uuid.toUpperCase()).orElseThrow()));
    }

    @Test
    void aFullStoreAnswers500AndTheClientMayRetry() {
        TitanicStore small = SqliteTitanicStore.open(TitanicStoreSettings.builder().directory(dir.resolve("small"))
                .maxEntries(1).build());
        try {
            titanic(small);
            TitanicClient c = client();
            c.submit("nobody", "first");
            TitanicException e = assertThrows(TitanicException.class, () -> c.submit("nobody", "second"));
            assertEquals(TitanicStatus.ERROR, e.status());
            assertTrue(e.retryable());
            // the event is reported on the server's loop after the answer is sent: wait for it
            Await.until(T, () -> "a Refused event with status 500 in " + events,
                    () -> events.stream().anyMatch(ev -> ev instanceof TitanicEvent.Refused r
                            && r.status() == TitanicStatus.ERROR));
        } finally {
            small.close();
        }
    }

    @Test
    void aRequestClosedBeforeItsServiceAppearsIsNeverDispatched() {
        titanic();
        TitanicClient c = client();
        String uuid = c.submit("ghost", "x");
        awaitEvent(TitanicEvent.ServiceAbsent.class);
        c.close(uuid);
        AtomicInteger served = new AtomicInteger();
        worker("ghost", (request, replies) -> {
            served.incrementAndGet();
            replies.finish(request);
        });
        awaitWorkers("ghost", 1);
        String other = c.submit("ghost", "y");
        clock.advance(RETRY);
        assertEquals("y", text(awaitReply(c, other)));
        // x was queued before y: had it been dispatched, its Dispatched event would have come first
        assertTrue(events.stream().anyMatch(e -> e instanceof TitanicEvent.Dispatched d && d.uuid().equals(other)),
                "y was dispatched: " + events);
        assertTrue(events.stream().noneMatch(e -> e instanceof TitanicEvent.Dispatched d && d.uuid().equals(uuid)),
                "the closed request was never dispatched: " + events);
        assertEquals(1, served.get());
    }

    @Test
    void callDoesAllThreeStepsAndPollsAgainAfterPending() {
        titanic();
        worker("echo", MajordomoHandler.echo());
        TitanicClient c = open(new TitanicClient(ctx, endpoint, TitanicClientSettings.builder()
                .pollDelay(Duration.ofMillis(10)).pollDelayMax(Duration.ofMillis(40)).build()));
        Futures.await(c.start(), T);
        for (int i = 0; i < 20; i++) {
            assertEquals("call " + i, text(c.call("echo", T, "call " + i)));
        }
        Await.until(T, () -> "every request closed", () -> Futures.await(store.size(), T) == 0);
    }

    /**
     * Two services on one lane, both dispatches time out at once: the lane's socket was replaced
     * by the first timeout and the second request sent again on the new one, where its late reply
     * would answer the next request to its service. The lane is replaced after a failure, so the
     * next request gets its own reply.
     */
    @Test
    void aLateReplyToAFailedDispatchNeverAnswersAnotherRequest() throws Exception {
        titanic(store, TitanicSettings.builder().dispatchLanes(1));
        java.util.concurrent.BlockingQueue<io.zmtp.patterns.majordomo.ReplyStream> heldA = new java.util.concurrent.LinkedBlockingQueue<>();
        java.util.concurrent.BlockingQueue<Runnable> heldB = new java.util.concurrent.LinkedBlockingQueue<>();
        AtomicInteger bRequests = new AtomicInteger();
        worker("a", (request, replies) -> heldA.add(replies)); // never answers
        worker("b", (request, replies) -> {
            if (bRequests.incrementAndGet() == 1) {
                heldB.add(() -> replies.finish(request)); // the first one, when the test says
            } else {
                replies.finish(request);
            }
        });
        awaitWorkers("a", 1);
        awaitWorkers("b", 1);
        TitanicClient c = client();
        c.submit("a", "xa");
        Await.until(T, () -> "worker a got xa", () -> heldA.size() == 1);
        c.submit("b", "xb");
        Await.until(T, () -> "worker b got xb", () -> heldB.size() == 1);
        clock.advance(DISPATCH_TIMEOUT);
        Await.until(T, () -> "both dispatches failed: " + events,
                () -> count(TitanicEvent.DispatchFailed.class) >= 2);
        String yb = c.submit("b", "yb");
        Await.until(T, () -> "yb dispatched", () -> count(TitanicEvent.Dispatched.class) >= 3);
        heldB.take().run(); // the late reply to xb
        assertEquals("yb", text(awaitReply(c, yb)));
    }

    @Test
    void retentionDeletesAnUnclosedReplyOnceItIsOlderThanTheSetting() {
        java.util.concurrent.atomic.AtomicLong wall = new java.util.concurrent.atomic.AtomicLong(1_000_000);
        TitanicStore kept = open(SqliteTitanicStore.open(TitanicStoreSettings.builder().directory(dir.resolve("kept"))
                .clock(wall::get).build()));
        titanic(kept, TitanicSettings.builder().replyRetention(Duration.ofHours(1)).retentionSweep(Duration.ofMinutes(1))
                .wallClock(wall::get));
        worker("echo", MajordomoHandler.echo());
        TitanicClient c = client();
        String uuid = c.submit("echo", "kept a while");
        assertEquals("kept a while", text(awaitReply(c, uuid)));
        clock.advance(Duration.ofMinutes(1)); // a sweep: the reply is younger than an hour
        assertEquals("kept a while", text(c.poll(uuid).orElseThrow()));
        assertEquals(0, count(TitanicEvent.Expired.class));
        wall.addAndGet(Duration.ofHours(1).toMillis());
        clock.advance(Duration.ofMinutes(1));
        assertEquals(1, awaitEvent(TitanicEvent.Expired.class).count());
        TitanicException gone = assertThrows(TitanicException.class, () -> c.poll(uuid));
        assertEquals(TitanicStatus.UNKNOWN, gone.status());
    }

    static String status(MajordomoReply r) {
        return r.body().frameString(0);
    }
}
