package io.zmtp.interop;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.util.concurrent.Future;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.RouterSocket;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.XPubSocket;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpCodec;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.zmtp.interop.ByteMessages.b;
import static io.zmtp.interop.ByteMessages.eventually;
import static io.zmtp.interop.ByteMessages.msg;
import static io.zmtp.interop.ByteMessages.assertMessage;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The libzmq socket options whose effect shows on the wire, each between a socket of ours and a
 * libzmq socket: CONFLATE, PROBE_ROUTER, CONNECT_ROUTING_ID, ROUTER_NOTIFY, XPUB_WELCOME_MSG,
 * XPUB_MANUAL, XPUB_NODROP and INVERT_MATCHING (docs/socket-options.md).
 */
class SocketOptionsInteropTest extends LibzmqTestBase {
    private static final AtomicInteger IDS = new AtomicInteger();
    private static final Duration T = Duration.ofMillis(ByteMessages.T);

    /** A libzmq socket (linger 0, reconnect 20 ms); returns its id in the peer. */
    static String libzmq(String type) {
        String id = type.toLowerCase() + "o" + IDS.incrementAndGet();
        zmq.socket(id, type).opt(id, "LINGER", 0).opt(id, "RECONNECT_IVL", 20);
        return id;
    }

    ZmtpSocket ours(SocketType type, SocketOptions.Builder options) {
        return ctx.socket(type, options.linger(Duration.ZERO).reconnectInterval(Duration.ofMillis(20))
                .reconnectIntervalMax(Duration.ofMillis(200)).build());
    }

    BlockingSocket blocking(SocketType type, SocketOptions.Builder options) {
        return BlockingSocket.wrap(ours(type, options));
    }

