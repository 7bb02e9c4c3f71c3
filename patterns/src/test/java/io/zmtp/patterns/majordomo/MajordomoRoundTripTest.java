package io.zmtp.patterns.majordomo;

import static io.zmtp.patterns.majordomo.MdpTesting.started;

import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static io.zmtp.patterns.majordomo.MdpTesting.T;
import static io.zmtp.patterns.majordomo.MdpTesting.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client and worker APIs end to end through a broker: both protocol versions, mixed versions,
 * PARTIAL streams, many requests in flight, MMI.
 */
class MajordomoRoundTripTest {
    ZmtpContext ctx;
    MajordomoBroker broker;
    String endpoint;
    final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeEach
    void start() {
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
        ctx.close(Duration.ofSeconds(5));
    }

    <C extends AutoCloseable> C open(C c) {
        opened.add(c);
        return c;
    }

    MajordomoWorker worker(MdpVersion v, String service, MajordomoHandler h) {
        MajordomoWorker w = open(new MajordomoWorker(ctx, endpoint, service, h,
                MajordomoWorkerSettings.builder().version(v).build()));
        w.start();
        return w;
    }

    void awaitWorkers(String service, int n) {
        eventually(n + " workers for " + service, () -> broker.workerCount(service) >= n);
    }

    MajordomoClient client(MdpVersion v) {
        return open(started(new MajordomoClient(ctx, endpoint, MajordomoClientSettings.builder().version(v).build())));
    }

    MajordomoAsyncClient asyncClient(MdpVersion v) {
        return open(started(new MajordomoAsyncClient(ctx, endpoint, MajordomoClientSettings.builder().version(v).build())));
    }

    /** A 0.2-style streaming service: "n" partial replies "part i", then a final "done". */
    static MajordomoHandler counting() {
        return (request, replies) -> {
            int n = Integer.parseInt(request.frameString(0));
            for (int i = 1; i <= n; i++) {
                replies.partial("part " + i);
            }
            replies.finish("done");
        };
    }

