package io.zmtp.socket;

import io.netty.util.concurrent.Future;
import io.zmtp.testing.PeerBytes;
import io.zmtp.testing.RawPeer;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.zmtp.socket.SocketTesting.T;
import static io.zmtp.socket.SocketTesting.awaitPeers;
import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static io.zmtp.socket.SocketTesting.onLoop;
import static io.zmtp.socket.SocketTesting.peers;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZMTP 3.1's thread-safe types built here (CLIENT/SERVER, PEER, SCATTER/GATHER, CHANNEL) against
 * each other over tcp, ipc and inproc: routing ids, the single-frame rule both ways, PEER's ids
 * across reconnects, and the peer-type checks.
 */
class DraftSocketsTest {
    private static final SocketType[] BUILT = {SocketType.SERVER, SocketType.CLIENT, SocketType.PEER,
            SocketType.SCATTER, SocketType.GATHER, SocketType.CHANNEL};

    ZmtpContext ctx;
    @TempDir
    Path tmp;

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() {
        ctx.close(Duration.ofSeconds(5));
    }

    private String endpoint(String transport) {
        return switch (transport) {
            case "tcp" -> "tcp://127.0.0.1:0";
            case "ipc" -> "ipc://" + tmp.resolve("s-" + System.nanoTime() + ".ipc");
            default -> "inproc://draft-" + System.nanoTime();
        };
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ CLIENT and SERVER

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc", "inproc"})
    void aServerAnswersTwoClientsEachByItsRoutingId(String transport) {
        BlockingSocket server = ctx.blocking(SocketType.SERVER);
        String ep = server.bind(endpoint(transport));
        BlockingSocket a = ctx.blocking(SocketType.CLIENT).connect(ep);
        BlockingSocket b = ctx.blocking(SocketType.CLIENT).connect(ep);
        awaitPeers(server.socket(), 2);
        Set<Integer> ids = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            a.send("a" + i);
            b.send("b" + i);
            for (int k = 0; k < 2; k++) {
                String got = server.recvStr(T);
                int id = server.recvRoutingId();
                assertNotEquals(0, id, "every message a SERVER receives carries its peer's id");
                ids.add(id);
                server.sendTo(id, utf8("re:" + got));
            }
            assertEquals("re:a" + i, a.recvStr(T), "each reply reaches the client that asked");
            assertEquals("re:b" + i, b.recvStr(T));
            assertEquals(0, a.recvRoutingId(), "a CLIENT's messages carry no id (over inproc neither)");
        }
        assertEquals(2, ids.size(), "one id per client, kept for its connection: " + ids);
    }

    @Test
    void aReactorServerRepliesFromItsHandlerWithTheReceivedId() {
        ServerSocket server = ctx.server(SocketOptions.DEFAULTS);
        server.onMessage(m -> {
            int id = m.routingId();
            String body = m.frameString(0);
            m.release();
            server.send(ZmtpMessage.of(utf8(body.toUpperCase())).routingId(id));
        });
        String ep = get(server.bind("tcp://127.0.0.1:0"));
        BlockingSocket client = ctx.blocking(SocketType.CLIENT).connect(ep);
        for (int i = 0; i < 3; i++) {
            client.send("hello" + i);
            assertEquals("HELLO" + i, client.recvStr(T));
        }
    }

    @Test
    void aPolledServerTellsTheIdOfWhatItReceived() {
        BlockingSocket server = ctx.blocking(SocketType.SERVER);
        String ep = server.bind("inproc://polled");
        BlockingSocket client = ctx.blocking(SocketType.CLIENT).connect(ep);
        try (ZmtpPoller poller = new ZmtpPoller()) {
            int index = poller.register(server);
            client.send("ping");
            assertEquals(1, poller.poll(T));
            assertTrue(poller.readable(index));
            ZmtpMessage m = server.receive(T);
            assertEquals(m.routingId(), server.recvRoutingId());
            server.send(ZmtpMessage.of(utf8("pong")).routingId(m.routingId()));
            m.release();
        }
        assertEquals("pong", client.recvStr(T));
    }