    static <V> V onLoop(ZmtpSocket s, Callable<V> task) {
        try {
            return s.eventLoop().submit(task).get(ByteMessages.T, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static <V> V get(Future<V> f) {
        try {
            return f.get(ByteMessages.T, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static List<byte[]> frames(ZmtpMessage m) {
        try {
            List<byte[]> l = new ArrayList<>();
            for (int i = 0; i < m.size(); i++) {
                l.add(m.frameBytes(i));
            }
            return l;
        } finally {
            m.release();
        }
    }

    static List<byte[]> receive(BlockingSocket s) {
        ZmtpMessage m = s.receive(T);
        if (m == null) {
            throw new AssertionError(s + " received nothing within " + T);
        }
        return frames(m);
    }

    /** Collects a reactor socket's messages. */
    static final class Inbox {
        final BlockingQueue<List<byte[]>> queue = new LinkedBlockingQueue<>();

        List<byte[]> next() {
            try {
                List<byte[]> m = queue.poll(ByteMessages.T, TimeUnit.MILLISECONDS);
                if (m == null) {
                    throw new AssertionError("no message within " + ByteMessages.T + " ms");
                }
                return m;
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    static Inbox inbox(ZmtpSocket s) {
        Inbox in = new Inbox();
        s.onMessage(m -> in.queue.add(frames(m)));
        return in;
    }

    // ------------------------------------------------------------------ CONFLATE

    /**
     * Our SUB with CONFLATE, fed by a libzmq PUB: once every message has reached the socket
     * (counted by a handler of ours between the codec and the socket), exactly one waits for the
     * application, the last one. Without CONFLATE the first would be the oldest.
     */
    @Test
    void conflatingSubKeepsOnlyTheLastMessageOfALibzmqPublisher() throws Exception {
        BlockingSocket sub = blocking(SocketType.SUB, SocketOptions.builder().conflate(true));
        ZmtpSocket socket = sub.socket();
        AtomicInteger arrived = new AtomicInteger();
        // our own server channel, so that a handler can count what reaches the socket
        Channel server = new ServerBootstrap().group(socket.eventLoop(), socket.eventLoop())
                .channel(ctx.transport().tcpServerChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new ZmtpCodec(socket.zmtpOptions()), new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext c, Object m) {
                                if (m instanceof ZmtpMessage && ((ZmtpMessage) m).frame(0).getByte(0) == 'm') {
                                    arrived.incrementAndGet();
                                }
                                c.fireChannelRead(m);
                            }
                        }, socket.newPeerHandler());
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        try {
            sub.subscribe("");
            String pub = libzmq("PUB");
            zmq.opt(pub, "SNDHWM", 0);
            zmq.connect(pub, "tcp://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort());
            // the subscription has reached libzmq once a probe comes through
            List<byte[]> probe = null;
            for (int i = 0; probe == null && i < 200; i++) {
                zmq.sendStrings(pub, "~probe");
                ZmtpMessage m = sub.receive(Duration.ofMillis(50));
                probe = m == null ? null : frames(m);
            }
            assertTrue(probe != null, "no probe reached our SUB");
            int count = 5000;
            zmq.call("sendseq " + pub + " m " + count);
            eventually(() -> "all " + count + " messages reached our SUB, " + arrived.get() + " did",
                    () -> arrived.get() >= count);
            // probes still in flight before the sequence are conflated away too
            assertMessage(msg("m" + (count - 1)), receive(sub), "the last message, the only one kept");
            assertNull(sub.tryReceive(), "nothing else waits");
        } finally {
            server.close().sync();
        }
    }

    /** Our PUSH with CONFLATE sends only the last of the messages it was given before it had a peer. */
    @Test
    void conflatingPushHandsOnlyTheLastWaitingMessageToALibzmqPull() {
        String pull = libzmq("PULL");
        String ep = zmq.bind(pull, "tcp://127.0.0.1:*");
        ZmtpSocket push = ours(SocketType.PUSH, SocketOptions.builder().conflate(true));
        List<Future<Void>> sends = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            sends.add(push.send("n" + i));
        }
        assertTrue(onLoop(push, () -> push.blockedSends() == 1), "one message waits for a peer, the last");
        for (int i = 0; i < 99; i++) {
            assertTrue(sends.get(i).isSuccess(), "a replaced send is done (conflated away)");
        }
        get(push.connect(ep));
        assertEquals(List.of("n99"), zmq.recvStrings(pull, ByteMessages.T));
        push.send("after");
        assertEquals(List.of("after"), zmq.recvStrings(pull, ByteMessages.T));
    }

    // ------------------------------------------------------------------ PROBE_ROUTER

    /** With PROBE_ROUTER our ROUTER, DEALER and REQ greet a libzmq ROUTER with an empty message. */
    @ParameterizedTest
    @EnumSource(value = SocketType.class, names = {"ROUTER", "DEALER", "REQ"})
    void probeRouterSendsAnEmptyMessageToALibzmqRouter(SocketType type) {
        String router = libzmq("ROUTER");
        String ep = zmq.bind(router, "tcp://127.0.0.1:*");
        ZmtpSocket ours = ours(type, SocketOptions.builder().identity("prober").probeRouter(true));
        get(ours.connect(ep));
        assertEquals(List.of("prober", ""), zmq.recvStrings(router, ByteMessages.T));
        if (type == SocketType.ROUTER) {
            return; // a ROUTER would need the libzmq ROUTER's id to say more
        }
        // the probe did not count as a request: REQ may send its first one
        ours.send("request");
        assertEquals(type == SocketType.REQ ? List.of("prober", "", "request") : List.of("prober", "request"),
                zmq.recvStrings(router, ByteMessages.T));
    }

    /** libzmq's PROBE_ROUTER reaches our ROUTER as the same message, [id, empty]. */
    @Test
    void libzmqProbeReachesOurRouter() {
        ZmtpSocket router = ours(SocketType.ROUTER, SocketOptions.builder());
        Inbox in = inbox(router);
        String ep = get(router.bind("tcp://127.0.0.1:0"));
        String dealer = libzmq("DEALER");
        zmq.opt(dealer, "ROUTING_ID", b("theirs")).opt(dealer, "PROBE_ROUTER", 1).connect(dealer, ep);
        assertMessage(msg("theirs", ""), in.next(), "libzmq's probe");
    }

    // ------------------------------------------------------------------ CONNECT_ROUTING_ID

    /**
     * Our ROUTER connects to a libzmq ROUTER under a routing id of its choosing: messages to the
     * peer are addressed by it, and the peer's replies arrive under it.
     */
    @Test
    void connectRoutingIdNamesALibzmqRouter() {
        String theirs = libzmq("ROUTER");
        zmq.opt(theirs, "ROUTING_ID", b("announced"));
        String ep = zmq.bind(theirs, "tcp://127.0.0.1:*");
        RouterSocket router = (RouterSocket) ours(SocketType.ROUTER, SocketOptions.builder().identity("ours"));
        Inbox in = inbox(router);
        BlockingQueue<SocketEvent> events = new LinkedBlockingQueue<>();
        router.monitor(e -> {
            if (e.type() == SocketEvent.Type.HANDSHAKE_SUCCEEDED) {
                events.add(e);
            }
        });
        get(router.connect(ep, b("chosen")));
        eventually("the peer is routed by the id we chose",
                () -> onLoop(router, () -> router.hasPeer(b("chosen")) && !router.hasPeer(b("announced"))));
        router.send("chosen", "hello");
        assertEquals(List.of("ours", "hello"), zmq.recvStrings(theirs, ByteMessages.T));
        zmq.sendStrings(theirs, "ours", "back");
        assertMessage(msg("chosen", "back"), in.next(), "the reply under the chosen id");
        assertEquals("chosen", new String(events.poll().routingId().bytes(), StandardCharsets.UTF_8));
    }

    /** libzmq's CONNECT_ROUTING_ID against our ROUTER: our ROUTER is addressed by the name libzmq chose. */
    @Test
    void libzmqConnectRoutingIdAddressesOurRouter() {
        RouterSocket router = (RouterSocket) ours(SocketType.ROUTER, SocketOptions.builder().identity("announced"));
        Inbox in = inbox(router);
        String ep = get(router.bind("tcp://127.0.0.1:0"));
        String theirs = libzmq("ROUTER");
        zmq.opt(theirs, "ROUTING_ID", b("theirs")).opt(theirs, "CONNECT_ROUTING_ID", b("named")).connect(theirs, ep);
        zmq.sendStrings(theirs, "named", "hi");
        assertMessage(msg("theirs", "hi"), in.next(), "libzmq routed by its chosen name");
    }

    // ------------------------------------------------------------------ ROUTER_NOTIFY

    /** Our ROUTER with ROUTER_NOTIFY tells the application as libzmq DEALERs come and go. */
    @Test
    void routerNotifyReportsLibzmqDealersComingAndGoing() {
        ZmtpSocket router = ours(SocketType.ROUTER, SocketOptions.builder()
                .routerNotify(SocketOptions.NOTIFY_CONNECT | SocketOptions.NOTIFY_DISCONNECT));
        Inbox in = inbox(router);
        String ep = get(router.bind("tcp://127.0.0.1:0"));
        String d1 = libzmq("DEALER");
        zmq.opt(d1, "ROUTING_ID", b("d1")).connect(d1, ep);
        assertMessage(msg("d1", ""), in.next(), "d1 connected");
        String d2 = libzmq("DEALER");
        zmq.opt(d2, "ROUTING_ID", b("d2")).connect(d2, ep);
        assertMessage(msg("d2", ""), in.next(), "d2 connected");
        zmq.sendStrings(d1, "work");
        assertMessage(msg("d1", "work"), in.next(), "a message between the notifications");
        zmq.close(d1);
        assertMessage(msg("d1", ""), in.next(), "d1 disconnected");
        zmq.close(d2);
        assertMessage(msg("d2", ""), in.next(), "d2 disconnected");
    }

    /** Only the events asked for: NOTIFY_DISCONNECT alone says nothing on connect. */
    @Test
    void routerNotifyDisconnectOnly() {
        ZmtpSocket router = ours(SocketType.ROUTER, SocketOptions.builder().routerNotify(SocketOptions.NOTIFY_DISCONNECT));
        Inbox in = inbox(router);
        String ep = get(router.bind("tcp://127.0.0.1:0"));
        String d = libzmq("DEALER");
        zmq.opt(d, "ROUTING_ID", b("only")).connect(d, ep);
        zmq.sendStrings(d, "first");
        assertMessage(msg("only", "first"), in.next(), "no connect notification before the first message");
        zmq.close(d);
        assertMessage(msg("only", ""), in.next(), "the disconnect notification");
    }

    // ------------------------------------------------------------------ XPUB_WELCOME_MSG

    @Test
    void libzmqWelcomeMessageReachesOurSub() {
        String xpub = libzmq("XPUB");
        zmq.opt(xpub, "XPUB_WELCOME_MSG", b("WELCOME"));
        String ep = zmq.bind(xpub, "tcp://127.0.0.1:*");
        BlockingSocket sub = blocking(SocketType.SUB, SocketOptions.builder());
        sub.subscribe("WEL");
        sub.connect(ep);
        // a libzmq socket attaches new peers (and sends its welcome) when its application calls it
        assertMessage(msg("\u0001WEL"), zmq.recv(xpub, ByteMessages.T), "our subscription reached libzmq");
        assertMessage(msg("WELCOME"), receive(sub), "libzmq's welcome");
    }

    @Test
    void ourWelcomeMessageReachesALibzmqSub() {
        ZmtpSocket xpub = ours(SocketType.XPUB, SocketOptions.builder().xpubWelcomeMessage("WELCOME"));
        Inbox in = inbox(xpub);
        String ep = get(xpub.bind("tcp://127.0.0.1:0"));
        String sub = libzmq("SUB");
        zmq.subscribe(sub, b("WEL")).connect(sub, ep);
        assertEquals(List.of("WELCOME"), zmq.recvStrings(sub, ByteMessages.T));
        assertMessage(msg("\u0001WEL"), in.next(), "the subscription still reaches the application");
        // a second subscriber gets its own welcome
        String other = libzmq("SUB");
        zmq.subscribe(other, new byte[0]).connect(other, ep);
        assertEquals(List.of("WELCOME"), zmq.recvStrings(other, ByteMessages.T));
    }

    // ------------------------------------------------------------------ XPUB_MANUAL

    /**
     * XPUB_MANUAL: a libzmq SUB's subscriptions reach the application and change nothing; the
     * application's subscribe, made in its handler, decides what that SUB receives.
     */
    @Test
    void manualXpubFiltersAsTheApplicationDecides() {
        XPubSocket xpub = (XPubSocket) ours(SocketType.XPUB, SocketOptions.builder().xpubManual(true));
        Inbox in = new Inbox();
        xpub.onMessage(m -> {
            List<byte[]> f = frames(m);
            if (f.get(0).length > 0 && f.get(0)[0] == 1) {
                xpub.subscribe("A");   // whatever the peer asked for, it gets A
            }
            in.queue.add(f);
        });
        String ep = get(xpub.bind("tcp://127.0.0.1:0"));
        String sub = libzmq("SUB");
        zmq.subscribe(sub, new byte[0]).connect(sub, ep);
        assertMessage(msg("\u0001"), in.next(), "the SUB's subscription, passed on");
        assertEquals(1, onLoop(xpub, xpub::subscriptionCount), "the filter holds what the application chose");
        xpub.send("B1");
        xpub.send("A1");
        assertEquals(List.of("A1"), zmq.recvStrings(sub, ByteMessages.T), "B1 was not for it, whatever it asked");
        zmq.subscribe(sub, new byte[0]);
        assertMessage(msg("\u0001"), in.next(), "a repeated subscription is passed on too");
        zmq.unsubscribe(sub, new byte[0]);
        zmq.unsubscribe(sub, new byte[0]);
        assertMessage(msg("\u0000"), in.next(), "libzmq's last cancel is passed on");
        assertEquals(1, onLoop(xpub, xpub::subscriptionCount), "and changes nothing");
        zmq.subscribe(sub, b("Z"));
        assertMessage(msg("\u0001Z"), in.next(), "a new prefix");
        zmq.close(sub);
        assertMessage(msg("\u0000Z"), in.next(), "the departed SUB's prefix is cancelled for the application");
        eventually("the filter forgets the departed SUB", () -> onLoop(xpub, xpub::subscriptionCount) == 0);
    }

    // ------------------------------------------------------------------ XPUB_NODROP

    /**
     * XPUB_NODROP: our XPUB at a slow libzmq SUB's high-water mark holds sends back instead of
     * dropping them, and every message arrives once the SUB reads.
     */
    @Test
    void noDropXpubHoldsSendsForASlowLibzmqSub() {
        ZmtpSocket xpub = ours(SocketType.XPUB, SocketOptions.builder().xpubNoDrop(true).sendHwm(10)
                .sendBuffer(16 * 1024));
        Inbox subs = inbox(xpub);
        String ep = get(xpub.bind("tcp://127.0.0.1:0"));
        String sub = libzmq("SUB");
        zmq.opt(sub, "RCVHWM", 10).opt(sub, "RCVBUF", 16 * 1024).subscribe(sub, new byte[0]).connect(sub, ep);
        assertMessage(msg("\u0001"), subs.next(), "subscribed");
        int count = 2000;
        byte[] body = new byte[1024];
        List<Future<Void>> sends = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            sends.add(xpub.send(ZmtpMessage.of(body.clone())));
        }
        // 2 MiB cannot fit in 10 + 10 messages and two 16 KiB socket buffers: sends must wait
        eventually("sends wait at the mark", () -> onLoop(xpub, xpub::blockedSends) > 0);
        // each message may take up to 10 s to come; then a short window in which one more would show
        assertEquals(count + "", zmq.call("drain " + sub + " 10000 " + count, 120_000), "every message arrived");
        assertEquals("0", zmq.call("drain " + sub + " 200", 120_000), "and no more");
        for (Future<Void> f : sends) {
            assertTrue(f.awaitUninterruptibly(10_000) && f.isSuccess(), "every send completed");
        }
    }

    /** Without XPUB_NODROP the same XPUB never makes a send wait: what a full subscriber cannot take is dropped. */
    @Test
    void withoutNoDropTheXpubDropsForTheSlowSub() {
        ZmtpSocket xpub = ours(SocketType.XPUB, SocketOptions.builder().sendHwm(10).sendBuffer(16 * 1024));
        Inbox subs = inbox(xpub);
        String ep = get(xpub.bind("tcp://127.0.0.1:0"));
        String sub = libzmq("SUB");
        zmq.opt(sub, "RCVHWM", 10).opt(sub, "RCVBUF", 16 * 1024).subscribe(sub, new byte[0]).connect(sub, ep);
        assertMessage(msg("\u0001"), subs.next(), "subscribed");
        int count = 2000;
        byte[] body = new byte[1024];
        Future<Void> last = null;
        for (int i = 0; i < count; i++) {
            last = xpub.send(ZmtpMessage.of(body.clone()));
        }
        get(last);
        assertEquals(0, onLoop(xpub, xpub::blockedSends));
        int received = Integer.parseInt(zmq.call("drain " + sub + " 1000", 120_000));
        assertTrue(received < count, "messages were dropped: " + received + " of " + count + " arrived");
    }

    // ------------------------------------------------------------------ INVERT_MATCHING

    /** A libzmq PUB with INVERT_MATCHING feeds our inverted SUB what does not match its prefix. */
    @Test
    void invertedLibzmqPubToOurInvertedSub() {
        String pub = libzmq("PUB");
        zmq.opt(pub, "INVERT_MATCHING", 1);
        String ep = zmq.bind(pub, "tcp://127.0.0.1:*");
        BlockingSocket sub = blocking(SocketType.SUB, SocketOptions.builder().invertMatching(true));
        sub.subscribe("A");
        sub.connect(ep);
        // "~" matches no subscription, so probes get through once libzmq has the subscription
        List<byte[]> got = null;
        for (int i = 0; got == null && i < 200; i++) {
            zmq.sendStrings(pub, "~probe");
            ZmtpMessage m = sub.receive(Duration.ofMillis(50));
            got = m == null ? null : frames(m);
        }
        assertTrue(got != null, "no probe arrived");
        zmq.sendStrings(pub, "A1").sendStrings(pub, "B1");
        List<byte[]> next;
        do {
            next = receive(sub);
        } while (new String(next.get(0), StandardCharsets.UTF_8).startsWith("~"));
        assertMessage(msg("B1"), next, "only what does not start with A");
    }

    /** Our inverted PUB to an inverted libzmq SUB subscribed to A: only B arrives. */
    @Test
    void ourInvertedPubToAnInvertedLibzmqSub() {
        ZmtpSocket pub = ours(SocketType.PUB, SocketOptions.builder().invertMatching(true));
        String ep = get(pub.bind("tcp://127.0.0.1:0"));
        String sub = libzmq("SUB");
        zmq.opt(sub, "INVERT_MATCHING", 1).subscribe(sub, b("A")).connect(sub, ep);
        eventually("subscribed", () -> onLoop(pub, () -> ((io.zmtp.socket.PubSocket) pub).subscriptionCount()) == 1);
        pub.send("A1");
        pub.send("B1");
        assertEquals(List.of("B1"), zmq.recvStrings(sub, ByteMessages.T));
    }

    /** Our inverted PUB sends each message to the inverted libzmq SUBs whose prefix does not match it. */
    @Test
    void ourInvertedPubSkipsSubscribersWhosePrefixMatches() {
        ZmtpSocket pub = ours(SocketType.PUB, SocketOptions.builder().invertMatching(true));
        String ep = get(pub.bind("tcp://127.0.0.1:0"));
        String subA = libzmq("SUB");
        zmq.opt(subA, "INVERT_MATCHING", 1).subscribe(subA, b("A")).connect(subA, ep);
        String subB = libzmq("SUB");
        zmq.opt(subB, "INVERT_MATCHING", 1).subscribe(subB, b("B")).connect(subB, ep);
        eventually("subscribed", () -> onLoop(pub, () -> ((io.zmtp.socket.PubSocket) pub).subscriptionCount()) == 2);
        pub.send("A1");
        pub.send("B1");
        pub.send("C1");
        assertEquals(List.of("B1"), zmq.recvStrings(subA, ByteMessages.T), "A1 skipped the A subscriber");
        assertEquals(List.of("C1"), zmq.recvStrings(subA, ByteMessages.T));
        assertEquals(List.of("A1"), zmq.recvStrings(subB, ByteMessages.T), "B1 skipped the B subscriber");
        assertEquals(List.of("C1"), zmq.recvStrings(subB, ByteMessages.T));
    }
}
