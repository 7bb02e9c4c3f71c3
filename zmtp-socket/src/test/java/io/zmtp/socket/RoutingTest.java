package io.zmtp.socket;

import io.netty.util.concurrent.Future;
import io.zmtp.testing.Await;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.zmtp.socket.SocketTesting.T;
import static io.zmtp.socket.SocketTesting.awaitPeers;
import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static io.zmtp.socket.SocketTesting.onLoop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ROUTER routing ids, REQ/REP envelopes and alternation, as libzmq 4.3 behaves. */
class RoutingTest extends ContextTest {

    @Test
    void routerGeneratesFiveByteIdsForAnonymousPeers() {
        BlockingSocket router = ctx.blocking(SocketType.ROUTER);
        String ep = router.bind("tcp://127.0.0.1:0");
        BlockingSocket d1 = ctx.blocking(SocketType.DEALER).connect(ep);
        BlockingSocket d2 = ctx.blocking(SocketType.DEALER).connect(ep);
        d1.send("one");
        d2.send("two");
        ZmtpMessage a = router.receive(T);
        ZmtpMessage b = router.receive(T);
        boolean inOrder = a.frameString(1).equals("one");
        byte[] id1 = (inOrder ? a : b).frameBytes(0);
        byte[] id2 = (inOrder ? b : a).frameBytes(0);
        a.release();
        b.release();
        assertEquals(5, id1.length);
        assertEquals(0, id1[0], "generated ids start with a zero byte, as libzmq's");
        assertNotEquals(java.util.Arrays.toString(id1), java.util.Arrays.toString(id2));
        router.send(ZmtpMessage.of(id2, "back to two".getBytes()));
        assertEquals(List.of("back to two"), d2.receiveStrings(T));
        // A message of d1's own, after it on the same connection: had "back to two" gone to d1
        // too, it would come first.
        router.send(ZmtpMessage.of(id1, "to one".getBytes()));
        assertEquals(List.of("to one"), d1.receiveStrings(T), "d1 got only what was routed to its id");
    }

    @Test
    void duplicateIdentityKeepsTheFirstPeer() {
        BlockingSocket router = ctx.blocking(SocketType.ROUTER);
        String ep = router.bind("tcp://127.0.0.1:0");
        SocketOptions same = SocketOptions.builder().identity("twin").build();
        BlockingSocket first = ctx.blocking(SocketType.DEALER, same).connect(ep);
        awaitPeers(router.socket(), 1);
        BlockingSocket second = ctx.blocking(SocketType.DEALER, same).connect(ep);
        awaitPeers(router.socket(), 2);
        second.send("from second");
        first.send("from first");
        assertEquals(List.of("twin", "from first"), router.receiveStrings(T), "the second twin is ignored");
        router.send("twin", "hello");
        assertEquals(List.of("hello"), first.receiveStrings(T));
        assertEquals(1, onLoop(router.socket(), router.socket()::metrics).messagesOut(),
                "the ROUTER wrote the message once, to the first twin");
        // A negative window, now that both twins are connected and the first has its message:
        // the ignored twin gets nothing.
        assertNull(second.receive(Duration.ofMillis(50)), "the second twin is not routed to");
    }

    @Test
    void handoverGivesTheIdentityToTheNewPeer() {
        BlockingSocket router = ctx.blocking(SocketType.ROUTER, SocketOptions.builder().routerHandover(true).build());
        String ep = router.bind("tcp://127.0.0.1:0");
        SocketOptions same = SocketOptions.builder().identity("twin").reconnectInterval(Duration.ofSeconds(30)).build();
        BlockingSocket first = ctx.blocking(SocketType.DEALER, same).connect(ep);
        awaitPeers(router.socket(), 1);
        SocketTesting.Events firstEvents = new SocketTesting.Events(first.socket());
        BlockingSocket second = ctx.blocking(SocketType.DEALER, same).connect(ep);
        firstEvents.await(SocketEvent.Type.DISCONNECTED);
        router.send("twin", "hello");
        assertEquals(List.of("hello"), second.receiveStrings(T));
    }

