package io.zmtp.socket;

import io.netty.channel.EventLoop;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.security.PlainAccounts;
import io.zmtp.security.PlainMechanism;
import io.zmtp.testing.Await;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our sockets against each other over ws:// (ZWS 2.0): request-reply, pub-sub with prefix
 * filtering, frames on both sides of the copy threshold and larger than a WebSocket length byte,
 * PLAIN and CURVE on top, several paths on one port, a path bound nowhere (404), reconnect after
 * the bound side goes away, and the message size limit enforced on a WebSocket peer while a good
 * peer of the same socket is served.
 */
class WebSocketTransportTest {
    static final Duration T = Duration.ofSeconds(10);
    ZmtpContext ctx;

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() {
        ctx.close(Duration.ofSeconds(5));
    }

    @Test
    void endpointKeepsItsPathAndReportsTheBoundPort() {
        BlockingSocket router = ctx.blocking(SocketType.ROUTER);
        String ep = router.bind("ws://127.0.0.1:0/zmq");
        assertTrue(ep.matches("ws://127\\.0\\.0\\.1:\\d+/zmq") && !ep.contains(":0/"), ep);
        BlockingSocket pub = ctx.blocking(SocketType.PUB);
        String noPath = pub.bind("ws://127.0.0.1:0");
        assertTrue(noPath.endsWith("/"), noPath);
    }

    @Test
    void dealerToRouterAndBackWithSmallAndLargeFrames() {
        BlockingSocket router = ctx.blocking(SocketType.ROUTER);
        String ep = router.bind("ws://127.0.0.1:0/rr");
        BlockingSocket dealer = ctx.blocking(SocketType.DEALER, SocketOptions.builder().identity("D1").build());
        dealer.connect(ep);
        Random r = new Random(1);
        for (int size : new int[] {0, 1, 125, 126, 255, 256, 1024, 1025, 65535, 65536, 300_000}) {
            byte[] body = new byte[size];
            r.nextBytes(body);
            dealer.send(ZmtpMessage.of("head".getBytes(StandardCharsets.UTF_8), body));
            ZmtpMessage m = router.receive(T);
            try {
                assertEquals(3, m.size(), "size " + size);
                assertEquals("D1", new String(m.frameBytes(0), StandardCharsets.UTF_8));
                assertArrayEquals(body, m.frameBytes(2), "body of " + size + " bytes");
            } finally {
                m.release();
            }
            router.send(ZmtpMessage.of("D1".getBytes(StandardCharsets.UTF_8), body, new byte[0]));
            ZmtpMessage back = dealer.receive(T);
            try {
                assertEquals(2, back.size());
                assertArrayEquals(body, back.frameBytes(0), "reply of " + size + " bytes");
            } finally {
                back.release();
            }
        }
    }

    @Test
    void reqToRepAlternates() {
        BlockingSocket rep = ctx.blocking(SocketType.REP);
        String ep = rep.bind("ws://127.0.0.1:0/");
        BlockingSocket req = ctx.blocking(SocketType.REQ);
        req.connect(ep);
        for (int i = 0; i < 50; i++) {
            req.send("ping", Integer.toString(i));
            assertEquals(List.of("ping", Integer.toString(i)), rep.receiveStrings(T));
            rep.send("pong", Integer.toString(i));
            assertEquals(List.of("pong", Integer.toString(i)), req.receiveStrings(T));
        }
    }

    @Test
    void pubToSubFiltersByPrefix() {
        BlockingSocket pub = ctx.blocking(SocketType.PUB);
        String ep = pub.bind("ws://127.0.0.1:0/feed");
        BlockingSocket sub = ctx.blocking(SocketType.SUB);
        sub.connect(ep);
        sub.subscribe("A");
        Await.until("the subscription arrived", () -> {
            pub.send("B", "not for us");
            pub.send("A", "for us");
            return sub.hasMessage();
        });
        List<String> got = sub.receiveStrings(T);
        assertEquals(List.of("A", "for us"), got);
        sub.unsubscribe("A".getBytes(StandardCharsets.UTF_8));
        sub.subscribe("C");
        // Retries of "for us" taken before the cancel may still be queued (the SUB filters what
        // arrives after it): skip those and nothing else until the first message for C.
        long deadline = System.nanoTime() + T.toNanos();
        List<String> next;
        do {
            assertTrue(System.nanoTime() < deadline, "the new subscription arrived within " + T);
            pub.send("A", "no more");
            pub.send("C", "now this");
            next = sub.receiveStrings(Duration.ofMillis(20));
            if (next != null && !next.equals(List.of("C", "now this"))) {
                assertEquals(List.of("A", "for us"), next, "only retries from before the cancel come before C");
            }
        } while (!List.of("C", "now this").equals(next));
    }