    static MajordomoHandler upper() {
        return MajordomoHandler.replying(req -> {
            Frames out = Frames.empty();
            for (String f : req.toStrings()) {
                out = out.add(f.toUpperCase());
            }
            return out;
        });
    }

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void synchronousClientAndWorker(MdpVersion v) {
        worker(v, "upper", upper());
        awaitWorkers("upper", 1);
        MajordomoClient client = client(v);
        for (int i = 0; i < 20; i++) {
            MajordomoReply r = client.request("upper", "hello", "n" + i);
            assertEquals("upper", r.service());
            assertEquals(List.of("HELLO", "N" + i), r.bodyStrings());
            assertTrue(r.isFinal());
        }
    }

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void asynchronousClientWithManyRequestsInFlight(MdpVersion v) throws Exception {
        for (int i = 0; i < 3; i++) {
            worker(v, "echo", MajordomoHandler.echo());
        }
        awaitWorkers("echo", 3);
        MajordomoAsyncClient client = asyncClient(v);
        int n = 500;
        for (int i = 0; i < n; i++) {
            client.send("echo", "m" + i);
        }
        Set<String> bodies = new HashSet<>();
        for (int i = 0; i < n; i++) {
            MajordomoReply r = client.receive(T);
            assertEquals("echo", r.service());
            bodies.add(r.bodyStrings().get(0));
        }
        assertEquals(n, bodies.size(), "every request answered once");
        assertEquals(0, client.outstanding());
        List<CompletableFuture<MajordomoReply>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            futures.add(client.request("echo", "f" + i));
        }
        Set<String> got = new HashSet<>();
        for (CompletableFuture<MajordomoReply> f : futures) {
            got.add(f.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings().get(0));
        }
        assertEquals(n, got.size());
    }

    @Test
    void withOneWorkerPerServiceEachFutureGetsItsOwnReply() throws Exception {
        worker(MdpVersion.V0_2, "a", upper());
        worker(MdpVersion.V0_1, "b", MajordomoHandler.echo());
        awaitWorkers("a", 1);
        awaitWorkers("b", 1);
        MajordomoAsyncClient client = asyncClient(MdpVersion.V0_2);
        List<CompletableFuture<MajordomoReply>> fa = new ArrayList<>();
        List<CompletableFuture<MajordomoReply>> fb = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            fa.add(client.request("a", "x" + i));
            fb.add(client.request("b", "y" + i));
        }
        for (int i = 0; i < 100; i++) {
            assertEquals(List.of("X" + i), fa.get(i).get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
            assertEquals(List.of("y" + i), fb.get(i).get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
        }
    }

    @Test
    void mixedVersionsThroughOneBroker() throws Exception {
        worker(MdpVersion.V0_1, "echo", MajordomoHandler.echo());
        worker(MdpVersion.V0_2, "echo", MajordomoHandler.echo());
        awaitWorkers("echo", 2);
        MajordomoClient c1 = client(MdpVersion.V0_1);
        MajordomoClient c2 = client(MdpVersion.V0_2);
        MajordomoAsyncClient a1 = asyncClient(MdpVersion.V0_1);
        MajordomoAsyncClient a2 = asyncClient(MdpVersion.V0_2);
        List<CompletableFuture<MajordomoReply>> fs = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            assertEquals(List.of("s1-" + i), c1.request("echo", "s1-" + i).bodyStrings());
            assertEquals(List.of("s2-" + i), c2.request("echo", "s2-" + i).bodyStrings());
            fs.add(a1.request("echo", "a"));
            fs.add(a2.request("echo", "a"));
        }
        for (CompletableFuture<MajordomoReply> f : fs) {
            assertEquals(List.of("a"), f.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
        }
        assertEquals(List.of("echo"), broker.services());
    }

    /** The common handler type, streaming "n" partials through the PartialReplies extension. */
    static io.zmtp.patterns.kit.RequestHandler countingRequestHandler() {
        return new io.zmtp.patterns.kit.RequestHandler() {
            @Override
            public java.util.concurrent.CompletionStage<io.zmtp.wire.ZmtpMessage> handle(io.zmtp.wire.ZmtpMessage request) {
                return handle(request, PartialReplies.NONE);
            }

            @Override
            public java.util.concurrent.CompletionStage<io.zmtp.wire.ZmtpMessage> handle(
                    io.zmtp.wire.ZmtpMessage request, PartialReplies partials) {
                int n = Integer.parseInt(request.frameString(0));
                request.release();
                for (int i = 1; i <= n; i++) {
                    partials.send(io.zmtp.wire.ZmtpMessage.ofStrings("part " + i + (partials.supported() ? "" : " joined")));
                }
                return java.util.concurrent.CompletableFuture.completedFuture(io.zmtp.wire.ZmtpMessage.ofStrings("done"));
            }
        };
    }

    @Test
    void theCommonRequestHandlerStreamsPartialsUnderV02AndIsJoinedUnderV01() throws Exception {
        worker(MdpVersion.V0_2, "count2", MajordomoHandler.of(countingRequestHandler()));
        worker(MdpVersion.V0_1, "count1", MajordomoHandler.of(countingRequestHandler()));
        worker(MdpVersion.V0_2, "echo", MajordomoHandler.of(io.zmtp.patterns.kit.RequestHandler.echo()));
        awaitWorkers("count2", 1);
        awaitWorkers("count1", 1);
        awaitWorkers("echo", 1);
        MajordomoAsyncClient client = asyncClient(MdpVersion.V0_2);
        List<String> partials = new CopyOnWriteArrayList<>();
        MajordomoReply fin = client.request("count2", r -> partials.add(r.bodyStrings().get(0)),
                Frames.ofStrings("2")).get(T.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(List.of("part 1", "part 2"), partials);
        assertEquals(List.of("done"), fin.bodyStrings());
        MajordomoReply joined = client.request("count1", r -> partials.add("unexpected"),
                Frames.ofStrings("2")).get(T.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(List.of("part 1 joined", "part 2 joined", "done"), joined.bodyStrings());
        assertEquals(List.of("a", "", "b"), client.request("echo", "a", "", "b")
                .get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
        assertEquals(2, partials.size());
    }

    @Test
    void anAsyncV02ClientSeesEachPartialThenTheFinal() throws Exception {
        worker(MdpVersion.V0_2, "count", counting());
        awaitWorkers("count", 1);
        MajordomoAsyncClient client = asyncClient(MdpVersion.V0_2);
        List<String> partials = new CopyOnWriteArrayList<>();
        MajordomoReply fin = client.request("count", r -> partials.add(r.bodyStrings().get(0)),
                Frames.ofStrings("3")).get(T.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(List.of("part 1", "part 2", "part 3"), partials);
        assertEquals(List.of("done"), fin.bodyStrings());
        // send/receive: partials come through receive() too, flagged as such
        client.send("count", "2");
        MajordomoReply p1 = client.receive(T);
        MajordomoReply p2 = client.receive(T);
        MajordomoReply f = client.receive(T);
        assertEquals(List.of(false, false, true), List.of(p1.isFinal(), p2.isFinal(), f.isFinal()));
        assertEquals(List.of("part 1", "part 2", "done"),
                List.of(p1.bodyStrings().get(0), p2.bodyStrings().get(0), f.bodyStrings().get(0)));
    }

    @Test
    void aSyncV02ClientPassesPartialsToTheCallerThread() {
        worker(MdpVersion.V0_2, "count", counting());
        awaitWorkers("count", 1);
        MajordomoClient client = client(MdpVersion.V0_2);
        List<String> partials = new CopyOnWriteArrayList<>();
        List<Thread> threads = new CopyOnWriteArrayList<>(); // checked here, on the test thread
        MajordomoReply fin = client.request("count", r -> {
            threads.add(Thread.currentThread());
            partials.add(r.bodyStrings().get(0));
        }, Frames.ofStrings("4"));
        assertEquals(List.of("part 1", "part 2", "part 3", "part 4"), partials);
        assertEquals(Collections.nCopies(4, Thread.currentThread()), threads, "each partial on the caller's thread");
        assertEquals(List.of("done"), fin.bodyStrings());
    }

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void aV01ClientGetsAStreamAsOneReply(MdpVersion clientVersion) {
        // A 0.2 worker's stream joined by the broker, and a 0.1 worker's stream joined by the worker.
        worker(MdpVersion.V0_2, "count2", counting());
        worker(MdpVersion.V0_1, "count1", counting());
        awaitWorkers("count2", 1);
        awaitWorkers("count1", 1);
        MajordomoClient client = client(MdpVersion.V0_1);
        assertEquals(List.of("part 1", "part 2", "done"), client.request("count2", "2").bodyStrings());
        MajordomoClient any = client(clientVersion);
        List<MajordomoReply> partials = new ArrayList<>();
        MajordomoReply r = any.request("count1", partials::add, Frames.ofStrings("2"));
        assertEquals(List.of("part 1", "part 2", "done"), r.bodyStrings());
        assertEquals(List.of(), partials, "a 0.1 worker sends no PARTIAL");
    }

    @Test
    void anEmptyBodyTravelsAsOneEmptyFrame() {
        worker(MdpVersion.V0_2, "echo", MajordomoHandler.echo());
        awaitWorkers("echo", 1);
        MajordomoReply r = client(MdpVersion.V0_2).request("echo", new byte[0][]);
        assertEquals(List.of(""), r.bodyStrings());
    }

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void mmiThroughTheClients(MdpVersion v) throws Exception {
        worker(v, "echo", MajordomoHandler.echo());
        awaitWorkers("echo", 1);
        MajordomoClient client = client(v);
        assertEquals(List.of("200"), client.request(MmiService.MMI_SERVICE, "echo").bodyStrings());
        assertEquals(List.of("404"), client.request(MmiService.MMI_SERVICE, "titanic").bodyStrings());
        assertEquals(List.of("501"), client.request("mmi.stats", "echo").bodyStrings());
        MajordomoAsyncClient async = asyncClient(v);
        assertEquals(List.of("200"), async.request(MmiService.MMI_SERVICE, "echo")
                .get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
    }

    @Test
    void aWorkerRefusesAnMmiServiceName() {
        assertThrows(IllegalArgumentException.class,
                () -> new MajordomoWorker(ctx, endpoint, "mmi.service", MajordomoHandler.echo()));
    }

    @Test
    void anAsyncHandlerAnswersLater() throws Exception {
        CompletableFuture<Frames> later = new CompletableFuture<>();
        java.util.concurrent.CountDownLatch called = new java.util.concurrent.CountDownLatch(1);
        worker(MdpVersion.V0_2, "later", MajordomoHandler.async(req -> {
            called.countDown();
            return later;
        }));
        awaitWorkers("later", 1);
        MajordomoAsyncClient client = asyncClient(MdpVersion.V0_2);
        CompletableFuture<MajordomoReply> f = client.request("later", "q");
        assertTrue(called.await(T.toMillis(), TimeUnit.MILLISECONDS));
        assertTrue(!f.isDone(), "no reply before the handler's result");
        later.complete(Frames.ofStrings("answered"));
        assertEquals(List.of("answered"), f.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
    }
}
