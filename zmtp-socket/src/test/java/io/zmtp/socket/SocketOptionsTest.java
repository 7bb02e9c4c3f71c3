package io.zmtp.socket;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.Future;
import io.zmtp.transport.IoTransport;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.zmtp.socket.SocketTesting.T;
import static io.zmtp.socket.SocketTesting.awaitPeers;
import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static io.zmtp.socket.SocketTesting.onLoop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The libzmq socket options between sockets of ours: what the interop tests cannot see from a
 * libzmq peer (kernel settings, options changed after creation, conflation in a blocking socket,
 * inproc, validation), and the corners of the others (docs/socket-options.md).
 */
class SocketOptionsTest extends ContextTest {

    // ------------------------------------------------------------------ SNDBUF, RCVBUF, TOS, BACKLOG

    @Test
    void kernelSettingsReachConnectedAndAcceptedChannels() {
        SocketOptions options = SocketOptions.builder().sendBuffer(64 * 1024).receiveBuffer(48 * 1024)
                .typeOfService(0x28).backlog(7).build();
        ZmtpSocket router = ctx.socket(SocketType.ROUTER, options);
        String ep = get(router.bind("tcp://127.0.0.1:0"));
        ZmtpSocket dealer = ctx.socket(SocketType.DEALER, options);
        get(dealer.connect(ep));
        awaitPeers(router, 1);
        awaitPeers(dealer, 1);
        assertEquals(7, (int) onLoop(router, () -> router.serverChannel(ep).config().getOption(ChannelOption.SO_BACKLOG)));
        for (ZmtpSocket s : List.of(router, dealer)) {
            List<Channel> channels = onLoop(s, s::openChannels);
            assertEquals(1, channels.size());
            Channel ch = channels.get(0);
            assertEquals(0x28, (int) ch.config().getOption(ChannelOption.IP_TOS), s + " IP_TOS");
            // Linux doubles what is asked for (bookkeeping); other systems keep it
            int sndbuf = ch.config().getOption(ChannelOption.SO_SNDBUF);
            int rcvbuf = ch.config().getOption(ChannelOption.SO_RCVBUF);
            assertTrue(sndbuf == 64 * 1024 || sndbuf == 128 * 1024, s + " SO_SNDBUF " + sndbuf);
            assertTrue(rcvbuf == 48 * 1024 || rcvbuf == 96 * 1024, s + " SO_RCVBUF " + rcvbuf);
        }
    }

    @Test
    void retransmitTimeoutReachesConnectedAndAcceptedChannelsOverEpoll() {
        assumeTrue(ctx.transport() == IoTransport.EPOLL, "TCP_USER_TIMEOUT is set under epoll only");
        SocketOptions options = SocketOptions.builder().tcpRetransmitTimeout(Duration.ofMillis(1500)).build();
        ZmtpSocket router = ctx.socket(SocketType.ROUTER, options);
        String ep = get(router.bind("tcp://127.0.0.1:0"));
        ZmtpSocket dealer = ctx.socket(SocketType.DEALER, options);
        get(dealer.connect(ep));
        ZmtpSocket plain = ctx.socket(SocketType.DEALER);
        get(plain.connect(ep));
        awaitPeers(router, 2);
        awaitPeers(dealer, 1);
        awaitPeers(plain, 1);
        List<Channel> accepted = onLoop(router, router::openChannels);
        assertEquals(2, accepted.size());
        for (Channel ch : accepted) {
            assertEquals(1500, (int) ch.config().getOption(EpollChannelOption.TCP_USER_TIMEOUT), "accepted " + ch);
        }
        Channel made = onLoop(dealer, dealer::openChannels).get(0);
        assertEquals(1500, (int) made.config().getOption(EpollChannelOption.TCP_USER_TIMEOUT), "connected");
        Channel unset = onLoop(plain, plain::openChannels).get(0);
        assertEquals(0, (int) unset.config().getOption(EpollChannelOption.TCP_USER_TIMEOUT),
                "not given: the system's default (0) stays");
    }