    @Test
    void aSendToAnIdNotConnectedIsUnroutable() {
        BlockingSocket server = ctx.blocking(SocketType.SERVER);
        String ep = server.bind("tcp://127.0.0.1:0");
        BlockingSocket client = ctx.blocking(SocketType.CLIENT).connect(ep);
        client.send("hi");
        assertEquals("hi", server.recvStr(T));
        int id = server.recvRoutingId();
        assertThrows(UnroutableMessageException.class, () -> server.sendTo(id + 1, utf8("lost")));
        assertThrows(UnroutableMessageException.class, () -> server.send("no id"), "id 0 names nobody");
        Future<Void> reactor = server.socket().send(ZmtpMessage.of(utf8("x")).routingId(id + 1));
        reactor.awaitUninterruptibly(T.toMillis());
        assertInstanceOf(UnroutableMessageException.class, reactor.cause());
        server.sendTo(id, utf8("still served"));
        assertEquals("still served", client.recvStr(T));
    }

    @Test
    void aMultipartSendThrowsAndLeavesTheMessageTheCallers() {
        for (SocketType t : BUILT) {
            ZmtpSocket s = ctx.socket(t);
            ZmtpMessage m = ZmtpMessage.ofStrings("one", "two");
            assertThrows(IllegalArgumentException.class, () -> s.send(m), t.toString());
            assertEquals(1, m.refCnt(), t + ": not released");
            assertEquals(List.of("one", "two"), List.of(m.frameString(0), m.frameString(1)), t + ": untouched");
            assertThrows(IllegalArgumentException.class, () -> onLoop(s, () -> s.trySend(m)), t.toString());
            assertEquals(1, m.refCnt(), t + ": trySend did not take it either");
            BlockingSocket blocking = BlockingSocket.wrap(s);
            assertThrows(IllegalArgumentException.class, () -> blocking.send(m), t.toString());
            assertEquals(1, m.refCnt(), t + ": nor the blocking send");
            assertThrows(IllegalArgumentException.class, () -> blocking.sendMore("a").send("b"), t.toString());
            assertThrows(IllegalArgumentException.class, () -> blocking.send("a", "b"), t.toString());
            assertThrows(IllegalArgumentException.class, () -> s.send("a", "b"), t.toString());
            m.release();
            get(s.close(Duration.ZERO));
        }
        // The rule is the thread-safe types': a DEALER still sends multipart messages.
        ZmtpSocket dealer = ctx.socket(SocketType.DEALER);
        ZmtpMessage m = ZmtpMessage.ofStrings("one", "two");
        assertFalse(onLoop(dealer, () -> dealer.trySend(m)), "taken as it is, waiting for a peer");
        m.release();
    }

    @Test
    void aMultipartMessageFromAHostilePeerIsDroppedAndCountedWhileAGoodClientIsServed() throws Exception {
        BlockingSocket server = ctx.blocking(SocketType.SERVER);
        String ep = server.bind("tcp://127.0.0.1:0");
        BlockingSocket good = ctx.blocking(SocketType.CLIENT).connect(ep);
        try (RawPeer hostile = RawPeer.connect(RawPeer.port(ep), 0)) {
            hostile.handshake("CLIENT");
            hostile.send(PeerBytes.create()
                    .frame(true, "part1").frame(false, "part2")
                    .frame(true, "x").frame(true, "y").frame(false, "z")
                    .frame(false, "single").toArray());
            good.send("good");
            List<String> got = new ArrayList<>();
            got.add(server.recvStr(T));
            int firstId = server.recvRoutingId();
            got.add(server.recvStr(T));
            int secondId = server.recvRoutingId();
            assertEquals(Set.of("good", "single"), Set.copyOf(got), "only the single-frame messages arrive");
            int goodId = got.get(0).equals("good") ? firstId : secondId;
            eventually(() -> "two multipart messages dropped: " + server.socket().metrics(),
                    () -> server.socket().metrics().multipartDrops() == 2);
            assertTrue(server.socket().metrics().toLine().contains("multipart-drops=2"));
            server.sendTo(goodId, utf8("served"));
            assertEquals("served", good.recvStr(T));
            assertEquals(2, peers(server.socket()), "the hostile peer's connection stays, as in libzmq");
            assertNull(server.recv(Duration.ofMillis(50)), "no frame of a multipart message got through");
        }
    }

