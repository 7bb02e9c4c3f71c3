package io.zmtp.patterns.kit;

import io.netty.channel.EventLoop;
import io.zmtp.patterns.PatternTesting;
import io.zmtp.testing.Recorder;
import io.zmtp.socket.RoutingId;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static io.zmtp.patterns.PatternTesting.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The requester against a hand-driven ROUTER on tcp loopback, its timeouts on the manual clock. */
class RetryingRequesterTest {
    static final Duration TIMEOUT = Duration.ofSeconds(1);
    final ZmtpContext ctx = ZmtpContext.create(2);
    final ManualClock clock = new ManualClock();
    final Recorder<RequestEvent> events = new Recorder<>();
    final BlockingQueue<ZmtpMessage> atServer = new LinkedBlockingQueue<>();
    ZmtpSocket server;
    RetryingRequester<ZmtpMessage> requester;
    EventLoop loop;

    @AfterEach
    void stop() throws Exception {
        if (requester != null) {
            loop.submit(requester::close).get(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close(Duration.ZERO).get(5, TimeUnit.SECONDS);
        }
        ZmtpMessage m;
        while ((m = atServer.poll()) != null) {
            m.release();
        }
        ctx.close(Duration.ofSeconds(5));
    }

    String server() {
        server = ctx.socket(SocketType.ROUTER, SocketOptions.DEFAULTS);
        server.onMessage(atServer::add);
        return PatternTesting.get(io.zmtp.patterns.kit.Futures.of(server.bind("tcp://127.0.0.1:0")));
    }

    void requester(String endpoint, RetryPolicy policy, ReplyJudge<ZmtpMessage> replies) throws Exception {
        requester(endpoint, policy, replies, SocketType.REQ);
    }

    void requester(String endpoint, RetryPolicy policy, ReplyJudge<ZmtpMessage> replies, SocketType type)
            throws Exception {
        loop = ctx.group().next();
        SocketOptions opts = SocketOptions.builder().linger(Duration.ZERO).reconnectInterval(Duration.ofMillis(10))
                .build();
        requester = new RetryingRequester<>(clock.on(loop), policy, endpoint,
                () -> ctx.socket(type, opts, loop), replies,
                new EventReporter<>(events, LoggerFactory.getLogger(getClass()), "test"));
        loop.submit(requester::start).get(5, TimeUnit.SECONDS);
    }

    ZmtpMessage take() throws InterruptedException {
        ZmtpMessage m = atServer.poll(10, TimeUnit.SECONDS);
        assertNotNull(m, "the server got no request");
        return m;
    }

    @Test
    void eachTimeoutUsesOneTryOnANewSocketAndTheLastFailsTheRequest() throws Exception {
        requester(server(), RetryPolicy.DEFAULT.withTimeout(TIMEOUT).withTries(3), ReplyJudge.Verdict::done);
        CompletableFuture<ZmtpMessage> f = requester.submit(ZmtpMessage.ofStrings("hello"));
        ZmtpMessage first = take();
        clock.advance(TIMEOUT.minusMillis(1));
        assertFalse(f.isDone(), "the try still waits");
        clock.advance(Duration.ofMillis(1));
        ZmtpMessage second = take();
        clock.advance(TIMEOUT);
        ZmtpMessage third = take();
        assertFalse(f.isDone());
        clock.advance(TIMEOUT);
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        assertEquals(3, assertInstanceOf(NoReplyException.class, e.getCause()).tries());
        Set<RoutingId> senders = java.util.stream.Stream.of(first, second, third).map(m -> RoutingId.of(m.frame(0)))
                .collect(Collectors.toSet());
        assertEquals(3, senders.size(), "each try came from a new socket");
        first.release();
        second.release();
        third.release();
        assertEquals(2, events.count(ev -> ev instanceof RequestEvent.Retrying));
    }

    @Test
    void aReplyOnTheCurrentSocketCompletesAndAPartialRestartsTheTimeout() throws Exception {
        requester(server(), RetryPolicy.DEFAULT.withTimeout(TIMEOUT).withTries(1),
                m -> m.frameString(m.size() - 1).equals("partial") ? release(m) : ReplyJudge.Verdict.done(m),
                SocketType.DEALER); // a DEALER takes several messages per request (Majordomo 0.2)
        CompletableFuture<ZmtpMessage> f = requester.submit(ZmtpMessage.ofStrings("hello"));
        ZmtpMessage req = take();
        clock.advance(TIMEOUT.minusMillis(100));
        server.send(ZmtpMessage.ofStrings("partial").addFirst(RoutingId.of(req.frame(0)).toFrame()));
        events.await("partial seen", ev -> ev instanceof RequestEvent.Progress);
        clock.advance(TIMEOUT.minusMillis(100)); // past the first deadline, within the restarted one
        assertFalse(f.isDone(), "the partial restarted the timeout");
        server.send(ZmtpMessage.ofStrings("world").addFirst(RoutingId.of(req.frame(0)).toFrame()));
        req.release();
        assertEquals("world", PatternTesting.strings(PatternTesting.get(f)).get(0));
    }

    static ReplyJudge.Verdict<ZmtpMessage> release(ZmtpMessage m) {
        m.release();
        return ReplyJudge.Verdict.partial();
    }

    @Test
    void aConnectionLostDuringATryResendsWithinTheSameTryWithoutUsingTheBudget() throws Exception {
        requester(server(), RetryPolicy.DEFAULT.withTimeout(TIMEOUT).withTries(2).withResendOnDisconnect(true),
                ReplyJudge.Verdict::done);
        CompletableFuture<ZmtpMessage> f = requester.submit(ZmtpMessage.ofStrings("hello"));
        take().release();
        server.close(Duration.ZERO); // the server goes down
        server = null;
        RequestEvent.Reconnected r = (RequestEvent.Reconnected) events.await("resent after the disconnect",
                ev -> ev instanceof RequestEvent.Reconnected);
        assertEquals(1, r.attempt(), "still the first try");
        clock.advance(TIMEOUT);
        assertFalse(f.isDone(), "one timeout of two: the disconnect used no try");
        eventually("second try", () -> events.count(ev -> ev instanceof RequestEvent.Sent s && s.attempt() == 2) == 1);
        clock.advance(TIMEOUT);
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        assertEquals(2, assertInstanceOf(NoReplyException.class, e.getCause()).tries());
    }

    /** A reply [key, body] to a request [key, body]: the key names what it answers. */
    static ReplyJudge.Verdict<ZmtpMessage> keyed(ZmtpMessage m) {
        return ReplyJudge.Verdict.done(m.frameString(0), m);
    }

    void answer(ZmtpMessage request, String body) {
        server.send(ZmtpMessage.ofStrings(request.frameString(1), body).addFirst(RoutingId.of(request.frame(0)).toFrame()));
        request.release();
    }

    @Test
    void aWindowKeepsSeveralRequestsInFlightAndAReplyAnswersTheOldestWithItsKey() throws Exception {
        requester(server(), RetryPolicy.DEFAULT.withTimeout(TIMEOUT).withWindow(3), RetryingRequesterTest::keyed,
                SocketType.DEALER);
        CompletableFuture<ZmtpMessage> a1 = requester.submit(ZmtpMessage.ofStrings("a", "1"), "a", null);
        CompletableFuture<ZmtpMessage> b = requester.submit(ZmtpMessage.ofStrings("b", "2"), "b", null);
        CompletableFuture<ZmtpMessage> a3 = requester.submit(ZmtpMessage.ofStrings("a", "3"), "a", null);
        ZmtpMessage r1 = take();
        ZmtpMessage r2 = take();
        ZmtpMessage r3 = take(); // all three before any reply: the window
        answer(r2, "two");
        answer(r1, "one");
        answer(r3, "three");
        assertEquals(java.util.List.of("b", "two"), PatternTesting.strings(PatternTesting.get(b)));
        assertEquals(java.util.List.of("a", "one"), PatternTesting.strings(PatternTesting.get(a1)));
        assertEquals(java.util.List.of("a", "three"), PatternTesting.strings(PatternTesting.get(a3)));
        assertEquals(0, requester.pending());
    }

    @Test
    void aTimeoutInAWindowResendsEveryRequestInFlightOnceOnANewSocketAndTriesStayPerRequest() throws Exception {
        requester(server(), RetryPolicy.DEFAULT.withTimeout(TIMEOUT).withTries(2).withWindow(2),
                RetryingRequesterTest::keyed, SocketType.DEALER);
        CompletableFuture<ZmtpMessage> x = requester.submit(ZmtpMessage.ofStrings("x", "1"), "x", null);
        CompletableFuture<ZmtpMessage> y = requester.submit(ZmtpMessage.ofStrings("y", "2"), "y", null);
        ZmtpMessage x1 = take();
        ZmtpMessage y1 = take();
        clock.advance(TIMEOUT); // both time out at once: one new socket, each request sent once on it
        ZmtpMessage x2 = take();
        ZmtpMessage y2 = take();
        assertEquals(4, events.count(ev -> ev instanceof RequestEvent.Sent), "no third send of y");
        assertEquals(2, events.count(ev -> ev instanceof RequestEvent.Retrying), "a try for each");
        assertEquals(java.util.List.of("x", "y"), java.util.List.of(x2.frameString(1), y2.frameString(1)));
        assertFalse(RoutingId.of(x1.frame(0)).equals(RoutingId.of(x2.frame(0))), "a new socket");
        x1.release();
        y1.release();
        answer(y2, "late but in time");
        assertEquals("late but in time", PatternTesting.strings(PatternTesting.get(y)).get(1));
        clock.advance(TIMEOUT); // x's second and last try
        ExecutionException e = assertThrows(ExecutionException.class, () -> x.get(10, TimeUnit.SECONDS));
        assertEquals(2, assertInstanceOf(NoReplyException.class, e.getCause()).tries());
        x2.release();
    }

    @Test
    void aLateReplyToARequestGivenUpIsDroppedAndNeverAnswersTheNextWithItsKey() throws Exception {
        requester(server(), RetryPolicy.DEFAULT.withTimeout(TIMEOUT).withTries(1).withWindow(3),
                RetryingRequesterTest::keyed, SocketType.DEALER);
        CompletableFuture<ZmtpMessage> x = requester.submit(ZmtpMessage.ofStrings("x", "1"), "x", null);
        take().release();
        clock.advance(TIMEOUT.dividedBy(2));
        CompletableFuture<ZmtpMessage> y = requester.submit(ZmtpMessage.ofStrings("y", "2"), "y", null);
        take().release();
        clock.advance(TIMEOUT.dividedBy(2)); // x gives up: a new socket, y goes out again on it
        assertInstanceOf(NoReplyException.class, assertThrows(ExecutionException.class,
                () -> x.get(10, TimeUnit.SECONDS)).getCause());
        ZmtpMessage yAgain = take();
        clock.advance(TIMEOUT.dividedBy(2)); // y's only try is over; it went out on the current socket
        assertInstanceOf(NoReplyException.class, assertThrows(ExecutionException.class,
                () -> y.get(10, TimeUnit.SECONDS)).getCause());
        CompletableFuture<ZmtpMessage> next = requester.submit(ZmtpMessage.ofStrings("y", "3"), "y", null);
        ZmtpMessage nextAtServer = take();
        assertEquals(RoutingId.of(yAgain.frame(0)), RoutingId.of(nextAtServer.frame(0)), "the same socket");
        answer(yAgain, "late: for the request given up");
        events.await("the late reply dropped", ev -> ev instanceof RequestEvent.Discarded);
        assertFalse(next.isDone(), "the late reply did not answer the next request to y");
        answer(nextAtServer, "its own");
        assertEquals(java.util.List.of("y", "its own"), PatternTesting.strings(PatternTesting.get(next)));
    }

    @Test
    void aCancelledRequestsLateReplyIsDroppedToo() throws Exception {
        requester(server(), RetryPolicy.DEFAULT.withTimeout(TIMEOUT).withWindow(3), RetryingRequesterTest::keyed,
                SocketType.DEALER);
        CompletableFuture<ZmtpMessage> first = requester.submit(ZmtpMessage.ofStrings("a", "1"), "a", null);
        ZmtpMessage firstAtServer = take();
        first.cancel(false);
        eventually("cancelled on the loop", () -> requester.pending() == 0);
        CompletableFuture<ZmtpMessage> second = requester.submit(ZmtpMessage.ofStrings("a", "2"), "a", null);
        ZmtpMessage secondAtServer = take();
        answer(firstAtServer, "for the cancelled one");
        answer(secondAtServer, "for the second");
        assertEquals(java.util.List.of("a", "for the second"), PatternTesting.strings(PatternTesting.get(second)));
    }
}
