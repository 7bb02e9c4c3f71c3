package io.zmtp.socket;

import io.netty.util.concurrent.Future;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.zmtp.socket.SocketTesting.T;
import static io.zmtp.socket.SocketTesting.awaitPeers;
import static io.zmtp.socket.SocketTesting.get;
import static io.zmtp.socket.SocketTesting.onLoop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hooks a socket type implements its rules with: the send/receive state (REQ and REP
 * alternation, as libzmq's EFSM) enforced by the type itself through the reactor API and a
 * blocking socket alike, {@link ZmtpSocket#whenSendAllowed}, subscriptions without casts, and
 * sockets made from the type's enum constant alone.
 */
class SocketTypeHooksTest extends ContextTest {

    @Test
    void reqRefusesASecondRequestBeforeTheReplyThroughTheReactorApi() throws InterruptedException {
        ZmtpSocket rep = ctx.socket(SocketType.REP);
        String ep = get(rep.bind("inproc://hooks-req"));
        java.util.concurrent.Semaphore requests = new java.util.concurrent.Semaphore(0);
        rep.onMessage(m -> {
            m.release();
            requests.release(); // the test answers, so the reply cannot come before the second send
        });
        ZmtpSocket req = ctx.socket(SocketType.REQ);
        SocketTesting.Inbox replies = new SocketTesting.Inbox(req);
        get(req.connect(ep));
        awaitPeers(req, 1);

        get(req.send("first"));
        Future<Void> second = req.send("second");
        second.awaitUninterruptibly(T.toMillis());
        assertInstanceOf(SocketStateException.class, second.cause(), "a REQ alternates send and receive");
        assertTrue(second.cause().getMessage().contains("REQ cannot send again"), second.cause().getMessage());
        assertTrue(requests.tryAcquire(T.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS), "the first request arrived");
        get(rep.send("reply"));
        assertEquals(List.of("reply"), replies.next());
        get(req.whenSendAllowed());
        get(req.send("after the reply"));
        assertTrue(requests.tryAcquire(T.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS), "the next request arrived");
        get(rep.send("reply"));
        assertEquals(List.of("reply"), replies.next(), "the request after the reply went and was answered");
    }

    @Test
    void reqRefusesARequestQueuedBehindOneWaitingForAPeer() {
        ZmtpSocket req = ctx.socket(SocketType.REQ,
                SocketOptions.builder().sendTimeout(Duration.ofMillis(200)).build());
        Future<Void> first = req.send("no peer yet");
        Future<Void> second = req.send("behind it");
        second.awaitUninterruptibly(T.toMillis());
        assertInstanceOf(SocketStateException.class, second.cause(),
                "checked when the send is made, not when the first request finds a peer");
        first.awaitUninterruptibly(T.toMillis());
        assertInstanceOf(SendTimeoutException.class, first.cause());
        // The request that never went is abandoned: the REQ may send again, as libzmq's after EAGAIN.
        get(req.whenSendAllowed());
        Future<Void> third = req.send("again");
        third.awaitUninterruptibly(T.toMillis());
        assertInstanceOf(SendTimeoutException.class, third.cause(), "accepted, and then timed out for want of a peer");
    }

    @Test
    void relaxedReqMaySendBeforeTheReply() {
        ZmtpSocket req = ctx.socket(SocketType.REQ, SocketOptions.builder().reqRelaxed(true)
                .sendTimeout(Duration.ofMillis(100)).build());
        Future<Void> first = req.send("one");
        Future<Void> second = req.send("two");
        first.awaitUninterruptibly(T.toMillis());
        second.awaitUninterruptibly(T.toMillis());
        assertInstanceOf(SendTimeoutException.class, first.cause());
        assertInstanceOf(SendTimeoutException.class, second.cause(), "refused for want of a peer, not by the state");
    }

    @Test
    void repSendsOnlyTheReplyToTheRequestItTook() throws Exception {
        ZmtpSocket rep = ctx.socket(SocketType.REP);
        String ep = get(rep.bind("inproc://hooks-rep"));
        Future<Void> early = rep.send("no request yet");
        early.awaitUninterruptibly(T.toMillis());
        assertInstanceOf(SocketStateException.class, early.cause());
        assertTrue(early.cause().getMessage().contains("REP can only send a reply"), early.cause().getMessage());
        SocketTesting.Inbox requests = new SocketTesting.Inbox(rep);
        Future<Void> allowed = rep.whenSendAllowed();
        assertFalse(allowed.await(50), "no request yet, no send allowed");

        BlockingSocket req = ctx.blocking(SocketType.REQ).connect(ep);
        req.send("question");
        assertEquals(List.of("question"), requests.next());
        get(allowed);
        get(rep.send("answer"));
        assertEquals(List.of("answer"), req.receiveStrings(T));
        Future<Void> twice = rep.send("a second answer");
        twice.awaitUninterruptibly(T.toMillis());
        assertInstanceOf(SocketStateException.class, twice.cause(), "one reply per request");
    }

    @Test
    void aBlockingReqAndRepFollowTheSameRules() {
        BlockingSocket rep = ctx.blocking(SocketType.REP);
        String ep = rep.bind("inproc://hooks-blocking");
        BlockingSocket req = ctx.blocking(SocketType.REQ).connect(ep);
        assertThrows(SocketStateException.class, () -> rep.send("nothing to answer"));
        req.send("first");
        assertThrows(SocketStateException.class, () -> req.send("second"));
        assertEquals(List.of("first"), rep.receiveStrings(T));
        rep.send("reply");
        assertThrows(SocketStateException.class, () -> rep.send("reply again"));
        assertEquals(List.of("reply"), req.receiveStrings(T));
        req.send("next");
        assertEquals(List.of("next"), rep.receiveStrings(T), "after the reply the REQ sends again");
    }

    @Test
    void subscribingIsOnEverySocketAndFailsClearlyWhereThereAreNoSubscriptions() {
        ZmtpSocket push = ctx.socket(SocketType.PUSH);
        Future<Void> f = push.subscribe("x");
        f.awaitUninterruptibly(T.toMillis());
        assertInstanceOf(UnsupportedOperationException.class, f.cause());
        assertTrue(f.cause().getMessage().contains("PUSH"), f.cause().getMessage());
        Future<Void> u = push.unsubscribe("x");
        u.awaitUninterruptibly(T.toMillis());
        assertInstanceOf(UnsupportedOperationException.class, u.cause());
        BlockingSocket dealer = ctx.blocking(SocketType.DEALER);
        assertThrows(UnsupportedOperationException.class, () -> dealer.subscribe("x"));
    }

    @Test
    void subAndXsubSubscribeThroughTheSocketApi() {
        BlockingSocket pub = ctx.blocking(SocketType.PUB);
        String ep = pub.bind("inproc://hooks-pub");
        ZmtpSocket sub = ctx.socket(SocketType.SUB);
        ZmtpSocket xsub = ctx.socket(SocketType.XSUB);
        SocketTesting.Inbox subInbox = new SocketTesting.Inbox(sub);
        SocketTesting.Inbox xsubInbox = new SocketTesting.Inbox(xsub);
        get(sub.subscribe("a"));
        get(xsub.subscribe("b"));
        get(sub.connect(ep));
        get(xsub.connect(ep));
        PubSocket p = (PubSocket) pub.socket();
        SocketTesting.eventually("both subscriptions reached the publisher",
                () -> SocketTesting.onLoop(p, p::subscriptionCount) == 2);
        pub.send("a", "for sub");
        pub.send("b", "for xsub");
        assertEquals(List.of("a", "for sub"), subInbox.next());
        assertEquals(List.of("b", "for xsub"), xsubInbox.next());
        get(xsub.unsubscribe("b"));
        SocketTesting.eventually("the XSUB's cancel reached the publisher",
                () -> SocketTesting.onLoop(p, p::subscriptionCount) == 1);
    }

    /**
     * A {@link ZmtpSocket#whenSendAllowed} future and whether it was done when the call returned,
     * both taken in one task of the socket's loop: looked at later from the test thread, the loop
     * could have run more tasks in between.
     */
    record Asked(Future<Void> future, boolean doneWhenReturned) {
        static Asked on(ZmtpSocket s) {
            return onLoop(s, () -> {
                Future<Void> f = s.whenSendAllowed();
                return new Asked(f, f.isDone());
            });
        }
    }

    @Test
    void whenSendAllowedFailsOnClose() {
        ZmtpSocket rep = ctx.socket(SocketType.REP);
        // A REP without a request gets a future that waits: what "at once" below is told from.
        Asked allowed = Asked.on(rep);
        assertFalse(allowed.doneWhenReturned(), "a REP with no request to answer waits");
        get(rep.close(Duration.ZERO));
        allowed.future().awaitUninterruptibly(T.toMillis());
        assertInstanceOf(SocketClosedException.class, allowed.future().cause());
        // At once: the future is done when it is returned, before any other task or event of the
        // loop could have run (and a DEALER without a peer has no event that could allow it later).
        ZmtpSocket dealer = ctx.socket(SocketType.DEALER);
        Asked atOnce = Asked.on(dealer);
        assertTrue(atOnce.doneWhenReturned(), "types without a send state allow a send at once");
        assertTrue(atOnce.future().isSuccess(), () -> "allowed, not failed: " + atOnce.future().cause());
    }

    @Test
    void theWireFactsOfEachTypeAgree() {
        for (SocketType t : SocketType.values()) {
            if (!t.isRaw()) {
                assertTrue(t.isCompatibleWith(t.assumedPeer()), t + " talks to the peer it assumes");
            }
            ZmtpSocket s = ctx.socket(t);
            assertEquals(t == SocketType.PUB || t == SocketType.RADIO || t == SocketType.PUSH || t == SocketType.SCATTER,
                    !t.deliversMessages(),
                    t.toString());
            boolean conflates = t == SocketType.PUB || t == SocketType.SUB || t == SocketType.PUSH
                    || t == SocketType.PULL || t == SocketType.DEALER;
            assertEquals(conflates, s.conflates(), t + ": CONFLATE applies as in libzmq");
            get(s.close(Duration.ZERO));
        }
    }

    @Test
    void everyTypeIsMadeFromItsEnumConstant() {
        for (SocketType t : SocketType.values()) {
            ZmtpSocket s = ctx.socket(t);
            assertEquals(t, s.type());
            assertEquals(t.name(), s.getClass().getSimpleName().replace("Socket", "").toUpperCase(java.util.Locale.ROOT));
            assertEquals(ZmtpSocket.class.getPackage(), s.getClass().getPackage());
            get(s.close(Duration.ZERO));
        }
    }
}
