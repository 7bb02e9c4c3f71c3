package io.zmtp.patterns.majordomo;

import static io.zmtp.patterns.majordomo.MdpTesting.started;

import io.zmtp.patterns.majordomo.MdpTesting.Events;
import io.zmtp.patterns.kit.ManualClock;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.zmtp.patterns.majordomo.MdpTesting.QUIET;
import static io.zmtp.patterns.majordomo.MdpTesting.T;
import static io.zmtp.patterns.majordomo.MdpTesting.render;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two clients against a hand-driven broker (a ROUTER socket): framing, retries, resends.
 * Tests about timeouts run the client on a {@link ManualClock}: a try times out only when the
 * test moves the clock, never because the test thread was slow to answer.
 */
class MajordomoClientTest {
    final ManualClock clock = new ManualClock();
    ZmtpContext ctx;
    BlockingSocket router;
    String endpoint;
    Events events;
    final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
        router = ctx.blocking(SocketType.ROUTER, SocketOptions.builder().linger(Duration.ZERO).build());
        endpoint = router.bind("tcp://127.0.0.1:0");
        events = new Events();
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        router.close(Duration.ZERO);
        ctx.close(Duration.ofSeconds(5));
    }

    MajordomoClientSettings.Builder settings(MdpVersion v) {
        return MajordomoClientSettings.builder().version(v).listener(events).socketOptions(MdpTesting.FAST_RECONNECT);
    }

    MajordomoClient client(MajordomoClientSettings.Builder b) {
        MajordomoClient c = started(new MajordomoClient(ctx, endpoint, b.build()));
        opened.add(c);
        return c;
    }

    MajordomoAsyncClient async(MajordomoClientSettings.Builder b) {
        MajordomoAsyncClient c = started(new MajordomoAsyncClient(ctx, endpoint, b.build()));
        opened.add(c);
        return c;
    }

    /** A request as the broker's ROUTER sees it: routing id (hex), then the frames. */
    List<String> nextRequest() {
        ZmtpMessage m = router.receive(T);
        assertNotNull(m, "no request within " + T);
        return render(m);
    }

    static List<String> requestFrames(MdpVersion v, boolean dealer, String service, String... body) {
        List<String> l = new ArrayList<>();
        if (v == MdpVersion.V0_1) {
            l.add("");
            l.add("MDPC01");
        } else {
            l.add("MDPC02");
            l.add("01");
        }
        l.add(service);
        l.addAll(List.of(body));
        return l;
    }

    void answer(String idHex, MdpVersion v, boolean fin, String service, String... body) {
        ZmtpMessage m = ZmtpMessage.newMessage();
        m.add(java.util.HexFormat.of().parseHex(idHex));
        if (v == MdpVersion.V0_1) {
            m.addEmpty().add("MDPC01");
        } else {
            m.add("MDPC02").add(new byte[] {(byte) (fin ? 3 : 2)});
        }
        m.add(service);
        for (String b : body) {
            m.add(b);
        }
        router.send(m);
    }

    static List<String> tail(List<String> frames) {
        return frames.subList(1, frames.size());
    }

    // ------------------------------------------------------------------ synchronous

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void synchronousRequestFraming(MdpVersion v) throws Exception {
        MajordomoClient c = client(settings(v));
        CompletableFuture<MajordomoReply> r = CompletableFuture.supplyAsync(() -> c.request("svc", "a", "b"));
        List<String> req = nextRequest();
        assertEquals(requestFrames(v, false, "svc", "a", "b"), tail(req),
                v == MdpVersion.V0_1 ? "a REQ socket: empty delimiter, MDPC01" : "a DEALER: MDPC02, REQUEST");
        answer(req.get(0), v, true, "svc", "ok");
        assertEquals(List.of("ok"), r.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
    }

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void noReplyWithinTheTimeoutResendsOnANewSocket(MdpVersion v) throws Exception {
        Duration timeout = Duration.ofMillis(100);
        MajordomoClient c = client(settings(v).clock(clock).timeout(timeout).retries(3));
        CompletableFuture<MajordomoReply> r = CompletableFuture.supplyAsync(() -> c.request("svc", "x"));
        List<String> first = nextRequest();
        clock.advance(timeout);
        List<String> second = nextRequest();
        assertEquals(tail(first), tail(second));
        assertNotEquals(first.get(0), second.get(0), "the resend comes from a new socket");
        answer(second.get(0), v, true, "svc", "at last");
        assertEquals(List.of("at last"), r.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
        assertEquals(1, events.count(MajordomoEvent.Type.RETRYING));
    }

    @Test
    void aRequestIsAbandonedAfterItsLastAttemptAndTheNextOneStartsAfresh() throws Exception {
        Duration timeout = Duration.ofMillis(80);
        MajordomoClient c = client(settings(MdpVersion.V0_1).clock(clock).timeout(timeout).retries(2));
        CompletableFuture<MajordomoReply> r = CompletableFuture.supplyAsync(() -> c.request("svc", "x"));
        nextRequest();
        clock.advance(timeout);
        nextRequest();
        assertFalse(r.isDone(), "the last attempt has its whole timeout");
        clock.advance(timeout);
        ExecutionException e = assertThrows(ExecutionException.class, () -> r.get(T.toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(MajordomoException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("after 2 attempts"), e.getCause().getMessage());
        assertNull(router.receive(QUIET), "no third attempt");
        events.await(MajordomoEvent.Type.REQUEST_FAILED);
        CompletableFuture<MajordomoReply> next = CompletableFuture.supplyAsync(() -> c.request("svc", "y"));
        List<String> req = nextRequest();
        answer(req.get(0), MdpVersion.V0_1, true, "svc", "fine");
        assertEquals(List.of("fine"), next.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
    }

    @Test
    void repliesOfAnotherServiceOrInvalidOnesAreIgnored() throws Exception {
        MajordomoClient c = client(settings(MdpVersion.V0_2));
        CompletableFuture<MajordomoReply> r = CompletableFuture.supplyAsync(() -> c.request("svc", "x"));
        String id = nextRequest().get(0);
        answer(id, MdpVersion.V0_2, true, "other", "not for us");
        router.send(ZmtpMessage.of(java.util.HexFormat.of().parseHex(id), "garbage".getBytes()));
        answer(id, MdpVersion.V0_2, true, "svc", "ours");
        assertEquals(List.of("ours"), r.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
    }

    @Test
    void aPartialReplyResetsTheTimeout() throws Exception {
        Duration timeout = Duration.ofMillis(150);
        MajordomoClient c = client(settings(MdpVersion.V0_2).clock(clock).timeout(timeout).retries(1));
        List<String> partials = new java.util.concurrent.CopyOnWriteArrayList<>();
        CompletableFuture<MajordomoReply> r = CompletableFuture.supplyAsync(
                () -> c.request("svc", p -> partials.add(p.bodyStrings().get(0)), Frames.of("x".getBytes())));
        String id = nextRequest().get(0);
        // Each partial comes 1 ms before the timeout, which it restarts: five times 149 ms in all,
        // and the single try never runs out.
        for (int i = 0; i < 4; i++) {
            clock.advance(timeout.minusMillis(1));
            answer(id, MdpVersion.V0_2, false, "svc", "p" + i);
            String expect = "p" + i;
            MdpTesting.eventually("partial " + i, () -> partials.contains(expect));
        }
        clock.advance(timeout.minusMillis(1));
        answer(id, MdpVersion.V0_2, true, "svc", "end");
        assertEquals(List.of("end"), r.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
        assertEquals(List.of("p0", "p1", "p2", "p3"), partials);
    }

    // ------------------------------------------------------------------ asynchronous

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void asynchronousRequestFramingUsesADealerWithTheEmptyFrameIn01(MdpVersion v) throws Exception {
        MajordomoAsyncClient c = async(settings(v));
        c.send("svc", "a");
        List<String> req = nextRequest();
        assertEquals(requestFrames(v, true, "svc", "a"), tail(req));
        answer(req.get(0), v, true, "svc", "b");
        MajordomoReply r = c.receive(T);
        assertEquals(List.of("b"), r.bodyStrings());
        assertTrue(r.isFinal());
        assertNull(c.receive(Duration.ofMillis(20)));
    }

    @Test
    void outstandingRequestsAreResentInOrderOnANewSocketAfterTheTimeout() throws Exception {
        Duration timeout = Duration.ofMillis(150);
        MajordomoAsyncClient c = async(settings(MdpVersion.V0_2).clock(clock).timeout(timeout).retries(3));
        CompletableFuture<MajordomoReply> f1 = c.request("a", "1");
        c.send("b", "2");
        CompletableFuture<MajordomoReply> f3 = c.request("a", "3");
        List<List<String>> firstRound = List.of(nextRequest(), nextRequest(), nextRequest());
        // the first request is answered; the other two are lost
        answer(firstRound.get(0).get(0), MdpVersion.V0_2, true, "a", "one");
        assertEquals(List.of("one"), f1.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
        clock.advance(timeout);
        List<String> r2 = nextRequest();
        List<String> r3 = nextRequest();
        assertNotEquals(firstRound.get(0).get(0), r2.get(0));
        assertEquals(List.of(requestFrames(MdpVersion.V0_2, true, "b", "2"), requestFrames(MdpVersion.V0_2, true, "a", "3")),
                List.of(tail(r2), tail(r3)));
        assertEquals(2, c.outstanding());
        answer(r3.get(0), MdpVersion.V0_2, true, "a", "three");
        answer(r2.get(0), MdpVersion.V0_2, true, "b", "two");
        assertEquals(List.of("three"), f3.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
        assertEquals(List.of("two"), c.receive(T).bodyStrings());
        assertEquals(0, c.outstanding());
        events.await(MajordomoEvent.Type.RETRYING);
    }

    @Test
    void everythingOutstandingFailsAfterTheLastAttempt() {
        Duration timeout = Duration.ofMillis(80);
        MajordomoAsyncClient c = async(settings(MdpVersion.V0_1).clock(clock).timeout(timeout).retries(2));
        CompletableFuture<MajordomoReply> f = c.request("svc", "x");
        c.send("svc", "y");
        nextRequest();
        nextRequest();
        clock.advance(timeout); // both resent on a new socket
        nextRequest();
        nextRequest();
        assertFalse(f.isDone(), "the last attempt has its whole timeout");
        clock.advance(timeout);
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(T.toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(MajordomoException.class, e.getCause());
        assertThrows(MajordomoException.class, () -> c.receive(T));
        assertEquals(0, c.outstanding());
        events.await(MajordomoEvent.Type.REQUEST_FAILED);
    }

    @Test
    void outstandingRequestsAreResentWhenTheConnectionDrops() throws Exception {
        MajordomoAsyncClient c = async(settings(MdpVersion.V0_2).timeout(Duration.ofSeconds(30)));
        CompletableFuture<MajordomoReply> f = c.request("svc", "survive");
        List<String> first = nextRequest();
        // the broker goes away and comes back on the same port
        router.close(Duration.ZERO);
        router = ctx.blocking(SocketType.ROUTER, SocketOptions.builder().linger(Duration.ZERO).build());
        router.bind(endpoint);
        List<String> again = nextRequest();
        assertEquals(tail(first), tail(again));
        answer(again.get(0), MdpVersion.V0_2, true, "svc", "survived");
        assertEquals(List.of("survived"), f.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
        assertTrue(events.await(MajordomoEvent.Type.RETRYING).detail().contains("dropped"));
    }

    @Test
    void aClosedClientFailsItsRequests() {
        MajordomoAsyncClient c = async(settings(MdpVersion.V0_2));
        CompletableFuture<MajordomoReply> f = c.request("svc", "x");
        nextRequest();
        c.close();
        assertTrue(f.isCompletedExceptionally());
        assertTrue(c.request("svc", "y").isCompletedExceptionally());
        MajordomoClient s = client(settings(MdpVersion.V0_1));
        s.close();
        assertThrows(MajordomoException.class, () -> s.request("svc", "z"));
    }

    @Test
    void theAsyncClientsRequestsFailWhenItsContextClosesFirst() throws Exception {
        ZmtpContext own = ZmtpContext.create(1);
        MajordomoAsyncClient c = started(new MajordomoAsyncClient(own, endpoint,
                settings(MdpVersion.V0_2).timeout(Duration.ofSeconds(60)).build()));
        CompletableFuture<MajordomoReply> inFlight = c.request("svc", "x");
        c.send("svc", "y");
        nextRequest();
        nextRequest();
        own.close(Duration.ZERO); // the context (its loops) goes before the client
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> inFlight.get(T.toMillis(), TimeUnit.MILLISECONDS), "the request does not hang");
        MajordomoException m = assertInstanceOf(MajordomoException.class, e.getCause());
        assertInstanceOf(io.zmtp.socket.SocketClosedException.class, m.getCause());
        assertThrows(MajordomoException.class, () -> c.receive(T), "the sent request fails too");
        assertEquals(0, c.outstanding());
        ExecutionException late = assertThrows(ExecutionException.class,
                () -> c.request("svc", "z").get(T.toMillis(), TimeUnit.MILLISECONDS), "a later request fails at once");
        assertInstanceOf(MajordomoException.class, late.getCause());
        c.closeAsync().toCompletableFuture().get(T.toMillis(), TimeUnit.MILLISECONDS); // closing after it completes
    }

    @Test
    void theSyncClientsRequestFailsWhenItsContextClosesFirst() throws Exception {
        ZmtpContext own = ZmtpContext.create(1);
        MajordomoClient c = started(new MajordomoClient(own, endpoint,
                settings(MdpVersion.V0_1).timeout(Duration.ofSeconds(60)).build()));
        CompletableFuture<MajordomoReply> reply = CompletableFuture.supplyAsync(() -> c.request("svc", "x"));
        nextRequest();
        own.close(Duration.ZERO);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> reply.get(T.toMillis(), TimeUnit.MILLISECONDS), "the request does not wait out its timeouts");
        assertInstanceOf(MajordomoException.class, e.getCause());
        c.close();
    }

    @Test
    void aClientConnectsOnlyWhenStarted() throws Exception {
        MajordomoAsyncClient c = new MajordomoAsyncClient(ctx, endpoint, settings(MdpVersion.V0_2).build());
        opened.add(c);
        CompletableFuture<MajordomoReply> early = c.request("svc", "early");
        ExecutionException e = assertThrows(ExecutionException.class, () -> early.get(T.toMillis(), TimeUnit.MILLISECONDS));
        assertTrue(e.getCause().getMessage().contains("not started"), e.getCause().getMessage());
        assertNull(router.receive(QUIET), "nothing reached the broker before start");
        started(c);
        c.request("svc", "now");
        List<String> got = nextRequest();
        assertEquals("now", got.get(got.size() - 1));
    }
}