    // ------------------------------------------------------------------ PEER

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc", "inproc"})
    void peersTalkByTheIdsConnectPeerReturns(String transport) {
        BlockingSocket bound = ctx.blocking(SocketType.PEER);
        String ep = bound.bind(endpoint(transport));
        BlockingSocket connecting = ctx.blocking(SocketType.PEER);
        int id = connecting.connectPeer(ep);
        assertNotEquals(0, id);
        for (int i = 0; i < 5; i++) {
            connecting.sendTo(id, utf8("ask" + i));
            assertEquals("ask" + i, bound.recvStr(T));
            bound.sendTo(bound.recvRoutingId(), utf8("answer" + i));
            assertEquals("answer" + i, connecting.recvStr(T));
            assertEquals(id, connecting.recvRoutingId(), "the answer comes from the id connectPeer gave");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc"})
    void aConnectPeerIdIsKeptAcrossAReconnect(String transport) {
        BlockingSocket first = ctx.blocking(SocketType.PEER);
        String ep = first.bind(endpoint(transport));
        PeerSocket peer = ctx.peer(SocketOptions.builder().reconnectInterval(Duration.ofMillis(20)).build());
        BlockingSocket connecting = BlockingSocket.wrap(peer);
        int id = connecting.connectPeer(ep);
        connecting.sendTo(id, utf8("before"));
        assertEquals("before", first.recvStr(T));

        first.close(Duration.ZERO);
        eventually("the peer saw the connection go", () -> !onLoop(peer, () -> peer.hasPeer(id)));
        assertThrows(UnroutableMessageException.class, () -> connecting.sendTo(id, utf8("while down")),
                "a send to a kept id whose connection is down fails at once");

        BlockingSocket second = ctx.blocking(SocketType.PEER);
        assertEquals(ep, second.bind(ep), "the same endpoint bound again");
        eventually("the endpoint reconnected", () -> onLoop(peer, () -> peer.hasPeer(id)));
        connecting.sendTo(id, utf8("after"));
        assertEquals("after", second.recvStr(T), "the same id reaches the peer behind the endpoint");
        second.sendTo(second.recvRoutingId(), utf8("back"));
        assertEquals("back", connecting.recvStr(T));
        assertEquals(id, connecting.recvRoutingId());
    }

    @Test
    void connectPeerFailsWhenDisconnectedOrClosedFirst() {
        PeerSocket peer = ctx.peer(SocketOptions.DEFAULTS);
        Future<Integer> gone = peer.connectPeer("tcp://127.0.0.1:1"); // nobody listens there
        get(peer.disconnect("tcp://127.0.0.1:1"));
        gone.awaitUninterruptibly(T.toMillis());
        assertInstanceOf(IllegalStateException.class, gone.cause(), "disconnected before its peer came");
        Future<Integer> f = peer.connectPeer("tcp://127.0.0.1:1");
        peer.close(Duration.ZERO);
        f.awaitUninterruptibly(T.toMillis());
        assertInstanceOf(SocketClosedException.class, f.cause());
        assertThrows(UnsupportedOperationException.class, () -> ctx.blocking(SocketType.SERVER).connectPeer("inproc://x"));
    }

    // ------------------------------------------------------------------ SCATTER and GATHER

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc", "inproc"})
    void aScatterRoundRobinsOverTwoGathers(String transport) throws Exception {
        ZmtpSocket scatter = ctx.socket(SocketType.SCATTER);
        String ep = get(scatter.bind(endpoint(transport)));
        LinkedBlockingQueue<String> one = new LinkedBlockingQueue<>();
        LinkedBlockingQueue<String> two = new LinkedBlockingQueue<>();
        GatherSocket g1 = ctx.gather(SocketOptions.DEFAULTS);
        GatherSocket g2 = ctx.gather(SocketOptions.DEFAULTS);
        g1.onMessage(m -> one.add(SocketTesting.strings(m).get(0)));
        g2.onMessage(m -> two.add(SocketTesting.strings(m).get(0)));
        get(g1.connect(ep));
        get(g2.connect(ep));
        awaitPeers(scatter, 2);
        for (int i = 0; i < 10; i++) {
            get(scatter.send("m" + i));
        }
        Set<String> all = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            all.add(one.poll(T.toMillis(), TimeUnit.MILLISECONDS));
            all.add(two.poll(T.toMillis(), TimeUnit.MILLISECONDS));
        }
        all.remove(null);
        assertEquals(10, all.size(), "five each, every message once: " + all);
        assertThrows(UnsupportedOperationException.class, () -> onLoop(g1, () -> g1.trySend(ZmtpMessage.ofStrings("x"))),
                "a GATHER cannot send");
    }

    // ------------------------------------------------------------------ CHANNEL

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc", "inproc"})
    void aChannelTalksToItsOnePeer(String transport) {
        BlockingSocket bound = ctx.blocking(SocketType.CHANNEL);
        String ep = bound.bind(endpoint(transport));
        BlockingSocket first = ctx.blocking(SocketType.CHANNEL).connect(ep);
        awaitPeers(bound.socket(), 1);
        for (int i = 0; i < 5; i++) {
            first.send("ping" + i);
            assertEquals("ping" + i, bound.recvStr(T));
            bound.send("pong" + i);
            assertEquals("pong" + i, first.recvStr(T));
        }
        BlockingSocket second = ctx.blocking(SocketType.CHANNEL).connect(ep);
        eventually("the second channel is connected at its end", () -> second.socket().metrics().handshakesSucceeded() >= 1);
        bound.send("to the first");
        assertEquals("to the first", first.recvStr(T), "the first peer stays the one peer");
        assertEquals(1, peers(bound.socket()));
    }

    // ------------------------------------------------------------------ peer types

    @Test
    void aClientIsRefusedByARouterAsInvalidPairsAre() {
        BlockingSocket router = ctx.blocking(SocketType.ROUTER);
        String ep = router.bind("tcp://127.0.0.1:0");
        ZmtpSocket client = ctx.socket(SocketType.CLIENT, SocketOptions.builder()
                .reconnectInterval(Duration.ofMillis(10)).build());
        SocketTesting.Events events = new SocketTesting.Events(client);
        get(client.connect(ep));
        events.await(SocketEvent.Type.RECONNECT_STOPPED);
        assertTrue(events.first(SocketEvent.Type.RECONNECT_STOPPED).reason().contains("cannot talk"),
                events.seen.toString());
        assertEquals(0, peers(router.socket()));
    }

    @Test
    void inprocRefusesAServerAndADealer() {
        ZmtpSocket server = ctx.socket(SocketType.SERVER);
        get(server.bind("inproc://server"));
        ZmtpSocket dealer = ctx.socket(SocketType.DEALER);
        SocketTesting.Events events = new SocketTesting.Events(dealer);
        get(dealer.connect("inproc://server"));
        events.await(SocketEvent.Type.HANDSHAKE_FAILED);
        assertTrue(events.first(SocketEvent.Type.HANDSHAKE_FAILED).reason().contains("cannot talk"),
                events.seen.toString());
        assertEquals(0, peers(server));
    }

    @Test
    void theTypesAreMadeByTheirFactoriesToo() {
        assertEquals(SocketType.SERVER, ctx.server(SocketOptions.DEFAULTS).type());
        assertEquals(SocketType.CLIENT, ctx.client(SocketOptions.DEFAULTS).type());
        assertEquals(SocketType.PEER, ctx.peer(SocketOptions.DEFAULTS).type());
        assertEquals(SocketType.SCATTER, ctx.scatter(SocketOptions.DEFAULTS).type());
        assertEquals(SocketType.GATHER, ctx.gather(SocketOptions.DEFAULTS).type());
        assertEquals(SocketType.CHANNEL, ctx.channel(SocketOptions.DEFAULTS).type());
        assertArrayEquals(new boolean[] {false, false, false},
                new boolean[] {ctx.client(SocketOptions.builder().conflate(true).build()).conflating(),
                        ctx.scatter(SocketOptions.builder().conflate(true).build()).conflating(),
                        ctx.gather(SocketOptions.builder().conflate(true).build()).conflating()},
                "CONFLATE leaves CLIENT, SCATTER and GATHER alone, as in libzmq");
        assertNotNull(ctx.socket(SocketType.PEER));
    }
}