    @Test
    void unroutableMessagesAreDroppedOrFailWithMandatory() {
        ZmtpSocket quiet = ctx.socket(SocketType.ROUTER);
        Future<Void> dropped = quiet.send("nobody", "x");
        assertTrue(get(toResult(dropped)), "dropped silently without the mandatory option");
        ZmtpSocket strict = ctx.socket(SocketType.ROUTER, SocketOptions.builder().routerMandatory(true).build());
        Future<Void> failed = strict.send("nobody", "x");
        failed.awaitUninterruptibly(T.toMillis());
        assertInstanceOf(UnroutableMessageException.class, failed.cause());
        BlockingSocket blocking = BlockingSocket.wrap(ctx.socket(SocketType.ROUTER,
                SocketOptions.builder().routerMandatory(true).build()));
        assertThrows(UnroutableMessageException.class, () -> blocking.send("nobody", "x"));
    }

    private static Future<Boolean> toResult(Future<Void> f) {
        io.netty.util.concurrent.Promise<Boolean> p = io.netty.util.concurrent.ImmediateEventExecutor.INSTANCE.newPromise();
        f.addListener(x -> p.setSuccess(x.isSuccess()));
        return p;
    }

    @Test
    void reqIsStrictlyAlternating() {
        BlockingSocket rep = ctx.blocking(SocketType.REP);
        String ep = rep.bind("inproc://alternate");
        BlockingSocket req = ctx.blocking(SocketType.REQ).connect(ep);
        req.send("first");
        assertThrows(IllegalStateException.class, () -> req.send("second"));
        ZmtpSocket reactorReq = ctx.socket(SocketType.REQ);
        get(reactorReq.connect(ep));
        awaitPeers(reactorReq, 1);
        get(reactorReq.send("a"));
        Future<Void> again = reactorReq.send("b");
        again.awaitUninterruptibly(T.toMillis());
        assertInstanceOf(IllegalStateException.class, again.cause());
        assertThrows(IllegalStateException.class, () -> rep.send("no request yet") , "REP sends only replies");
    }

    @Test
    void repRestoresAMultiFrameEnvelope() {
        BlockingSocket rep = ctx.blocking(SocketType.REP);
        String ep = rep.bind("tcp://127.0.0.1:0");
        BlockingSocket dealer = ctx.blocking(SocketType.DEALER).connect(ep);
        dealer.send("hop1", "hop2", "", "body");
        assertEquals(List.of("body"), rep.receiveStrings(T));
        rep.send("answer");
        assertEquals(List.of("hop1", "hop2", "", "answer"), dealer.receiveStrings(T));
        dealer.send("no delimiter");
        dealer.send("x", "", "second");
        assertEquals(List.of("second"), rep.receiveStrings(T), "a request without a delimiter is discarded");
    }

    @Test
    void repAnswersQueuedRequestsInOrder() {
        BlockingSocket rep = ctx.blocking(SocketType.REP);
        String ep = rep.bind("inproc://queued");
        BlockingSocket a = ctx.blocking(SocketType.REQ).connect(ep);
        BlockingSocket b = ctx.blocking(SocketType.REQ).connect(ep);
        a.send("from a");
        b.send("from b");
        List<String> r1 = rep.receiveStrings(T);
        rep.send("re: " + r1.get(0));
        List<String> r2 = rep.receiveStrings(T);
        rep.send("re: " + r2.get(0));
        assertEquals(List.of("re: from a"), a.receiveStrings(T));
        assertEquals(List.of("re: from b"), b.receiveStrings(T));
    }