    @ParameterizedTest
    @ValueSource(strings = {"PLAIN", "CURVE"})
    void securityMechanismsRunOnTop(String mechanism) {
        SocketOptions.Builder server = SocketOptions.builder();
        SocketOptions.Builder client = SocketOptions.builder();
        if (mechanism.equals("PLAIN")) {
            server.mechanism(PlainMechanism.server(PlainAccounts.of(java.util.Map.of("alice", "secret"))));
            client.mechanism(PlainMechanism.client("alice", "secret"));
        } else {
            CurveKeyPair serverKeys = CurveKeyPair.generate();
            server.mechanism(CurveMechanism.server(serverKeys, io.zmtp.security.Authenticator.allowAll()));
            client.mechanism(CurveMechanism.client(serverKeys.publicKey(), CurveKeyPair.generate()));
        }
        BlockingSocket router = ctx.blocking(SocketType.ROUTER, server.build());
        String ep = router.bind("ws://127.0.0.1:0/secure");
        BlockingSocket dealer = ctx.blocking(SocketType.DEALER, client.identity("D").build());
        dealer.connect(ep);
        dealer.send("hello");
        ZmtpMessage m = router.receive(T);
        try {
            assertEquals("hello", new String(m.frameBytes(1), StandardCharsets.UTF_8));
            if (mechanism.equals("PLAIN")) {
                assertEquals("alice", m.properties().userId());
            }
        } finally {
            m.release();
        }
        router.send("D", "world");
        assertEquals(List.of("world"), dealer.receiveStrings(T));
    }

    @Test
    void severalPathsShareOnePort() throws Exception {
        EventLoop loop = ctx.group().next();
        BlockingSocket a = BlockingSocket.wrap(ctx.socket(SocketType.PULL, SocketOptions.DEFAULTS, loop));
        BlockingSocket b = BlockingSocket.wrap(ctx.socket(SocketType.PULL, SocketOptions.DEFAULTS, loop));
        String epA = a.bind("ws://127.0.0.1:0/a");
        int port = URI.create(epA).getPort();
        String epB = b.bind("ws://127.0.0.1:" + port + "/b");
        String epA2 = a.bind("ws://127.0.0.1:" + port + "/a2");
        assertEquals("ws://127.0.0.1:" + port + "/b", epB);
        BlockingSocket toA = ctx.blocking(SocketType.PUSH);
        BlockingSocket toB = ctx.blocking(SocketType.PUSH);
        BlockingSocket toA2 = ctx.blocking(SocketType.PUSH);
        toA.connect(epA);
        toB.connect(epB);
        toA2.connect(epA2);
        toA.send("to a");
        toB.send("to b");
        toA2.send("to a2");
        List<String> atA = new ArrayList<>();
        atA.add(a.receiveStrings(T).get(0));
        atA.add(a.receiveStrings(T).get(0));
        atA.sort(null);
        assertEquals(List.of("to a", "to a2"), atA);
        assertEquals(List.of("to b"), b.receiveStrings(T));
        // Unbinding one path leaves the others served.
        b.socket().unbind(epB).get();
        toA.send("still here");
        assertEquals(List.of("still here"), a.receiveStrings(T));
        assertTrue(httpStatus(port, "/b").startsWith("HTTP/1.1 404"), "an unbound path is not found");
    }

