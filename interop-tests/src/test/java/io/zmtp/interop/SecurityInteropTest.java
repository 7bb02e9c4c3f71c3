package io.zmtp.interop;

import io.zmtp.security.Authenticator;
import io.zmtp.security.CurveAllowList;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.wire.Mechanism;
import io.zmtp.wire.NullMechanism;
import io.zmtp.security.PlainMechanism;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.HandshakeCompleted;
import io.zmtp.wire.HeartbeatPolicy;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpOptions;
import io.zmtp.wire.ZmtpSubscription;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.zmtp.interop.WireInteropTest.assertFrames;
import static io.zmtp.interop.WireInteropTest.bytes;
import static io.zmtp.interop.WireInteropTest.concat;
import static io.zmtp.interop.WireInteropTest.frames;
import static io.zmtp.interop.WireInteropTest.message;
import static io.zmtp.interop.WireInteropTest.messages;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PLAIN and CURVE through the wire codec alone against real libzmq 4.3.4, with us as server and
 * as client. libzmq's servers run with a ZAP handler (in the driver) that knows user "admin" with
 * password "secret" and the CURVE client keys each test allows; everyone else is refused.
 */
class SecurityInteropTest {
    static final String USER = "admin";
    static final String PASSWORD = "secret";
    static final byte[] SECRET_PAYLOAD = bytes("TOP-SECRET-PAYLOAD-7f3a9c");

    static LibzmqPeer zmq;

    @BeforeAll
    static void startPeer() {
        zmq = LibzmqPeer.start();
        zmq.zapStart().zapAllowPlain(USER, PASSWORD);
    }

    @AfterAll
    static void stopPeer() {
        zmq.close();
    }