    @Test
    void reqDiscardsRepliesFromOtherPeersAndStaleCorrelatedReplies() {
        BlockingSocket router = ctx.blocking(SocketType.ROUTER);
        String ep = router.bind("tcp://127.0.0.1:0");
        BlockingSocket req = ctx.blocking(SocketType.REQ,
                SocketOptions.builder().reqRelaxed(true).reqCorrelate(true).identity("client").build()).connect(ep);
        req.send("one");
        ZmtpMessage r1 = router.receive(T);
        assertEquals(4, r1.size(), "client id, request id, delimiter, body");
        byte[] firstId = r1.frameBytes(1);
        r1.release();
        req.send("two"); // relaxed: allowed before the reply to "one"
        ZmtpMessage r2 = router.receive(T);
        byte[] secondId = r2.frameBytes(1);
        r2.release();
        assertEquals(4, secondId.length);
        assertFalse(java.util.Arrays.equals(firstId, secondId));
        router.send(ZmtpMessage.of("client".getBytes(), firstId, new byte[0], "stale".getBytes()));
        router.send(ZmtpMessage.of("client".getBytes(), secondId, new byte[0], "fresh".getBytes()));
        assertEquals(List.of("fresh"), req.receiveStrings(T), "the reply to the superseded request is dropped");
        // The stale reply came first on the same connection, so the REQ has handled both by now
        // (it counts what arrives before its checks): dropped, not kept for later. No window needed.
        assertEquals(2, req.socket().metrics().messagesIn(), "both replies reached the REQ");
        assertNull(req.tryReceive(), "the stale reply is not kept");
    }

    @Test
    void anErrorFromThePeerStopsReconnecting() {
        BlockingSocket pub = ctx.blocking(SocketType.PUB);
        String ep = pub.bind("tcp://127.0.0.1:0");
        ZmtpSocket dealer = ctx.socket(SocketType.DEALER, SocketOptions.builder()
                .reconnectInterval(Duration.ofMillis(10)).build());
        SocketTesting.Events events = new SocketTesting.Events(dealer);
        get(dealer.connect(ep));
        events.await(SocketEvent.Type.RECONNECT_STOPPED);
        assertTrue(events.first(SocketEvent.Type.RECONNECT_STOPPED).reason().contains("cannot talk"),
                events.seen.toString());
        // A reconnect is scheduled (with its event) on the loop as the connection closes, and the
        // stop is announced before that: wait for the connection that got ERROR to be closed.
        eventually("the connection that got ERROR is closed", () -> onLoop(dealer, dealer::openChannels).isEmpty());
        assertFalse(events.has(SocketEvent.Type.RECONNECT_SCHEDULED), events.seen.toString());
        long attempts = events.count(SocketEvent.Type.CONNECTED);
        // A negative window of ten reconnect intervals: no new attempt, scheduled or not.
        Await.holdsFor(Duration.ofMillis(100), () -> "no reconnect after ERROR: " + events.seen,
                () -> events.count(SocketEvent.Type.CONNECTED) == attempts
                        && !events.has(SocketEvent.Type.RECONNECT_SCHEDULED));
    }

    @Test
    void proxyCarriesRequestsBetweenReqAndRep() {
        ZmtpSocket front = ctx.socket(SocketType.ROUTER);
        ZmtpSocket back = ctx.socket(SocketType.DEALER, SocketOptions.DEFAULTS, front.eventLoop());
        String fe = get(front.bind("tcp://127.0.0.1:0"));
        String be = get(back.bind("inproc://workers"));
        ZmtpProxy.start(front, back);
        BlockingSocket worker = ctx.blocking(SocketType.REP).connect(be);
        BlockingSocket client = ctx.blocking(SocketType.REQ).connect(fe);
        for (int i = 0; i < 5; i++) {
            client.send("q" + i);
            List<String> q = worker.receiveStrings(T);
            worker.send("a-" + q.get(0));
            assertEquals(List.of("a-q" + i), client.receiveStrings(T));
        }
        eventually("proxy has both peers", () -> SocketTesting.peers(front) == 1 && SocketTesting.peers(back) == 1);
    }
}