    /** docs/NETTY.md: ZMTP on WebSocket in a server pipeline of one's own, with the public helpers. */
    @Test
    void webSocketHandlersInAnApplicationsOwnPipeline() throws Exception {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER);
        io.netty.channel.Channel server = new io.netty.bootstrap.ServerBootstrap()
                .group(router.eventLoop(), router.eventLoop())
                .channel(ctx.transport().tcpServerChannel())
                .childHandler(new io.netty.channel.ChannelInitializer<io.netty.channel.Channel>() {
                    @Override
                    protected void initChannel(io.netty.channel.Channel ch) {
                        io.zmtp.transport.WebSocketTransport.addServerHandlers(ch.pipeline(), "/zmq", router.zmtpOptions());
                        ch.pipeline().addLast(new io.zmtp.wire.ZmtpCodec(router.zmtpOptions()), router.newPeerHandler());
                    }
                }).bind(new java.net.InetSocketAddress("127.0.0.1", 0)).sync().channel();
        try {
            int port = ((java.net.InetSocketAddress) server.localAddress()).getPort();
            BlockingSocket r = BlockingSocket.wrap(router);
            BlockingSocket dealer = ctx.blocking(SocketType.DEALER, SocketOptions.builder().identity("D").build());
            dealer.connect("ws://127.0.0.1:" + port + "/zmq");
            dealer.send("over my own pipeline");
            assertEquals(List.of("D", "over my own pipeline"), r.receiveStrings(T));
            assertTrue(httpStatus(port, "/other").startsWith("HTTP/1.1 404"), "another path is not found");
        } finally {
            server.close().sync();
        }
    }

    @Test
    void aPathBoundNowhereIsAnswered404() throws Exception {
        BlockingSocket pull = ctx.blocking(SocketType.PULL);
        String ep = pull.bind("ws://127.0.0.1:0/here");
        int port = URI.create(ep).getPort();
        assertTrue(httpStatus(port, "/elsewhere").startsWith("HTTP/1.1 404"));
    }

    @Test
    void reconnectsWhenTheBinderComesBack() {
        BlockingSocket pull = ctx.blocking(SocketType.PULL);
        String ep = pull.bind("ws://127.0.0.1:0/r");
        BlockingSocket push = ctx.blocking(SocketType.PUSH, SocketOptions.builder()
                .reconnectInterval(Duration.ofMillis(20)).reconnectIntervalMax(Duration.ofMillis(100)).build());
        push.connect(ep);
        push.send("first");
        assertEquals(List.of("first"), pull.receiveStrings(T));
        pull.close(Duration.ZERO);
        BlockingSocket again = ctx.blocking(SocketType.PULL);
        Await.until("the port is bound again", () -> {
            try {
                again.bind(ep);
                return true;
            } catch (RuntimeException e) {
                return false;
            }
        });
        // Until the push has reconnected, a send could still go to the old connection, which is
        // closing (and a message on a pipe that dies is lost, as in libzmq): wait for the new one.
        SocketTesting.awaitPeers(again.socket(), 1);
        push.send("second");
        assertEquals(List.of("second"), again.receiveStrings(T));
    }

    @Test
    void aMessagePastTheLimitClosesThatPeerOnly() {
        List<SocketEvent> events = new CopyOnWriteArrayList<>();
        BlockingSocket pull = ctx.blocking(SocketType.PULL, SocketOptions.builder().maxMessageSize(10_000).build());
        pull.socket().monitor(events::add);
        String ep = pull.bind("ws://127.0.0.1:0/limit");
        BlockingSocket bad = ctx.blocking(SocketType.PUSH);
        BlockingSocket good = ctx.blocking(SocketType.PUSH);
        List<SocketEvent> goodEvents = new CopyOnWriteArrayList<>();
        good.socket().monitor(goodEvents::add);
        bad.connect(ep);
        good.connect(ep);
        Await.until("both peers connected", () -> pull.socket().metrics().peers() == 2);
        bad.send(ZmtpMessage.of(new byte[20_000]));
        Await.until("the oversized peer was disconnected", () -> events.stream()
                .anyMatch(e -> e.type() == SocketEvent.Type.DISCONNECTED));
        good.send("fine");
        assertEquals(List.of("fine"), pull.receiveStrings(T));
        assertNull(pull.receiveStrings(Duration.ofMillis(100)), "nothing of the oversized message arrived");
        // had the good peer's connection been closed too, both events would have come before "fine"
        assertEquals(1, events.stream().filter(e -> e.type() == SocketEvent.Type.DISCONNECTED).count(),
                "one peer disconnected: " + events);
        assertTrue(goodEvents.stream().noneMatch(e -> e.type() == SocketEvent.Type.DISCONNECTED),
                "the good peer's connection stayed up: " + goodEvents);
    }

    /**
     * High-water marks hold over ws:// as over tcp://: a receiver that does not consume makes the
     * sender's sends wait (none lost, none failed), and once it consumes every message arrives in
     * order.
     */
    @ParameterizedTest
    @ValueSource(strings = {"ws://127.0.0.1:0/hwm", "tcp://127.0.0.1:0"})
    void sendsWaitAtTheHighWaterMarkThenAllArriveInOrder(String bindAt) throws Exception {
        // PUSH binds: the WebSocket server sends unmasked frames. (A client masks every byte, which
        // Netty's paranoid leak detector, on in tests, makes about fifty times slower.)
        ZmtpSocket push = ctx.socket(SocketType.PUSH, SocketOptions.builder().sendHwm(4).build());
        String ep = SocketTesting.get(push.bind(bindAt));
        ZmtpSocket pull = ctx.socket(SocketType.PULL, SocketOptions.builder().receiveHwm(4).build());
        SocketTesting.get(pull.connect(ep));
        int n = 400;
        byte[] body = new byte[64 * 1024];
        List<io.netty.util.concurrent.Future<Void>> sends = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            body[0] = (byte) i;
            body[1] = (byte) (i >> 8);
            sends.add(push.send(ZmtpMessage.of(body.clone())));
        }
        Await.until("sends wait at the mark", () -> SocketTesting.onLoop(push, push::blockedSends) > 0);
        assertTrue(sends.stream().noneMatch(f -> f.isDone() && !f.isSuccess()), "no send failed while waiting");
        java.util.concurrent.BlockingQueue<Integer> order = new java.util.concurrent.LinkedBlockingQueue<>();
        pull.onMessage(m -> {
            try {
                io.netty.buffer.ByteBuf f = m.frame(0);
                order.add(f.getUnsignedByte(f.readerIndex()) | f.getUnsignedByte(f.readerIndex() + 1) << 8);
            } finally {
                m.release();
            }
        });
        for (int i = 0; i < n; i++) {
            assertEquals(i, order.poll(T.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS), "message " + i + " in order");
        }
        Await.until("every send completed", () -> sends.stream().allMatch(io.netty.util.concurrent.Future::isSuccess));
    }

    @Test
    void atMaxConnectionsANewConnectionEvictsThePeerHeardFromLongestAgoAfterItsUpgradeRequest() throws Exception {
        List<SocketEvent> events = new CopyOnWriteArrayList<>();
        BlockingSocket pull = ctx.blocking(SocketType.PULL, SocketOptions.builder().maxConnections(1).build());
        pull.socket().monitor(events::add);
        String ep = pull.bind("ws://127.0.0.1:0/few");
        // the evicted peer waits 10 s before it reconnects (and would in turn evict the newer one)
        BlockingSocket first = ctx.blocking(SocketType.PUSH, SocketOptions.builder()
                .reconnectInterval(Duration.ofSeconds(10)).reconnectIntervalMax(Duration.ofSeconds(10)).build());
        first.connect(ep);
        first.send("first");
        assertEquals(List.of("first"), pull.receiveStrings(T));
        BlockingSocket second = ctx.blocking(SocketType.PUSH);
        second.connect(ep);
        second.send("second");
        assertEquals(List.of("second"), pull.receiveStrings(T));
        Await.until("the first connection was evicted", () -> events.stream()
                .anyMatch(e -> e.type() == SocketEvent.Type.EVICTED));
        first.send("first again");
        assertNull(pull.receiveStrings(Duration.ofMillis(200)), "the evicted peer is not connected");
    }

    /** A WebSocket client of the JDK, collecting binary messages and noting its close. */
    static final class RawZws implements java.net.http.WebSocket.Listener {
        final java.util.concurrent.BlockingQueue<byte[]> received = new java.util.concurrent.LinkedBlockingQueue<>();
        final java.util.concurrent.CompletableFuture<Integer> closed = new java.util.concurrent.CompletableFuture<>();
        private final java.io.ByteArrayOutputStream partial = new java.io.ByteArrayOutputStream();
        java.net.http.WebSocket ws;

        static RawZws open(String endpoint, String subprotocol) throws Exception {
            RawZws l = new RawZws();
            l.ws = java.net.http.HttpClient.newHttpClient().newWebSocketBuilder().subprotocols(subprotocol)
                    .buildAsync(URI.create(endpoint), l).get(T.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            return l;
        }

        void sendFrame(int flags, String body) throws Exception {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(1 + b.length).put((byte) flags).put(b).flip();
            ws.sendBinary(buf, true).get(T.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }

        byte[] next() throws InterruptedException {
            return received.poll(T.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }

        @Override
        public java.util.concurrent.CompletionStage<?> onBinary(java.net.http.WebSocket w, java.nio.ByteBuffer data, boolean last) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            partial.writeBytes(b);
            if (last) {
                received.add(partial.toByteArray());
                partial.reset();
            }
            w.request(1);
            return null;
        }

        @Override
        public java.util.concurrent.CompletionStage<?> onClose(java.net.http.WebSocket w, int status, String reason) {
            closed.complete(status);
            return null;
        }

        @Override
        public void onError(java.net.http.WebSocket w, Throwable error) {
            closed.complete(-1);
        }
    }

    static String text(byte[] zwsFrame) {
        return zwsFrame[0] + ":" + new String(zwsFrame, 1, zwsFrame.length - 1, StandardCharsets.UTF_8);
    }

    /**
     * The raw ZWS2.0 subprotocol (jszmq's): no mechanism, no commands, each side's first message
     * is its routing id; the peer's id becomes its identity at our ROUTER.
     */
    @Test
    void rawZws20SubprotocolExchangesRoutingIdsThenMessages() throws Exception {
        BlockingSocket router = ctx.blocking(SocketType.ROUTER, SocketOptions.builder().identity("R").build());
        String ep = router.bind("ws://127.0.0.1:0/raw");
        RawZws peer = RawZws.open(ep, "ZWS2.0");
        assertEquals("ZWS2.0", peer.ws.getSubprotocol());
        peer.sendFrame(0, "browser-1");                 // our routing id
        peer.sendFrame(1, "");                          // a request: delimiter, then body
        peer.sendFrame(0, "hello");
        assertEquals("0:R", text(peer.next()), "the ROUTER's routing id comes first");
        assertEquals(List.of("browser-1", "", "hello"), router.receiveStrings(T));
        router.send("browser-1", "", "world");
        assertEquals("1:", text(peer.next()));
        assertEquals("0:world", text(peer.next()));
    }

    /** Text, fragmented and empty WebSocket messages are not ZWS frames: that peer is closed, others served. */
    @ParameterizedTest
    @ValueSource(strings = {"text", "fragment", "empty", "command-on-raw"})
    void badWebSocketMessagesCloseThatPeerOnly(String kind) throws Exception {
        BlockingSocket pull = ctx.blocking(SocketType.PULL);
        String ep = pull.bind("ws://127.0.0.1:0/bad");
        BlockingSocket good = ctx.blocking(SocketType.PUSH);
        List<SocketEvent> goodEvents = new CopyOnWriteArrayList<>();
        good.socket().monitor(goodEvents::add);
        good.connect(ep);
        good.send("before");
        assertEquals(List.of("before"), pull.receiveStrings(T), "the good peer is connected before the bad one comes");
        RawZws bad = RawZws.open(ep, "ZWS2.0");
        bad.sendFrame(0, "");                           // routing id
        switch (kind) {
            case "text":
                bad.ws.sendText("hello", true).get();
                break;
            case "fragment":
                bad.ws.sendBinary(java.nio.ByteBuffer.wrap(new byte[] {0, 'a'}), false).get();
                try {
                    bad.ws.sendBinary(java.nio.ByteBuffer.wrap(new byte[] {'b'}), true).get();
                } catch (java.util.concurrent.ExecutionException closedAlready) {
                    // the server may have closed on the first fragment already (it did over io_uring)
                    assertTrue(closedAlready.getCause() instanceof java.io.IOException, closedAlready::toString);
                }
                break;
            case "empty":
                bad.ws.sendBinary(java.nio.ByteBuffer.allocate(0), true).get();
                break;
            default:
                bad.sendFrame(2, "\u0005READY");       // a command where the raw subprotocol has none
                break;
        }
        bad.closed.get(T.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        good.send("still served");
        assertEquals(List.of("still served"), pull.receiveStrings(T));
        assertNull(pull.receiveStrings(Duration.ofMillis(100)), "nothing from the bad peer");
        assertTrue(goodEvents.stream().noneMatch(e -> e.type() == SocketEvent.Type.DISCONNECTED),
                "the good peer's connection stayed up: " + goodEvents);
    }

    /** The status line a plain HTTP GET of {@code path} gets. */
    static String httpStatus(int port, String path) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout((int) T.toMillis());
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + "Sec-WebSocket-Protocol: ZWS2.0/NULL\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) != -1 && c != '\r') {
                line.append((char) c);
            }
            return line.toString();
        }
    }
}