    @Test
    void retransmitTimeoutIsLeftOutUnderNio() throws Exception {
        EventLoopGroup nio = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        ZmtpContext nioCtx = ZmtpContext.wrap(nio);
        try {
            SocketOptions options = SocketOptions.builder().tcpRetransmitTimeout(Duration.ofMillis(1500)).build();
            BlockingSocket rep = nioCtx.blocking(SocketType.REP, options);
            String ep = rep.bind("tcp://127.0.0.1:0");
            BlockingSocket req = nioCtx.blocking(SocketType.REQ, options).connect(ep);
            req.send("over nio");
            assertEquals(List.of("over nio"), rep.receiveStrings(T), "connections work; the option is not set");
        } finally {
            nioCtx.close(Duration.ofSeconds(2));
            nio.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void kernelSettingsAreCheckedWhenSet() {
        SocketOptions.Builder b = SocketOptions.builder();
        assertThrows(IllegalArgumentException.class, () -> b.typeOfService(256));
        assertThrows(IllegalArgumentException.class, () -> b.sendBuffer(-2));
        assertThrows(IllegalArgumentException.class, () -> b.backlog(0));
        assertThrows(IllegalArgumentException.class, () -> b.tcpRetransmitTimeout(Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class, () -> b.tcpRetransmitTimeout(Duration.ofNanos(1)));
        assertThrows(IllegalArgumentException.class, () -> b.tcpRetransmitTimeout(Duration.ofDays(30)));
        assertEquals(Duration.ZERO, SocketOptions.DEFAULTS.tcpRetransmitTimeout(), "the system's by default");
        assertEquals(0, b.sendBuffer(-1).build().sendBuffer(), "libzmq's -1: the system's default");
        assertEquals(SocketOptions.DEFAULT_BACKLOG, SocketOptions.DEFAULTS.backlog());
    }

    // ------------------------------------------------------------------ options changed after creation

    @Test
    void sendTimeoutSetAfterCreationAppliesToTheNextSend() throws Exception {
        ZmtpSocket dealer = ctx.socket(SocketType.DEALER);
        Future<Void> waiting = dealer.send("no peer yet");
        get(dealer.setSendTimeout(Duration.ofMillis(50)));
        Future<Void> timed = dealer.send("times out");
        ExecutionException e = assertThrows(ExecutionException.class, () -> timed.get(T.toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(SendTimeoutException.class, e.getCause());
        assertFalse(waiting.isDone(), "the send made before the change still waits, as it was told");
        dealer.close(Duration.ZERO);
        assertInstanceOf(SocketClosedException.class, assertThrows(ExecutionException.class,
                () -> waiting.get(T.toMillis(), TimeUnit.MILLISECONDS)).getCause());
    }

    @Test
    void routerMandatorySetAfterCreation() throws Exception {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER);
        // By default the send succeeds (no word to the sender) and the message is dropped as
        // unroutable: counted, and not left waiting for a peer of that id.
        Future<Void> dropped = router.send("nobody", "dropped");
        assertTrue(dropped.awaitUninterruptibly(T.toMillis()), "the send is done without a peer");
        assertTrue(dropped.isSuccess(), () -> "dropped without a word by default, not failed: " + dropped.cause());
        SocketMetrics m = onLoop(router, router::metrics);
        assertEquals(1, m.unroutableDrops(), "dropped as unroutable: " + m);
        assertEquals(0, m.queuedOut(), "nothing of it waits: " + m);
        get(router.setRouterMandatory(true));
        Future<Void> f = router.send("nobody", "refused");
        assertInstanceOf(UnroutableMessageException.class,
                assertThrows(ExecutionException.class, () -> f.get(T.toMillis(), TimeUnit.MILLISECONDS)).getCause());
    }

    @Test
    void highWaterMarksAndLingerChangeFromAnyThread() {
        ZmtpSocket dealer = ctx.socket(SocketType.DEALER);
        assertThrows(IllegalArgumentException.class, () -> dealer.setSendHwm(0), "checked on the caller's thread");
        assertThrows(IllegalArgumentException.class, () -> dealer.setLinger(Duration.ofMillis(-1)));
        get(dealer.setSendHwm(5));
        get(dealer.setReceiveHwm(7));
        get(dealer.setLinger(Duration.ofMillis(3)));
        get(dealer.setReconnectInterval(Duration.ofMillis(50), Duration.ofSeconds(1)));
        SocketOptions o = dealer.options();
        assertEquals(5, o.sendHwm());
        assertEquals(7, o.receiveHwm());
        assertEquals(Duration.ofMillis(3), o.linger());
        assertEquals(Duration.ofMillis(50), o.reconnectInterval());
        assertEquals(Duration.ofSeconds(1), o.reconnectIntervalMax());
    }

    /**
     * A send high-water mark set after creation holds for a peer that connects afterwards: a
     * PUSH whose PULL does not read keeps at most that many messages for it once the connection
     * is full, and the rest of a burst waits in the socket.
     */
    @Test
    void aSendHighWaterMarkSetLaterHoldsForNewPeers() {
        ZmtpSocket pull = ctx.socket(SocketType.PULL, SocketOptions.builder().receiveHwm(1).build());
        pull.pauseReceiving();
        String ep = get(pull.bind("tcp://127.0.0.1:0"));
        ZmtpSocket push = ctx.socket(SocketType.PUSH, SocketOptions.builder().sendBuffer(4096).build());
        get(push.setSendHwm(3));
        get(push.connect(ep));
        awaitPeers(push, 1);
        byte[] big = new byte[256 * 1024];
        List<Future<Void>> sends = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            sends.add(push.send(ZmtpMessage.of(big.clone())));
        }
        eventually("the burst waits at the mark", () -> onLoop(push, push::blockedSends) > 0);
        // what waits in the connection's backlog (queued out, less the sends waiting in the socket): the mark
        assertEquals(3L, (long) onLoop(push, () -> push.metrics().queuedOut() - push.blockedSends()),
                "messages kept for the peer at a mark of 3");
        int handed = 0;
        for (Future<Void> f : sends) {
            handed += f.isSuccess() ? 1 : 0;
        }
        assertTrue(handed < 200, "the mark held back the rest: " + handed + " taken");
        pull.close(Duration.ZERO);
        push.close(Duration.ZERO);
    }

    // ------------------------------------------------------------------ CONFLATE

    /** Runs a task on the loop twice in a row: what the loop had queued before, and what that queued, has run. */
    static void settle(ZmtpSocket s) {
        onLoop(s, () -> null);
        onLoop(s, () -> null);
    }

    /**
     * A conflating blocking SUB on the publisher's loop (inproc): once the loop has handed every
     * value over, exactly one waits for the user thread, the last.
     */
    @Test
    void aConflatingBlockingSubscriberGetsTheLatestOnly() {
        ZmtpSocket pub = ctx.socket(SocketType.PUB);
        String ep = get(pub.bind("inproc://conflate"));
        BlockingSocket sub = BlockingSocket.wrap(ctx.socket(SocketType.SUB, SocketOptions.builder().conflate(true).build(),
                pub.eventLoop()));
        sub.subscribe("");
        sub.connect(ep);
        eventually("subscribed", () -> onLoop(pub, ((PubSocket) pub)::subscriptionCount) == 1);
        Future<Void> last = null;
        for (int i = 0; i < 100; i++) {
            last = pub.send("v" + i);
        }
        get(last);
        settle(pub);
        assertTrue(sub.hasMessage());
        assertEquals(List.of("v99"), sub.receiveStrings(T), "the last value, the only one kept");
        assertNull(sub.tryReceive(), "one value at a time");
        pub.send("v100");
        assertEquals(List.of("v100"), sub.receiveStrings(T));
    }

    /** A conflating reactor PULL without a handler keeps the last message; the handler, once set, gets that one. */
    @Test
    void aConflatingReactorSocketWithoutAHandlerKeepsTheLastMessage() {
        ZmtpSocket pull = ctx.socket(SocketType.PULL, SocketOptions.builder().conflate(true).build());
        String ep = get(pull.bind("inproc://conflate-pull"));
        ZmtpSocket push = ctx.socket(SocketType.PUSH, SocketOptions.DEFAULTS, pull.eventLoop());
        get(push.connect(ep));
        awaitPeers(push, 1);
        Future<Void> last = null;
        for (int i = 0; i < 50; i++) {
            last = push.send("n" + i);
        }
        get(last);
        settle(pull);
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(pull);
        settle(pull);
        assertEquals(1, inbox.queue.size(), "one message was kept");
        assertEquals(List.of("n49"), inbox.next());
        assertTrue(pull.conflating());
    }

    @Test
    void conflateIsIgnoredByTypesLibzmqIgnoresItOn() {
        SocketOptions conflate = SocketOptions.builder().conflate(true).build();
        assertFalse(ctx.socket(SocketType.ROUTER, conflate).conflating());
        assertFalse(ctx.socket(SocketType.REQ, conflate).conflating());
        assertTrue(ctx.socket(SocketType.DEALER, conflate).conflating());
        assertTrue(ctx.socket(SocketType.SUB, conflate).conflating());
    }

    // ------------------------------------------------------------------ ROUTER_NOTIFY, CONNECT_ROUTING_ID

    @Test
    void routerNotifyOverInprocAndNothingHeldAfterClose() {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER, SocketOptions.builder()
                .routerNotify(SocketOptions.NOTIFY_CONNECT | SocketOptions.NOTIFY_DISCONNECT).build());
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(router);
        get(router.bind("inproc://notify"));
        ZmtpSocket dealer = ctx.socket(SocketType.DEALER, SocketOptions.builder().identity("d").build());
        get(dealer.connect("inproc://notify"));
        assertEquals(List.of("d", ""), inbox.next());
        get(dealer.close(Duration.ZERO));
        assertEquals(List.of("d", ""), inbox.next());
        // notifications that would come while the ROUTER closes are not made (nothing to leak)
        ZmtpSocket quiet = ctx.socket(SocketType.ROUTER, SocketOptions.builder()
                .routerNotify(SocketOptions.NOTIFY_DISCONNECT).build());
        String ep = get(quiet.bind("tcp://127.0.0.1:0"));
        ZmtpSocket other = ctx.socket(SocketType.DEALER);
        get(other.connect(ep));
        awaitPeers(quiet, 1);
        get(quiet.close(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> SocketOptions.builder().routerNotify(4));
    }

    @Test
    void connectRoutingIdBetweenOurRouters() {
        ZmtpSocket server = ctx.socket(SocketType.ROUTER, SocketOptions.builder().identity("server").build());
        SocketTesting.Inbox serverInbox = new SocketTesting.Inbox(server);
        String ep = get(server.bind("tcp://127.0.0.1:0"));
        RouterSocket client = (RouterSocket) ctx.socket(SocketType.ROUTER, SocketOptions.builder()
                .identity("client").routerMandatory(true).build());
        SocketTesting.Inbox clientInbox = new SocketTesting.Inbox(client);
        get(client.connect(ep, "alias".getBytes()));
        eventually("routed by the alias", () -> onLoop(client, () -> client.hasPeer("alias".getBytes())));
        get(client.send("alias", "hi"));
        assertEquals(List.of("client", "hi"), serverInbox.next());
        server.send("client", "back");
        assertEquals(List.of("alias", "back"), clientInbox.next());
    }

    @Test
    void connectRoutingIdIsForRoutersOverTcpAndIpc() {
        ZmtpSocket dealer = ctx.socket(SocketType.DEALER);
        assertThrows(IllegalArgumentException.class, () -> dealer.connect("tcp://127.0.0.1:5555", "x".getBytes()));
        ZmtpSocket router = ctx.socket(SocketType.ROUTER);
        assertThrows(IllegalArgumentException.class, () -> router.connect("inproc://x", "x".getBytes()));
        assertThrows(IllegalArgumentException.class, () -> router.connect("tcp://127.0.0.1:5555", new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> router.connect("tcp://127.0.0.1:5555", new byte[] {0, 1}));
    }

    // ------------------------------------------------------------------ PROBE_ROUTER, XPUB options, INVERT_MATCHING

    @Test
    void aProbingReqStillAlternates() {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER);
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(router);
        String ep = get(router.bind("tcp://127.0.0.1:0"));
        BlockingSocket req = ctx.blocking(SocketType.REQ, SocketOptions.builder().identity("r").probeRouter(true).build());
        req.connect(ep);
        assertEquals(List.of("r", ""), inbox.next(), "the probe");
        req.send("question");
        assertEquals(List.of("r", "", "question"), inbox.next());
        router.send("r", "", "answer");
        assertEquals(List.of("answer"), req.receiveStrings(T));
    }

    @Test
    void manualXpubRefusesAPeerPastTheSubscriptionLimits() {
        XPubSocket xpub = (XPubSocket) ctx.socket(SocketType.XPUB, SocketOptions.builder().xpubManual(true)
                .maxSubscriptions(2).build());
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(xpub);
        String ep = get(xpub.bind("tcp://127.0.0.1:0"));
        SubSocket greedy = (SubSocket) ctx.socket(SocketType.SUB);
        get(greedy.connect(ep));
        get(greedy.subscribe("a"));
        get(greedy.subscribe("b"));
        assertEquals(List.of("\u0001a"), inbox.next());
        assertEquals(List.of("\u0001b"), inbox.next());
        get(greedy.subscribe("c"));
        eventually("the third prefix closed the peer", () -> onLoop(xpub, xpub::peerCount) == 0);
        Future<Void> gone = xpub.subscribe("x");
        assertTrue(gone.awaitUninterruptibly(T.toMillis()));
        assertInstanceOf(IllegalStateException.class, gone.cause(), "the peer of the last subscription has gone");
        XPubSocket plain = (XPubSocket) ctx.socket(SocketType.XPUB);
        assertInstanceOf(UnsupportedOperationException.class, plain.subscribe("x").cause(), "manual only");
    }

    @Test
    void invertedMatchingBetweenOurPubAndSub() {
        ZmtpSocket pub = ctx.socket(SocketType.PUB, SocketOptions.builder().invertMatching(true).build());
        String ep = get(pub.bind("inproc://inverted"));
        SubSocket sub = (SubSocket) ctx.socket(SocketType.SUB, SocketOptions.builder().invertMatching(true).build());
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(sub);
        get(sub.subscribe("A"));
        get(sub.connect(ep));
        eventually("subscribed", () -> onLoop(pub, ((PubSocket) pub)::subscriptionCount) == 1);
        pub.send("A1");
        pub.send("B1");
        assertEquals(List.of("B1"), inbox.next());
    }

    @Test
    void noDropPubWaitsForAnInprocSubscriberAtItsMark() {
        ZmtpSocket pub = ctx.socket(SocketType.PUB, SocketOptions.builder().xpubNoDrop(true).sendHwm(2).build());
        String ep = get(pub.bind("inproc://nodrop"));
        BlockingSocket sub = ctx.blocking(SocketType.SUB, SocketOptions.builder().receiveHwm(2).build());
        sub.subscribe("");
        sub.connect(ep);
        eventually("subscribed", () -> onLoop(pub, ((PubSocket) pub)::subscriptionCount) == 1);
        int count = 500;
        for (int i = 0; i < count; i++) {
            pub.send("m" + i);
        }
        eventually("sends wait at the mark", () -> onLoop(pub, pub::blockedSends) > 0);
        for (int i = 0; i < count; i++) {
            assertEquals(List.of("m" + i), sub.receiveStrings(T), "nothing dropped");
        }
    }

    /** Sends that waited for a full subscriber go on when that subscriber leaves. */
    @Test
    void noDropSendsGoOnWhenTheFullSubscriberLeaves() {
        ZmtpSocket pub = ctx.socket(SocketType.XPUB, SocketOptions.builder().xpubNoDrop(true).sendHwm(2).build());
        String ep = get(pub.bind("inproc://nodrop-leaves"));
        BlockingSocket sub = ctx.blocking(SocketType.SUB, SocketOptions.builder().receiveHwm(2).build());
        sub.subscribe("");
        sub.connect(ep);
        eventually("subscribed", () -> onLoop(pub, ((XPubSocket) pub)::subscriptionCount) == 1);
        List<Future<Void>> sends = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            sends.add(pub.send("m" + i));
        }
        eventually("sends wait for the subscriber", () -> onLoop(pub, pub::blockedSends) > 0);
        sub.close(Duration.ZERO);
        eventually("the waiting sends went on", () -> onLoop(pub, pub::blockedSends) == 0);
        // Went on: every send is done (the loop completed each one before it emptied the queue
        // the condition looked at) and succeeded, none failed because its subscriber left; and
        // none was dropped at the mark on the way, as XPUB_NODROP promises.
        for (int i = 0; i < sends.size(); i++) {
            Future<Void> f = sends.get(i);
            int n = i;
            assertTrue(f.isDone(), () -> "send " + n + " is done once nothing waits");
            assertTrue(f.isSuccess(), () -> "send " + n + " went on, not failed: " + f.cause());
        }
        assertEquals(0, onLoop(pub, pub::metrics).hwmDrops(), "no-drop: nothing was dropped at the mark");
    }
}
