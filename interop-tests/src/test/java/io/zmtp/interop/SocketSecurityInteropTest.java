package io.zmtp.interop;

import io.zmtp.security.Authenticator;
import io.zmtp.security.CurveAllowList;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.wire.Mechanism;
import io.zmtp.security.PlainMechanism;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.HeartbeatPolicy;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import static io.zmtp.interop.ByteMessages.assertMessage;
import static io.zmtp.interop.ByteMessages.concat;
import static io.zmtp.interop.ByteMessages.msg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * PLAIN and CURVE through the socket API ({@link io.zmtp.socket.BlockingSocket} over
 * {@link io.zmtp.socket.ZmtpSocket}) against real libzmq 4.3.4, with our socket as the
 * security server and as the client, over DEALER/ROUTER, REQ/REP and PUB/SUB (and XSUB, which
 * does not filter, to show that the publisher does).
 *
 * <p>Both ends send heartbeats every 50 ms and drop a peer silent for 200 ms after a PING, for
 * the whole exchange, which includes a quiet period of several intervals: heartbeats travel
 * inside the encryption (CURVE) and must be answered for the connection to live. Our server
 * sockets see the authenticated user id on every message. Wrong credentials and wrong keys are
 * refused both ways.
 *
 * <p>libzmq's servers ask the driver's ZAP handler, which knows user "admin" with password
 * "secret" and the CURVE client keys each test allows. In each test the libzmq side's key pair
 * comes from libzmq ({@code zmq_curve_keypair}) and ours from {@link CurveKeyPair#generate}.
 */
class SocketSecurityInteropTest {
    static final String USER = "admin";
    static final String PASSWORD = "secret";
    static final long HEARTBEAT_MS = 50;
    /** Long beside the stalls of a busy machine (a process not scheduled for a few hundred ms). */
    static final long HEARTBEAT_TIMEOUT_MS = 600;
    /** Longer than the heartbeat timeout without traffic: a connection whose PINGs went unanswered would drop. */
    static final long QUIET_MS = 700;

    static LibzmqPeer zmq;
    ZmtpContext ctx;
    final List<SocketEnd> ends = new ArrayList<>();

    @BeforeAll
    static void startPeer() {
        zmq = LibzmqPeer.start();
        zmq.zapStart().zapAllowPlain(USER, PASSWORD);
    }

    @AfterAll
    static void stopPeer() {
        zmq.close();
    }

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() {
        ends.forEach(SocketEnd::close);
        ctx.close(Duration.ofSeconds(5));
    }

    /**
     * The credentials of one test and how each side is configured with them: libzmq's key pair
     * (made by libzmq) and ours, the PLAIN account admin/secret.
     */
    static final class Credentials {
        final String mechanism;
        final String[] libzmqKeys = zmq.curveKeypair();
        final CurveKeyPair ourKeys = CurveKeyPair.generate();

        Credentials(String mechanism) {
            this.mechanism = mechanism;
        }

        boolean curve() {
            return mechanism.equals("CURVE");
        }

        /** Our server, accepting the libzmq client of {@link #libzmqClient}. */
        Mechanism ourServer() {
            return curve() ? CurveMechanism.server(ourKeys, CurveAllowList.ofZ85(libzmqKeys[0]))
                    : PlainMechanism.server(Authenticator.plainAccounts(Map.of(USER, PASSWORD)));
        }

        /** The user id our server gives the libzmq client. */
        String libzmqClientUserId() {
            return curve() ? libzmqKeys[0] : USER;
        }

        /** Makes a libzmq socket a client of our server. */
        void libzmqClient(SocketEnd.Libzmq e) {
            if (curve()) {
                zmq.optText(e.id, "CURVE_SERVERKEY", ourKeys.publicKeyZ85())
                        .optText(e.id, "CURVE_PUBLICKEY", libzmqKeys[0])
                        .optText(e.id, "CURVE_SECRETKEY", libzmqKeys[1]);
            } else {
                zmq.optText(e.id, "PLAIN_USERNAME", USER).optText(e.id, "PLAIN_PASSWORD", PASSWORD);
            }
        }

        /** Makes a libzmq socket a server that accepts our client of {@link #ourClient}. */
        void libzmqServer(SocketEnd.Libzmq e) {
            if (curve()) {
                zmq.opt(e.id, "CURVE_SERVER", 1).optText(e.id, "CURVE_SECRETKEY", libzmqKeys[1]);
                zmq.zapAllowCurve(ourKeys.publicKeyZ85());
            } else {
                zmq.opt(e.id, "PLAIN_SERVER", 1);
            }
        }

        /** Our client of the libzmq server of {@link #libzmqServer}. */
        Mechanism ourClient() {
            return curve() ? CurveMechanism.client(libzmqKeys[0], ourKeys) : PlainMechanism.client(USER, PASSWORD);
        }
    }

    SocketEnd.Ours ours(SocketType type, Mechanism mechanism, String identity) {
        SocketOptions.Builder b = SocketOptions.builder().mechanism(mechanism)
                .heartbeat(HeartbeatPolicy.of(Duration.ofMillis(HEARTBEAT_MS), Duration.ZERO,
                        Duration.ofMillis(HEARTBEAT_TIMEOUT_MS)));
        SocketEnd.Ours e = SocketEnd.ours(ctx, type, identity, b);
        ends.add(e);
        return e;
    }

    SocketEnd.Libzmq libzmq(SocketType type, String identity) {
        SocketEnd.Libzmq e = SocketEnd.libzmq(zmq, type, identity)
                .opt("HEARTBEAT_IVL", HEARTBEAT_MS).opt("HEARTBEAT_TIMEOUT", HEARTBEAT_TIMEOUT_MS);
        zmq.monitor(e.id);
        ends.add(e);
        return e;
    }

    /** Records our socket's events from now on. */
    static List<SocketEvent> events(SocketEnd.Ours ours) {
        List<SocketEvent> l = new CopyOnWriteArrayList<>();
        ours.socket().monitor(l::add);
        return l;
    }

    static long count(List<SocketEvent> events, SocketEvent.Type t) {
        return events.stream().filter(e -> e.type() == t).count();
    }

    static SocketEvent first(List<SocketEvent> events, SocketEvent.Type t) {
        ByteMessages.eventually(() -> t + " in " + events, () -> count(events, t) > 0);
        return events.stream().filter(e -> e.type() == t).findFirst().orElseThrow();
    }

    /** The next message of {@code end}; on our server, also checks the User-Id it carries. */
    static List<byte[]> receive(SocketEnd end, String userId) {
        if (!(end instanceof SocketEnd.Ours) || userId == null) {
            return end.recv();
        }
        ZmtpMessage m = ((SocketEnd.Ours) end).blocking.receive(Duration.ofMillis(ByteMessages.T));
        assertNotNull(m, end + " received nothing");
        try {
            assertEquals(userId, m.properties().userId(), "the User-Id of a message from the authenticated client");
            List<byte[]> l = new ArrayList<>();
            for (int i = 0; i < m.size(); i++) {
                l.add(m.frameBytes(i));
            }
            return l;
        } finally {
            m.release();
        }
    }

    /** One connection for the whole test, never dropped: one handshake each side, no disconnect. */
    static void assertOneSteadyConnection(List<SocketEvent> ours, SocketEnd.Libzmq theirs) {
        assertEquals(1, count(ours, SocketEvent.Type.HANDSHAKE_SUCCEEDED), "one handshake: " + ours);
        assertEquals(0, count(ours, SocketEvent.Type.DISCONNECTED), "never dropped: " + ours);
        try {
            assertTrue(zmq.awaitEvent(theirs.id, "HANDSHAKE_SUCCEEDED", ByteMessages.T), "libzmq: " + zmq.events(theirs.id));
        } catch (InterruptedException x) {
            throw new AssertionError(x);
        }
        List<String> e = zmq.events(theirs.id);
        assertEquals(1, e.stream().filter("HANDSHAKE_SUCCEEDED"::equals).count(), "libzmq: one handshake: " + e);
        assertFalse(e.contains("DISCONNECTED"), "libzmq never dropped us: " + e);
    }

    // ------------------------------------------------------------------ request-reply

    static Stream<Arguments> requestReply() {
        List<Arguments> l = new ArrayList<>();
        for (String mechanism : List.of("PLAIN", "CURVE")) {
            for (SocketType server : List.of(SocketType.ROUTER, SocketType.REP)) {
                for (boolean oursIsServer : List.of(true, false)) {
                    l.add(arguments(mechanism, server, oursIsServer ? "ours" : "libzmq"));
                }
            }
        }
        return l.stream();
    }

    /**
     * A client (DEALER or REQ, binding nothing) sends requests to a server (ROUTER or REP, bound)
     * that answers each, before and after a quiet period: the security server is the bound
     * socket, ours or libzmq's.
     */
    @ParameterizedTest(name = "{0} {1} server: {2}")
    @MethodSource("requestReply")
    void requestReplyThroughTheMechanism(String mechanism, SocketType serverType, String server) {
        Credentials c = new Credentials(mechanism);
        SocketType clientType = serverType == SocketType.ROUTER ? SocketType.DEALER : SocketType.REQ;
        boolean oursIsServer = server.equals("ours");
        String clientId = "client-" + mechanism.toLowerCase();
        SocketEnd.Ours us;
        SocketEnd.Libzmq them;
        SocketEnd serverEnd;
        SocketEnd clientEnd;
        if (oursIsServer) {
            us = ours(serverType, c.ourServer(), null);
            them = libzmq(clientType, clientId);
            c.libzmqClient(them);
            serverEnd = us;
            clientEnd = them;
        } else {
            us = ours(clientType, c.ourClient(), clientId);
            them = libzmq(serverType, null);
            c.libzmqServer(them);
            serverEnd = them;
            clientEnd = us;
        }
        List<SocketEvent> events = events(us);
        clientEnd.connect(serverEnd.bind("tcp", null));
        String userId = oursIsServer ? c.libzmqClientUserId() : null;
        List<byte[]> envelope = serverType == SocketType.ROUTER ? msg(clientId) : List.of();

        for (int i = 0; i < 3; i++) {
            roundTrip(clientEnd, serverEnd, envelope, userId, "request " + i);
        }
        assertNull(serverEnd.recv(QUIET_MS), "nothing but heartbeats for a while");
        roundTrip(clientEnd, serverEnd, envelope, userId, "after the quiet period");
        assertOneSteadyConnection(events, them);
        if (!oursIsServer) {
            assertTrue(zmq.zapLog().contains(mechanism + ":200"), "libzmq's ZAP handler let us in: " + zmq.zapLog());
        }
    }

    static void roundTrip(SocketEnd client, SocketEnd server, List<byte[]> envelope, String userId, String text) {
        List<byte[]> request = msg(text, "second frame");
        client.send(request);
        assertMessage(concat(envelope, request), receive(server, userId), server + " got the request");
        server.send(concat(envelope, msg("reply to " + text)));
        assertMessage(msg("reply to " + text), client.recv(), client + " got the reply");
    }

    // ------------------------------------------------------------------ publish-subscribe

    static Stream<Arguments> publishSubscribe() {
        List<Arguments> l = new ArrayList<>();
        for (String mechanism : List.of("PLAIN", "CURVE")) {
            for (SocketType subscriber : List.of(SocketType.SUB, SocketType.XSUB)) {
                for (boolean oursIsServer : List.of(true, false)) {
                    l.add(arguments(mechanism, subscriber, oursIsServer ? "ours" : "libzmq"));
                }
            }
        }
        return l.stream();
    }

    /**
     * The PUB (bound) is the security server, the subscriber its client. The subscription
     * travels through the mechanism and the publisher sends only what matches: an XSUB filters
     * nothing itself, so what it receives is what the publisher chose to send.
     */
    @ParameterizedTest(name = "{0} PUB-{1} publisher: {2}")
    @MethodSource("publishSubscribe")
    void subscriptionsTravelThroughTheMechanism(String mechanism, SocketType subscriberType, String server) {
        Credentials c = new Credentials(mechanism);
        boolean oursIsServer = server.equals("ours");
        SocketEnd.Ours us;
        SocketEnd.Libzmq them;
        SocketEnd pub;
        SocketEnd sub;
        if (oursIsServer) {
            us = ours(SocketType.PUB, c.ourServer(), null);
            them = libzmq(subscriberType, null);
            c.libzmqClient(them);
            pub = us;
            sub = them;
        } else {
            us = ours(subscriberType, c.ourClient(), null);
            them = libzmq(SocketType.PUB, null);
            c.libzmqServer(them);
            pub = them;
            sub = us;
        }
        List<SocketEvent> events = events(us);
        sub.connect(pub.bind("tcp", null));
        sub.subscribe("news");
        PubSubInteropTest.awaitSubscribed(pub, sub, List.of("news"));

        pub.send(msg("sport 1"));
        pub.send(msg("news 1"));
        pub.send(msg("weather 1", "sunny"));
        pub.send(msg("news 2", "more"));
        assertMessage(msg("news 1"), PubSubInteropTest.next(sub), "the first match");
        assertMessage(msg("news 2", "more"), PubSubInteropTest.next(sub), "the second match, nothing between");
        assertNull(sub.recv(QUIET_MS), "nothing else was sent; heartbeats only for a while");
        pub.send(msg("sport 2"));
        pub.send(msg("news 3"));
        assertMessage(msg("news 3"), PubSubInteropTest.next(sub), "after the quiet period, still filtered");
        assertOneSteadyConnection(events, them);
    }

    // ------------------------------------------------------------------ refused

    /** libzmq clients with a wrong password or a key we do not allow: refused, with the reason on our monitor. */
    @ParameterizedTest
    @ValueSource(strings = {"PLAIN", "CURVE"})
    void ourServerRefusesLibzmqsWrongCredentials(String mechanism) throws Exception {
        Credentials c = new Credentials(mechanism);
        SocketEnd.Ours router = ours(SocketType.ROUTER, c.ourServer(), null);
        List<SocketEvent> events = events(router);
        String ep = router.bind("tcp", null);
        SocketEnd.Libzmq dealer = libzmq(SocketType.DEALER, null);
        c.libzmqClient(dealer);
        String stranger = null;
        if (c.curve()) {
            String[] strangerKeys = zmq.curveKeypair();
            stranger = strangerKeys[0];
            zmq.optText(dealer.id, "CURVE_PUBLICKEY", strangerKeys[0]).optText(dealer.id, "CURVE_SECRETKEY", strangerKeys[1]);
        } else {
            zmq.optText(dealer.id, "PLAIN_PASSWORD", "guess");
        }
        dealer.connect(ep);

        SocketEvent failed = first(events, SocketEvent.Type.HANDSHAKE_FAILED);
        assertTrue(failed.reason().contains(c.curve() ? "is not on the allow list" : "wrong password"), failed.reason());
        assertTrue(c.curve() ? failed.reason().contains(stranger) : failed.reason().contains("user '" + USER + "'"),
                "the reason names who was refused: " + failed.reason());
        assertFalse(failed.reason().contains("guess"), "never the password: " + failed.reason());
        // libzmq's PLAIN client reads our well-formed ERROR as a protocol error (see PlainMechanism)
        String theirs = c.curve() ? "HANDSHAKE_FAILED_AUTH" : "HANDSHAKE_FAILED_PROTOCOL";
        assertTrue(zmq.awaitEvent(dealer.id, theirs, ByteMessages.T), "libzmq was refused: " + zmq.events(dealer.id));
        assertEquals(0, router.peerCount(), "no peer joined our ROUTER");
        assertEquals(0, count(events, SocketEvent.Type.HANDSHAKE_SUCCEEDED), events.toString());
    }

    /** Our clients with a wrong password or a key libzmq's ZAP handler does not know: ERROR, no retry. */
    @ParameterizedTest
    @ValueSource(strings = {"PLAIN", "CURVE"})
    void libzmqServerRefusesOurWrongCredentials(String mechanism) {
        Credentials c = new Credentials(mechanism);
        SocketEnd.Libzmq router = libzmq(SocketType.ROUTER, null);
        c.libzmqServer(router);
        Mechanism wrong = c.curve() ? CurveMechanism.client(c.libzmqKeys[0], CurveKeyPair.generate())
                : PlainMechanism.client(USER, "guess");
        SocketEnd.Ours dealer = ours(SocketType.DEALER, wrong, null);
        List<SocketEvent> events = events(dealer);
        dealer.connect(router.bind("tcp", null));

        SocketEvent stopped = first(events, SocketEvent.Type.RECONNECT_STOPPED);
        assertTrue(stopped.reason().contains("ERROR \"400\""), stopped.reason());
        SocketEvent failed = first(events, SocketEvent.Type.HANDSHAKE_FAILED);
        assertTrue(failed.reason().contains("ERROR \"400\""), "the handshake failure says why: " + failed.reason());
        assertEquals(0, dealer.peerCount());
        assertEquals(0, count(events, SocketEvent.Type.HANDSHAKE_SUCCEEDED), events.toString());
        assertTrue(zmq.zapLog().contains(mechanism + ":400"), "libzmq's ZAP handler refused us: " + zmq.zapLog());
    }

    /** A libzmq client that does not know our server key: its HELLO does not open, we close the connection. */
    @Test
    void ourCurveServerDropsALibzmqClientWithTheWrongServerKey() throws Exception {
        Credentials c = new Credentials("CURVE");
        SocketEnd.Ours router = ours(SocketType.ROUTER, c.ourServer(), null);
        List<SocketEvent> events = events(router);
        String ep = router.bind("tcp", null);
        SocketEnd.Libzmq dealer = libzmq(SocketType.DEALER, null);
        c.libzmqClient(dealer);
        zmq.optText(dealer.id, "CURVE_SERVERKEY", zmq.curveKeypair()[0]);
        dealer.connect(ep);

        SocketEvent failed = first(events, SocketEvent.Type.HANDSHAKE_FAILED);
        assertTrue(failed.reason().contains("wrong server key"), failed.reason());
        assertFalse(failed.reason().contains(c.ourKeys.secretKeyZ85()), "never the secret key");
        assertEquals(0, router.peerCount());
        // libzmq reports the closed connection; by then a handshake it had completed would show
        assertTrue(zmq.awaitEvent(dealer.id, "DISCONNECTED", 10_000), zmq.events(dealer.id).toString());
        assertFalse(zmq.events(dealer.id).contains("HANDSHAKE_SUCCEEDED"), zmq.events(dealer.id).toString());
    }

    /** Our client with the wrong server key: libzmq closes without a word; we report it and retry later. */
    @Test
    void libzmqCurveServerDropsOurClientWithTheWrongServerKey() throws Exception {
        Credentials c = new Credentials("CURVE");
        SocketEnd.Libzmq router = libzmq(SocketType.ROUTER, null);
        c.libzmqServer(router);
        SocketEnd.Ours dealer = ours(SocketType.DEALER,
                CurveMechanism.client(CurveKeyPair.generate().publicKey(), c.ourKeys), null);
        List<SocketEvent> events = events(dealer);
        dealer.connect(router.bind("tcp", null));

        SocketEvent failed = first(events, SocketEvent.Type.HANDSHAKE_FAILED);
        assertEquals("peer closed the connection during the CURVE handshake", failed.reason());
        first(events, SocketEvent.Type.RECONNECT_SCHEDULED);
        assertEquals(0, count(events, SocketEvent.Type.RECONNECT_STOPPED), "no ERROR, so no reason to give up");
        assertTrue(zmq.awaitEvent(router.id, "HANDSHAKE_FAILED_PROTOCOL", ByteMessages.T), zmq.events(router.id).toString());
        assertEquals(0, dealer.peerCount());
    }
}
