package io.zmtp.patterns.simplepirate;

import io.zmtp.patterns.kit.Futures;
import io.zmtp.testing.Recorder;
import io.zmtp.patterns.kit.RequestHandler;
import io.zmtp.patterns.kit.WorkerEvent;
import io.zmtp.patterns.lazypirate.LazyPirateClient;
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
        SimplePirateWorker w = new SimplePirateWorker(ctx, SimplePirateWorker.settings()
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
        return client(timeout, retries, options, correlate, PatternClock.system());
    }

    /** A client whose tries time out on {@code clock} (a {@link ManualClock}: when the test says). */
    LazyPirateClient client(Duration timeout, int retries, SocketOptions options, boolean correlate,
            PatternClock clock) {
        LazyPirateClient c = new LazyPirateClient(ctx, LazyPirateClient.Settings.builder()
                .endpoint(queue.frontendEndpoint()).timeout(timeout).retries(retries).correlate(correlate)
                .socketOptions(options).clock(clock).build(), null);
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
        ManualClock clock = new ManualClock();
        Duration timeout = Duration.ofMillis(200);
        LazyPirateClient client = client(timeout, 3, FAST_RECONNECT, false, clock);
        CompletableFuture<ZmtpMessage> reply = client.requestAsync(ZmtpMessage.ofStrings("job"));
        doomedEvents.await("the doomed worker got the request", e -> e instanceof WorkerEvent.Request);
        doomed.close(); // linger 0, mid-request: as if the process died
        namingWorker("survivor");
        clock.advance(timeout); // the first try times out: the retry is the survivor's, with no deadline
        assertEquals(List.of("survivor", "job"), strings(get(reply)));
    }

    /**
     * The guide's Simple Pirate worker stays idle for good after its queue restarts (the new queue
     * never heard its READY). This one says READY again when its socket's connection comes back.
     */
    @Test
    void anIdleWorkerRegistersAgainWithARestartedQueue() {
        Recorder<WorkerEvent> events = new Recorder<>();
        worker("W", request -> CompletableFuture.completedFuture(request.addFirst(
                io.netty.buffer.Unpooled.wrappedBuffer("W".getBytes()))), events);
        awaitReadyWorkers(1);
        String frontend = queue.frontendEndpoint();
        String backend = queue.backendEndpoint();
        queue.close();
        Recorder<QueueEvent> restarted = new Recorder<>();
        queue = new SimplePirateQueue(ctx, SimplePirateQueue.Settings.builder().frontend(frontend)
                .backend(backend).linger(Duration.ZERO).build(), restarted);
        toClose.add(queue);
        get(queue.start().toCompletableFuture());
        restarted.await("W registered with the new queue", e -> e instanceof QueueEvent.WorkerReady);
        assertEquals(2, events.count(e -> e instanceof WorkerEvent.Ready), "READY at start and after the restart");
        LazyPirateClient client = client(Duration.ofSeconds(5), 1, FAST_RECONNECT, false);
        assertEquals(List.of("W", "served"), client.request("served"));
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
        // The tries time out only when the test moves the clock: request 1's first try does, request
        // 2's never, however long the test takes to route the late reply meanwhile.
        ManualClock clock = new ManualClock();
        Duration timeout = Duration.ofMillis(300);
        LazyPirateClient client = client(timeout, 3, FAST_RECONNECT.toBuilder().identity("client-1").build(), true,
                clock);
        CompletableFuture<ZmtpMessage> one = client.requestAsync(ZmtpMessage.ofStrings("1"));
        slowEvents.await("the slow worker got request 1", e -> e instanceof WorkerEvent.Request);
        worker("fast", RequestHandler.blocking(request -> {
            if (request.frameString(0).equals("2")) {
                await(releaseTwo);
            }
            return request.addFirst(io.netty.buffer.Unpooled.wrappedBuffer("fast".getBytes()));
        }, userThreads), null);
        clock.advance(timeout); // request 1's first try times out; the retry goes through the queue
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