    static int port(String endpoint) {
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    static ZmtpOptions opts(SocketType type, Mechanism m) {
        return ZmtpOptions.builder(type).mechanism(m).build();
    }

    /** Our server mechanism, and the user id it will give the libzmq client configured to match. */
    record OurServer(Mechanism mechanism, String userId) {
    }

    /**
     * Configures libzmq socket {@code id} as a client of {@code mechanism} that our server accepts.
     * CURVE: our server uses a key pair libzmq generated; the libzmq client uses keys we generated.
     */
    static OurServer ourServerFor(String mechanism, String id) {
        if (mechanism.equals("PLAIN")) {
            zmq.optText(id, "PLAIN_USERNAME", USER).optText(id, "PLAIN_PASSWORD", PASSWORD);
            return new OurServer(PlainMechanism.server(Authenticator.plainAccounts(Map.of(USER, PASSWORD))), USER);
        }
        String[] libzmqKeys = zmq.curveKeypair();
        CurveKeyPair serverKeys = CurveKeyPair.fromSecretKey(libzmqKeys[1]);
        assertEquals(libzmqKeys[0], serverKeys.publicKeyZ85(), "we derive libzmq's public key from its secret");
        CurveKeyPair clientKeys = CurveKeyPair.generate();
        zmq.optText(id, "CURVE_SERVERKEY", libzmqKeys[0])
                .optText(id, "CURVE_PUBLICKEY", clientKeys.publicKeyZ85())
                .optText(id, "CURVE_SECRETKEY", clientKeys.secretKeyZ85());
        return new OurServer(CurveMechanism.server(serverKeys, CurveAllowList.of(List.of(clientKeys.publicKey()))),
                clientKeys.publicKeyZ85());
    }

    /** Our client mechanism; for CURVE also the server key and client keys it was made with. */
    record OurClient(Mechanism mechanism, byte[] serverKey, CurveKeyPair clientKeys) {
    }

    /**
     * Configures libzmq socket {@code id} as a {@code mechanism} server that accepts the client
     * returned. CURVE: libzmq's server uses keys we generated; our client uses a key pair libzmq
     * generated, allowed by the ZAP handler.
     */
    static OurClient ourClient(String mechanism, String id) {
        if (mechanism.equals("PLAIN")) {
            zmq.opt(id, "PLAIN_SERVER", 1);
            return new OurClient(PlainMechanism.client(USER, PASSWORD), null, null);
        }
        CurveKeyPair serverKeys = CurveKeyPair.generate();
        zmq.opt(id, "CURVE_SERVER", 1).optText(id, "CURVE_SECRETKEY", serverKeys.secretKeyZ85());
        String[] libzmqKeys = zmq.curveKeypair();
        zmq.zapAllowCurve(libzmqKeys[0]);
        CurveKeyPair clientKeys = CurveKeyPair.fromSecretKey(libzmqKeys[1]);
        return new OurClient(CurveMechanism.client(serverKeys.publicKey(), clientKeys), serverKeys.publicKey(),
                clientKeys);
    }

    static Mechanism ourClientFor(String mechanism, String id) {
        return ourClient(mechanism, id).mechanism();
    }

    // ------------------------------------------------------------------ DEALER / ROUTER

    @ParameterizedTest
    @ValueSource(strings = {"PLAIN", "CURVE"})
    void libzmqDealerToOurRouter(String mechanism) throws Exception {
        zmq.socket("dealer", "DEALER").opt("dealer", "IDENTITY", bytes("py-dealer"));
        OurServer server = ourServerFor(mechanism, "dealer");
        try (RawConnection us = RawConnection.bind(opts(SocketType.ROUTER, server.mechanism()))) {
            zmq.connect("dealer", us.endpoint());
            HandshakeCompleted hc = us.awaitHandshake();
            assertEquals(mechanism, hc.mechanism());
            assertEquals(server.userId(), hc.userId(), "the authenticated user id");
            assertEquals("py-dealer", new String(hc.peerIdentity(), StandardCharsets.UTF_8));
            for (byte[][] msg : messages()) {
                zmq.send("dealer", msg);
                ZmtpMessage got = us.receive(10_000);
                assertNotNull(got);
                assertEquals(server.userId(), got.properties().userId(), "User-Id on every message");
                assertFrames(msg, got);
                us.send(message(msg));
                assertFrames(msg, zmq.recv("dealer", 10_000));
            }
        } finally {
            zmq.close("dealer");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"PLAIN", "CURVE"})
    void ourDealerToLibzmqRouter(String mechanism) throws Exception {
        zmq.socket("router", "ROUTER");
        Mechanism client = ourClientFor(mechanism, "router");
        int port = port(zmq.bind("router", "tcp://127.0.0.1:*"));
        ZmtpOptions opts = ZmtpOptions.builder(SocketType.DEALER).identity("java-dealer").mechanism(client).build();
        try (RawConnection us = RawConnection.connect(opts, "127.0.0.1", port)) {
            HandshakeCompleted hc = us.awaitHandshake();
            assertEquals(mechanism, hc.mechanism());
            assertEquals(SocketType.ROUTER, hc.peerSocketType());
            for (byte[][] msg : messages()) {
                us.send(message(msg));
                assertFrames(concat(bytes("java-dealer"), msg), zmq.recv("router", 10_000));
                zmq.send("router", concat(bytes("java-dealer"), msg));
                assertFrames(msg, us.receive(10_000));
            }
            assertTrue(zmq.zapLog().contains(mechanism + ":200"), "libzmq asked its ZAP handler: " + zmq.zapLog());
        } finally {
            zmq.close("router");
        }
    }

    // ------------------------------------------------------------------ REQ / REP

    @ParameterizedTest
    @ValueSource(strings = {"PLAIN", "CURVE"})
    void ourReqToLibzmqRep(String mechanism) throws Exception {
        zmq.socket("rep", "REP");
        Mechanism client = ourClientFor(mechanism, "rep");
        int port = port(zmq.bind("rep", "tcp://127.0.0.1:*"));
        try (RawConnection us = RawConnection.connect(opts(SocketType.REQ, client), "127.0.0.1", port)) {
            us.awaitHandshake();
            for (byte[][] msg : messages()) {
                us.send(message(concat(new byte[0], msg))); // REQ puts the empty delimiter first
                List<byte[]> req = zmq.recv("rep", 10_000);
                assertFrames(msg, req);
                zmq.send("rep", req.toArray(new byte[0][]));
                assertFrames(concat(new byte[0], msg), us.receive(10_000));
            }
        } finally {
            zmq.close("rep");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"PLAIN", "CURVE"})
    void libzmqReqToOurRep(String mechanism) throws Exception {
        zmq.socket("req", "REQ");
        OurServer server = ourServerFor(mechanism, "req");
        try (RawConnection us = RawConnection.bind(opts(SocketType.REP, server.mechanism()))) {
            zmq.connect("req", us.endpoint());
            assertEquals(SocketType.REQ, us.awaitHandshake().peerSocketType());
            for (byte[][] msg : messages()) {
                zmq.send("req", msg);
                ZmtpMessage req = us.receive(10_000);
                assertNotNull(req);
                byte[][] got = frames(req);
                req.release();
                assertArrayEquals(concat(new byte[0], msg), got, "libzmq REQ sends an empty delimiter");
                us.send(message(got));
                assertFrames(msg, zmq.recv("req", 10_000));
            }
        } finally {
            zmq.close("req");
        }
    }

    // ------------------------------------------------------------------ PUB / SUB

    @ParameterizedTest
    @ValueSource(strings = {"PLAIN", "CURVE"})
    void ourSubscriptionReachesLibzmqPub(String mechanism) throws Exception {
        zmq.socket("pub", "PUB");
        Mechanism client = ourClientFor(mechanism, "pub");
        int port = port(zmq.bind("pub", "tcp://127.0.0.1:*"));
        try (RawConnection us = RawConnection.connect(opts(SocketType.SUB, client), "127.0.0.1", port)) {
            us.awaitHandshake();
            us.write(ZmtpSubscription.subscribe(bytes("news")));
            // libzmq filters on our subscription once it has arrived: publish until a match gets through
            ZmtpMessage got = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (got == null && System.nanoTime() < deadline) {
                zmq.sendStrings("pub", "other topic");
                zmq.sendStrings("pub", "news 1");
                got = us.receive(100);
            }
            assertNotNull(got, "a matching message arrived");
            do {
                try {
                    assertEquals("news 1", got.frameString(0), "libzmq PUB sends only what matches our subscription");
                } finally {
                    got.release();
                }
            } while ((got = us.receive(200)) != null);
        } finally {
            zmq.close("pub");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"PLAIN", "CURVE"})
    void libzmqSubscriptionReachesOurPub(String mechanism) throws Exception {
        zmq.socket("sub", "SUB");
        OurServer server = ourServerFor(mechanism, "sub");
        try (RawConnection us = RawConnection.bind(opts(SocketType.PUB, server.mechanism()))) {
            zmq.connect("sub", us.endpoint());
            us.awaitHandshake();
            zmq.subscribe("sub", bytes("news"));
            ZmtpSubscription s = us.receiveSubscription(10_000);
            assertNotNull(s, "libzmq's SUBSCRIBE arrived");
            try {
                assertTrue(s.isSubscribe());
                assertArrayEquals(bytes("news"), s.topicBytes());
            } finally {
                s.release();
            }
            us.send(message(bytes("other")));
            us.send(message(bytes("news 2")));
            assertFrames(new byte[][] {bytes("news 2")}, zmq.recv("sub", 10_000));
            zmq.unsubscribe("sub", bytes("news"));
            ZmtpSubscription c = us.receiveSubscription(10_000);
            assertNotNull(c, "libzmq's CANCEL arrived");
            try {
                assertFalse(c.isSubscribe());
            } finally {
                c.release();
            }
        } finally {
            zmq.close("sub");
        }
    }

    // ------------------------------------------------------------------ heartbeats

    @ParameterizedTest
    @ValueSource(strings = {"PLAIN", "CURVE"})
    void libzmqHeartbeatsToUsAreAnswered(String mechanism) throws Exception {
        zmq.socket("hb", "DEALER").opt("hb", "HEARTBEAT_IVL", 50).opt("hb", "HEARTBEAT_TIMEOUT", 500).monitor("hb");
        OurServer server = ourServerFor(mechanism, "hb");
        try (RawConnection us = RawConnection.bind(opts(SocketType.ROUTER, server.mechanism()))) {
            zmq.connect("hb", us.endpoint());
            us.awaitHandshake();
            // twenty heartbeat intervals with no other traffic: libzmq drops us unless our PONGs open
            assertNull(us.receive(1000));
            assertFalse(zmq.events("hb").contains("DISCONNECTED"), "libzmq kept the connection: " + zmq.events("hb"));
            assertFalse(us.failure.isDone(), "no failure: " + us.failure.getNow(null));
            zmq.sendStrings("hb", "still here");
            assertFrames(new byte[][] {bytes("still here")}, us.receive(10_000));
        } finally {
            zmq.close("hb");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"PLAIN", "CURVE"})
    void libzmqAnswersOurHeartbeats(String mechanism) throws Exception {
        zmq.socket("quiet", "ROUTER");
        Mechanism client = ourClientFor(mechanism, "quiet");
        int port = port(zmq.bind("quiet", "tcp://127.0.0.1:*"));
        ZmtpOptions opts = ZmtpOptions.builder(SocketType.DEALER).mechanism(client)
                .heartbeat(HeartbeatPolicy.of(Duration.ofMillis(50), Duration.ofMillis(1000), Duration.ofMillis(500)))
                .build();
        try (RawConnection us = RawConnection.connect(opts, "127.0.0.1", port)) {
            us.awaitHandshake();
            // without libzmq's PONGs our own heartbeat timeout would close the connection within 550 ms
            assertNull(us.receive(1000));
            assertFalse(us.failure.isDone(), "no heartbeat failure: " + us.failure.getNow(null));
            assertTrue(us.isOpen());
        } finally {
            zmq.close("quiet");
        }
    }

    // ------------------------------------------------------------------ refused credentials

    @ParameterizedTest
    @ValueSource(strings = {"PLAIN", "CURVE"})
    void weRefuseLibzmqsWrongCredentialsWithError400(String mechanism) throws Exception {
        zmq.socket("bad", "DEALER").monitor("bad");
        OurServer server = ourServerFor(mechanism, "bad");
        if (mechanism.equals("PLAIN")) {
            zmq.optText("bad", "PLAIN_PASSWORD", "guess");
        } else {
            CurveKeyPair stranger = CurveKeyPair.generate();
            zmq.optText("bad", "CURVE_PUBLICKEY", stranger.publicKeyZ85())
                    .optText("bad", "CURVE_SECRETKEY", stranger.secretKeyZ85());
        }
        try (RawConnection us = RawConnection.bind(opts(SocketType.ROUTER, server.mechanism()))) {
            zmq.connect("bad", us.endpoint());
            ConnectionFailed f = us.failure.get(10, TimeUnit.SECONDS);
            assertEquals(ConnectionFailed.Kind.AUTHENTICATION, f.kind(), f.reason());
            assertFalse(us.handshake.isDone());
            // libzmq's PLAIN client only recognises its own malformed ERROR (5E "RROR", see
            // PlainMechanism), so it reports our well-formed one as an unexpected command.
            String expected = mechanism.equals("PLAIN") ? "HANDSHAKE_FAILED_PROTOCOL" : "HANDSHAKE_FAILED_AUTH";
            assertTrue(zmq.awaitEvent("bad", expected, 10_000), "libzmq was refused: " + zmq.events("bad"));
            assertFalse(zmq.events("bad").contains("HANDSHAKE_SUCCEEDED"));
        } finally {
            zmq.close("bad");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"PLAIN", "CURVE"})
    void libzmqRefusesOurWrongCredentials(String mechanism) throws Exception {
        zmq.socket("strict", "ROUTER").monitor("strict");
        OurClient good = ourClient(mechanism, "strict");
        Mechanism bad = mechanism.equals("PLAIN") ? PlainMechanism.client(USER, "guess")
                : CurveMechanism.client(good.serverKey(), CurveKeyPair.generate()); // a key ZAP does not know
        int port = port(zmq.bind("strict", "tcp://127.0.0.1:*"));
        try (RawConnection us = RawConnection.connect(opts(SocketType.DEALER, bad), "127.0.0.1", port)) {
            ConnectionFailed f = us.failure.get(10, TimeUnit.SECONDS);
            assertEquals(ConnectionFailed.Kind.PEER_ERROR, f.kind(), f.reason());
            assertTrue(f.reason().contains("\"400\""), f.reason());
            assertTrue(f.suppressesReconnect());
            assertFalse(us.handshake.isDone());
            assertTrue(zmq.zapLog().contains(mechanism + ":400"), "libzmq's ZAP handler refused us: " + zmq.zapLog());
        } finally {
            zmq.close("strict");
        }
    }

    // ------------------------------------------------------------------ wrong server key

    @Test
    void libzmqClientWithTheWrongServerKeyIsDropped() throws Exception {
        zmq.socket("lost", "DEALER").monitor("lost");
        OurServer server = ourServerFor("CURVE", "lost");
        zmq.optText("lost", "CURVE_SERVERKEY", CurveKeyPair.generate().publicKeyZ85());
        try (RawConnection us = RawConnection.bind(opts(SocketType.ROUTER, server.mechanism()))) {
            zmq.connect("lost", us.endpoint());
            ConnectionFailed f = us.failure.get(10, TimeUnit.SECONDS);
            assertEquals(ConnectionFailed.Kind.HANDSHAKE, f.kind());
            assertTrue(f.reason().contains("wrong server key"), f.reason());
            assertFalse(us.handshake.isDone());
            // libzmq reports the closed connection; by then a handshake it had completed would show
            assertTrue(zmq.awaitEvent("lost", "DISCONNECTED", 10_000), zmq.events("lost").toString());
            assertFalse(zmq.events("lost").contains("HANDSHAKE_SUCCEEDED"));
        } finally {
            zmq.close("lost");
        }
    }

    @Test
    void ourClientWithTheWrongServerKeyIsDroppedByLibzmq() throws Exception {
        zmq.socket("guarded", "ROUTER").monitor("guarded");
        OurClient good = ourClient("CURVE", "guarded");
        Mechanism wrong = CurveMechanism.client(CurveKeyPair.generate().publicKey(), good.clientKeys());
        int port = port(zmq.bind("guarded", "tcp://127.0.0.1:*"));
        try (RawConnection us = RawConnection.connect(opts(SocketType.DEALER, wrong), "127.0.0.1", port)) {
            ConnectionFailed f = us.failure.get(10, TimeUnit.SECONDS);
            assertEquals(ConnectionFailed.Kind.HANDSHAKE, f.kind(), f.reason());
            assertTrue(f.reason().contains("peer closed the connection during the CURVE handshake"), f.reason());
            assertFalse(f.suppressesReconnect());
            assertTrue(zmq.awaitEvent("guarded", "HANDSHAKE_FAILED_PROTOCOL", 10_000),
                    "libzmq could not open our HELLO: " + zmq.events("guarded"));
        } finally {
            zmq.close("guarded");
        }
    }

    // ------------------------------------------------------------------ what an eavesdropper sees

    static boolean contains(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** Runs a DEALER-ROUTER exchange with heartbeats through a recording relay; returns the capture. */
    static byte[] capture(String mechanism) throws Exception {
        zmq.socket("tap", "ROUTER").opt("tap", "HEARTBEAT_IVL", 50).opt("tap", "HEARTBEAT_TIMEOUT", 500);
        Mechanism client = mechanism.equals("NULL") ? NullMechanism.INSTANCE : ourClientFor(mechanism, "tap");
        int port = port(zmq.bind("tap", "tcp://127.0.0.1:*"));
        ZmtpOptions opts = ZmtpOptions.builder(SocketType.DEALER).identity("tapped").mechanism(client)
                .heartbeat(HeartbeatPolicy.of(Duration.ofMillis(50), Duration.ofMillis(1000), Duration.ofMillis(500)))
                .build();
        try (TcpRelay relay = new TcpRelay(port);
             RawConnection us = RawConnection.connect(opts, "127.0.0.1", relay.port())) {
            assertEquals(mechanism, us.awaitHandshake().mechanism());
            us.send(message(bytes("to libzmq"), SECRET_PAYLOAD));
            assertFrames(new byte[][] {bytes("tapped"), bytes("to libzmq"), SECRET_PAYLOAD}, zmq.recv("tap", 10_000));
            zmq.send("tap", bytes("tapped"), bytes("to us"), SECRET_PAYLOAD);
            assertFrames(new byte[][] {bytes("to us"), SECRET_PAYLOAD}, us.receive(10_000));
            assertNull(us.receive(500), "heartbeats only for a while");
            assertFalse(us.failure.isDone());
            return relay.captured();
        } finally {
            zmq.close("tap");
        }
    }

    @Test
    void aCurveCaptureShowsNoPayloadNorHeartbeats() throws Exception {
        byte[] seen = capture("CURVE");
        assertTrue(seen.length > 1000, "the relay saw the session (" + seen.length + " bytes)");
        assertFalse(contains(seen, SECRET_PAYLOAD), "the payload is not in the capture");
        assertFalse(contains(seen, bytes("to libzmq")));
        assertFalse(contains(seen, bytes("PING")), "PING travels inside boxes");
        assertFalse(contains(seen, bytes("PONG")));
        assertTrue(contains(seen, bytes("MESSAGE")), "what is visible: MESSAGE commands");
    }

    /** The control: the same session under NULL shows the payload and the heartbeats. */
    @Test
    void aNullCaptureShowsThePayload() throws Exception {
        byte[] seen = capture("NULL");
        assertTrue(contains(seen, SECRET_PAYLOAD));
        assertTrue(contains(seen, bytes("PING")));
    }
}
