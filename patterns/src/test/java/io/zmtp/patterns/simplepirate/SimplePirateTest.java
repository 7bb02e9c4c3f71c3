package io.zmtp.patterns.simplepirate;

import io.zmtp.patterns.Futures;
import io.zmtp.patterns.PatternTesting.Recorder;
import io.zmtp.patterns.QueueEvent;
import io.zmtp.patterns.RequestHandler;
import io.zmtp.patterns.WorkerEvent;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static io.zmtp.patterns.PatternTesting.T;
import static io.zmtp.patterns.PatternTesting.eventually;
import static io.zmtp.patterns.PatternTesting.get;
import static io.zmtp.patterns.PatternTesting.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Simple Pirate: LRU routing over real tcp connections, a worker killed mid-request, late replies. */
class SimplePirateTest {
    static final SocketOptions FAST_RECONNECT = SocketOptions.builder()
            .reconnectInterval(Duration.ofMillis(10)).reconnectIntervalMax(Duration.ofMillis(50)).build();

    ZmtpContext ctx;
    ExecutorService userThreads;
    final List<AutoCloseable> toClose = new ArrayList<>();
    final CountDownLatch releaseAtEnd = new CountDownLatch(1);
    SimplePirateQueue queue;
    final Recorder<QueueEvent> queueEvents = new Recorder<>();

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
        userThreads = Executors.newCachedThreadPool();
        queue = new SimplePirateQueue(ctx, SimplePirateQueue.Settings.builder().frontend("tcp://127.0.0.1:0")
                .backend("tcp://127.0.0.1:0").linger(Duration.ZERO).traceMessages(true).build(), queueEvents);
        toClose.add(queue);
        get(queue.start().toCompletableFuture());
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

    /** A worker whose reply names it: [identity, request body...]. */
    SimplePirateWorker worker(String identity, RequestHandler handler, Recorder<WorkerEvent> events) {
        SimplePirateWorker w = new SimplePirateWorker(ctx, SimplePirateWorker.Settings.builder()
                .endpoint(queue.backendEndpoint()).identity(identity).handler(handler)
                .socketOptions(FAST_RECONNECT).build(), events);
        toClose.add(w);
        get(w.start().toCompletableFuture());
        return w;
    }

    SimplePirateWorker namingWorker(String identity) {
        return worker(identity, request -> CompletableFuture.completedFuture(request.addFirst(
                io.netty.buffer.Unpooled.wrappedBuffer(identity.getBytes()))), null);
    }

    LazyPirateClient client(Duration timeout, int retries, SocketOptions options, boolean correlate) {
        LazyPirateClient c = new LazyPirateClient(ctx, LazyPirateClient.Settings.builder()
                .endpoint(queue.frontendEndpoint()).timeout(timeout).retries(retries).correlate(correlate)
                .socketOptions(options).build(), null);
        toClose.add(c);
        get(c.start().toCompletableFuture());
        return c;
    }

    void awaitReadyWorkers(int n) {
        eventually(n + " workers ready", () -> get(queue.readyWorkers()) == n);
    }

    @Test
    void requestsGoToTheLeastRecentlyUsedWorker() {
        namingWorker("A");
        awaitReadyWorkers(1);
        namingWorker("B");
        awaitReadyWorkers(2);
        LazyPirateClient client = client(Duration.ofSeconds(5), 1, FAST_RECONNECT, false);
        List<String> served = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            served.add(client.request("r" + i).get(0));
        }
        assertEquals(List.of("A", "B", "A", "B", "A", "B"), served);
        assertEquals(2, queueEvents.count(e -> e instanceof QueueEvent.WorkerReady));
    }

    @Test
    void requestsWaitForAWorker() {
        LazyPirateClient client = client(Duration.ofSeconds(5), 1, FAST_RECONNECT, false);
        CompletableFuture<ZmtpMessage> reply = client.requestAsync(ZmtpMessage.ofStrings("early"));
        namingWorker("late");
        assertEquals(List.of("late", "early"), strings(get(reply)));
    }

    @Test
    void aWorkerKilledMidRequestLeavesTheRetryToAnother() {
        Recorder<WorkerEvent> doomedEvents = new Recorder<>();
        SimplePirateWorker doomed = worker("doomed", RequestHandler.blocking(request -> {
            await(releaseAtEnd);
            return request;
        }, userThreads), doomedEvents);
        awaitReadyWorkers(1);
        LazyPirateClient client = client(Duration.ofMillis(200), 3, FAST_RECONNECT, false);
        CompletableFuture<ZmtpMessage> reply = client.requestAsync(ZmtpMessage.ofStrings("job"));
        doomedEvents.await("the doomed worker got the request", e -> e instanceof WorkerEvent.Request);
        doomed.close(); // linger 0, mid-request: as if the process died
        namingWorker("survivor");
        assertEquals(List.of("survivor", "job"), strings(get(reply)));
    }

    @Test
    void invalidWorkerMessagesAreReportedAndDropped() {
        ZmtpSocket rogue = ctx.socket(SocketType.DEALER, FAST_RECONNECT);
        get(Futures.of(rogue.connect(queue.backendEndpoint())));
        get(Futures.of(rogue.send(ZmtpMessage.ofStrings("no delimiter"))));
        queueEvents.await("the invalid message", e -> e instanceof QueueEvent.InvalidMessage);
        namingWorker("W");
        LazyPirateClient client = client(Duration.ofSeconds(5), 1, FAST_RECONNECT, false);
        assertEquals(List.of("W", "still works"), client.request("still works"));
        rogue.close(Duration.ZERO);
    }

    /**
     * A client with a fixed identity: the slow worker's late reply to the first try of request 1 is
     * routed by the queue to the client's new socket while request 2 waits. Correlation drops it.
     */
    @Test
    void aLateReplyRoutedToTheClientsNewSocketIsNotTakenForTheNextReply() {
        CountDownLatch releaseSlow = new CountDownLatch(1);
        CountDownLatch releaseTwo = new CountDownLatch(1);
        Recorder<WorkerEvent> slowEvents = new Recorder<>();
        worker("slow", RequestHandler.blocking(request -> {
            await(releaseSlow);
            return request.addFirst(io.netty.buffer.Unpooled.wrappedBuffer("slow".getBytes()));
        }, userThreads), slowEvents);
        awaitReadyWorkers(1);
        LazyPirateClient client = client(Duration.ofMillis(300), 3,
                FAST_RECONNECT.toBuilder().identity("client-1").build(), true);
        CompletableFuture<ZmtpMessage> one = client.requestAsync(ZmtpMessage.ofStrings("1"));
        slowEvents.await("the slow worker got request 1", e -> e instanceof WorkerEvent.Request);
        worker("fast", RequestHandler.blocking(request -> {
            if (request.frameString(0).equals("2")) {
                await(releaseTwo);
            }
            return request.addFirst(io.netty.buffer.Unpooled.wrappedBuffer("fast".getBytes()));
        }, userThreads), null);
        assertEquals(List.of("fast", "1"), strings(get(one)), "the retry is served by the fast worker");

        CompletableFuture<ZmtpMessage> two = client.requestAsync(ZmtpMessage.ofStrings("2"));
        queueEvents.await("request 2 routed", e -> e instanceof QueueEvent.RequestRouted r
                && r.detail().endsWith("\"2\""));
        releaseSlow.countDown(); // the late reply to request 1 goes to client-1's current socket
        queueEvents.await("the late reply routed back", e -> e instanceof QueueEvent.ReplyRouted
                && e.worker().toString().equals("slow"));
        releaseTwo.countDown();
        assertEquals(List.of("fast", "2"), strings(get(two)));
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
