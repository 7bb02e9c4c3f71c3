package io.zmtp.patterns.lazypirate;

import io.netty.buffer.Unpooled;
import io.zmtp.testing.Recorder;
import io.zmtp.socket.RoutingId;
import io.zmtp.patterns.kit.NoReplyException;
import io.zmtp.patterns.kit.RequestEvent;
import io.zmtp.patterns.kit.ManualClock;
import io.zmtp.patterns.kit.PatternClock;
import io.zmtp.socket.SocketClosedException;
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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.zmtp.patterns.PatternTesting.T;
import static io.zmtp.patterns.PatternTesting.get;
import static io.zmtp.patterns.PatternTesting.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Lazy Pirate client against real servers on tcp loopback, killed and restarted. */
class LazyPirateClientTest {
    /** Client sockets reconnect quickly, so a restarted server is found within one short try. */
    static final SocketOptions FAST_RECONNECT = SocketOptions.builder()
            .reconnectInterval(Duration.ofMillis(10)).reconnectIntervalMax(Duration.ofMillis(50)).build();

    ZmtpContext ctx;
    final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        ctx.close(Duration.ofSeconds(5));
    }

    LazyPirateServer server(String endpoint) {
        LazyPirateServer s = new LazyPirateServer(ctx, LazyPirateServer.settings().endpoint(endpoint).build(),
                null);
        toClose.add(s);
        get(s.start().toCompletableFuture());
        return s;
    }

    LazyPirateClient client(String endpoint, Duration timeout, int retries, Recorder<RequestEvent> events) {
        return client(endpoint, timeout, retries, events, PatternClock.system());
    }

    LazyPirateClient client(String endpoint, Duration timeout, int retries, Recorder<RequestEvent> events,
            PatternClock c) {
        LazyPirateClient client = new LazyPirateClient(ctx, LazyPirateClient.Settings.builder().endpoint(endpoint)
                .timeout(timeout).retries(retries).socketOptions(FAST_RECONNECT).clock(c).build(), events);
        toClose.add(client);
        get(client.start().toCompletableFuture());
        return client;
    }

    static boolean is(RequestEvent e, Class<? extends RequestEvent> t, long request) {
        return t.isInstance(e) && e.request() == request;
    }

    static Throwable failure(CompletableFuture<ZmtpMessage> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(T.toMillis(), TimeUnit.MILLISECONDS));
        return e.getCause();
    }

    /**
     * Real time: a try of 15 s, on a client with its default socket options, while the server is
     * down behind a proxy (a {@link io.zmtp.testing.ClosingPort}), makes ten connection attempts
     * within 5 s and is answered soon after the server binds. The try's REQ socket attempts the
     * connection at most 200 ms apart (the patterns' default); with the library's doubling to 5 s
     * the tenth attempt would come after 20 s (issue 30).
     */
    @Test
    void aTryWaitingForItsServerIsAnsweredSoonAfterItBinds() throws Exception {
        String endpoint = io.zmtp.testing.FreePorts.loopbackEndpoint();
        io.zmtp.testing.ClosingPort down = new io.zmtp.testing.ClosingPort(io.zmtp.testing.RawPeer.port(endpoint));
        toClose.add(down);
        LazyPirateClient client = new LazyPirateClient(ctx, LazyPirateClient.Settings.builder().endpoint(endpoint)
                .timeout(Duration.ofSeconds(15)).retries(1).build(), null);
        toClose.add(client);
        get(client.start().toCompletableFuture());
        CompletableFuture<ZmtpMessage> reply = client.requestAsync(ZmtpMessage.ofStrings("while down"));
        down.awaitAccepted(10, Duration.ofSeconds(5));
        down.close();
        long up = System.nanoTime();
        server(endpoint);
        ZmtpMessage m = reply.get(15, TimeUnit.SECONDS);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - up);
        assertEquals(List.of("while down"), strings(m));
        System.out.println("lazy pirate: answered " + ms + " ms after the server bound, after " + down.accepted()
                + " attempts while it was down");
        assertTrue(ms < 1500, "answered " + ms + " ms after the server bound");
    }

    @Test
    void blockingAndAsynchronousRequestsGetTheirOwnReplies() {
        LazyPirateServer server = server("tcp://127.0.0.1:0");
        Recorder<RequestEvent> events = new Recorder<>();
        LazyPirateClient client = client(server.endpoint(), Duration.ofSeconds(5), 3, events);

        assertEquals(List.of("hello", "world"), client.request("hello", "world"));
        List<CompletableFuture<ZmtpMessage>> futures = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            futures.add(client.requestAsync(ZmtpMessage.ofStrings("req", Integer.toString(i))));
        }
        for (int i = 0; i < 50; i++) {
            assertEquals(List.of("req", Integer.toString(i)), strings(get(futures.get(i))), "reply " + i);
        }
        assertEquals(51, events.count(e -> e instanceof RequestEvent.Replied));
        assertEquals(0, events.count(e -> e instanceof RequestEvent.Retrying), "no retry was needed");
    }

    @Test
    void failsAfterTheConfiguredTriesEachOnANewSocket() {
        // A ROUTER that swallows requests: it shows which connection each try came on.
        ZmtpSocket blackHole = ctx.socket(SocketType.ROUTER);
        BlockingQueue<RoutingId> tries = new LinkedBlockingQueue<>();
        blackHole.onMessage(m -> {
            tries.add(RoutingId.of(m.first()));
            m.release();
        });
        String ep = get(io.zmtp.patterns.kit.Futures.of(blackHole.bind("tcp://127.0.0.1:0")));
        Recorder<RequestEvent> events = new Recorder<>();
        ManualClock clock = new ManualClock();
        LazyPirateClient client = client(ep, Duration.ofMillis(100), 3, events, clock);

        CompletableFuture<ZmtpMessage> f = client.requestAsync(ZmtpMessage.ofStrings("anyone?"));
        Set<RoutingId> connections = new HashSet<>();
        for (int i = 1; i <= 3; i++) {
            connections.add(take(tries));
            assertFalse(f.isDone());
            clock.advance(Duration.ofMillis(100));
        }
        assertEquals(3, assertInstanceOf(NoReplyException.class, failure(f)).tries());
        assertEquals(2, events.count(ev -> ev instanceof RequestEvent.Retrying));
        assertEquals(1, events.count(ev -> ev instanceof RequestEvent.Failed));
        assertEquals(3, connections.size(), "each try went out on a new socket (a new connection)");
    }

    @Test
    void recoversWhenTheServerIsKilledAndRestartedMidRun() {
        LazyPirateServer first = server("tcp://127.0.0.1:0");
        String ep = first.endpoint();
        Recorder<RequestEvent> events = new Recorder<>();
        LazyPirateClient client = client(ep, Duration.ofMillis(150), 20, events);
        assertEquals(List.of("1"), client.request("1"));

        first.close(); // linger 0: as if the process died
        CompletableFuture<ZmtpMessage> second = client.requestAsync(ZmtpMessage.ofStrings("2"));
        events.await("a retry of request 2 while the server is down",
                e -> is(e, RequestEvent.Retrying.class, 2));
        server(ep); // the server comes back on the same port

        assertEquals(List.of("2"), strings(get(second)));
        assertEquals(List.of("3"), client.request("3"));
        assertEquals(0, events.count(e -> e instanceof RequestEvent.Failed));
    }

    @Test
    void failsWhenTheServerIsKilledForGoodAndWorksAgainWhenItReturns() {
        LazyPirateServer first = server("tcp://127.0.0.1:0");
        String ep = first.endpoint();
        ManualClock clock = new ManualClock();
        Recorder<RequestEvent> events = new Recorder<>();
        LazyPirateClient client = client(ep, Duration.ofMillis(80), 3, events, clock);
        assertEquals(List.of("1"), client.request("1"));

        first.close();
        CompletableFuture<ZmtpMessage> two = client.requestAsync(ZmtpMessage.ofStrings("2"));
        events.await("request 2 sent (its timer set)", e -> is(e, RequestEvent.Sent.class, 2));
        clock.advance(Duration.ofMillis(80 * 3 - 1));
        assertFalse(two.isDone(), "three tries of 80 ms");
        clock.advance(Duration.ofMillis(1));
        assertEquals(3, assertInstanceOf(NoReplyException.class, failure(two)).tries());

        server(ep);
        assertEquals(List.of("3"), client.request("3"), "the next request opens a new socket");
    }

    /**
     * A server that answers late, and twice: with a fixed client identity, the late reply to the
     * first try is routed to the retry's new socket, and a duplicate of the reply to request A
     * arrives while request B waits. Only the reply carrying the current request id is taken.
     */
    @Test
    void correlationDiscardsLateAndDuplicatedRepliesOnTheSameIdentity() throws Exception {
        ZmtpSocket server = ctx.socket(SocketType.ROUTER,
                SocketOptions.builder().routerHandover(true).routerMandatory(true).build());
        BlockingQueue<ZmtpMessage> requests = new LinkedBlockingQueue<>();
        server.onMessage(requests::add);
        String ep = get(io.zmtp.patterns.kit.Futures.of(server.bind("tcp://127.0.0.1:0")));
        Recorder<RequestEvent> events = new Recorder<>();
        ManualClock clock = new ManualClock();
        LazyPirateClient client = new LazyPirateClient(ctx, LazyPirateClient.Settings.builder().endpoint(ep)
                .timeout(Duration.ofMillis(400)).retries(5).correlate(true).clock(clock)
                .socketOptions(FAST_RECONNECT.toBuilder().identity("client-1").build()).build(), events);
        toClose.add(client);
        get(client.start().toCompletableFuture());

        CompletableFuture<ZmtpMessage> a = client.requestAsync(ZmtpMessage.ofStrings("A"));
        ZmtpMessage tryOne = take(requests);   // [client-1, request id, "", A]
        clock.advance(Duration.ofMillis(400));
        ZmtpMessage tryTwo = take(requests);   // the retry, on a new socket with the same identity
        assertEquals("client-1", tryTwo.frameString(0));
        assertEquals(4, tryTwo.size(), "identity, request id, delimiter, body");
        // The late reply to the first try reaches the new socket (the send succeeds: routed) ...
        get(io.zmtp.patterns.kit.Futures.of(server.send(reply(tryOne, "A-late"))));
        // ... then the reply to the second try.
        get(io.zmtp.patterns.kit.Futures.of(server.send(reply(tryTwo, "A"))));
        assertEquals(List.of("A"), strings(get(a)));

        CompletableFuture<ZmtpMessage> b = client.requestAsync(ZmtpMessage.ofStrings("B"));
        ZmtpMessage requestB = take(requests);
        get(io.zmtp.patterns.kit.Futures.of(server.send(reply(tryTwo, "A-again")))); // a duplicate of A's reply
        get(io.zmtp.patterns.kit.Futures.of(server.send(reply(requestB, "B"))));
        assertEquals(List.of("B"), strings(get(b)));
        tryOne.release();
        tryTwo.release();
        requestB.release();
        client.close();
        requests.forEach(ZmtpMessage::release);
    }

    @Test
    void aFixedIdentityWithoutCorrelationIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LazyPirateClient.Settings.builder().socketOptions(SocketOptions.builder().identity("me").build())
                        .build());
        assertTrue(e.getMessage().contains("correlate"), e.getMessage());
    }

    @Test
    void theGuidesDefaults() {
        LazyPirateClient.Settings s = LazyPirateClient.Settings.DEFAULTS;
        assertEquals("tcp://localhost:5555", s.endpoint());
        assertEquals(Duration.ofMillis(2500), s.timeout());
        assertEquals(3, s.retries());
    }

    @Test
    void closingFailsTheRequestsInFlightAndWaiting() {
        ZmtpSocket blackHole = ctx.socket(SocketType.ROUTER);
        blackHole.onMessage(ZmtpMessage::release);
        String ep = get(io.zmtp.patterns.kit.Futures.of(blackHole.bind("tcp://127.0.0.1:0")));
        Recorder<RequestEvent> events = new Recorder<>();
        LazyPirateClient client = client(ep, Duration.ofSeconds(30), 1, events);
        CompletableFuture<ZmtpMessage> inFlight = client.requestAsync(ZmtpMessage.ofStrings("1"));
        CompletableFuture<ZmtpMessage> waiting = client.requestAsync(ZmtpMessage.ofStrings("2"));
        events.await("request 1 sent", e -> is(e, RequestEvent.Sent.class, 1));
        client.close();
        for (CompletableFuture<ZmtpMessage> f : List.of(inFlight, waiting)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(T.toMillis(), TimeUnit.MILLISECONDS));
            assertInstanceOf(SocketClosedException.class, e.getCause());
        }
    }

    @Test
    void aBlockingRequestOnTheEventLoopIsRefused() throws Exception {
        LazyPirateServer server = server("tcp://127.0.0.1:0");
        LazyPirateClient client = client(server.endpoint(), Duration.ofSeconds(1), 1, null);
        Throwable thrown = client.eventLoop().submit(() -> {
            try {
                client.request(ZmtpMessage.ofStrings("x"));
                return null;
            } catch (IllegalStateException e) {
                return e;
            }
        }).get(T.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(thrown);
        assertTrue(thrown.getMessage().contains("deadlock"));
    }

    static ZmtpMessage reply(ZmtpMessage request, String body) {
        ZmtpMessage r = ZmtpMessage.newMessage();
        for (int i = 0; i < request.size() - 1; i++) {
            r.add(request.frame(i).isReadable() ? request.frame(i).retainedDuplicate() : Unpooled.EMPTY_BUFFER);
        }
        return r.add(body);
    }

    static <V> V take(BlockingQueue<V> q) {
        try {
            V v = q.poll(T.toMillis(), TimeUnit.MILLISECONDS);
            if (v == null) {
                throw new AssertionError("nothing within " + T);
            }
            return v;
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
