package io.zmtp.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.zmtp.testing.CodecPair;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.HandshakeCompleted;
import io.zmtp.wire.HeartbeatPolicy;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpOptions;
import io.zmtp.wire.ZmtpSubscription;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import io.zmtp.wire.Mechanism;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Our client against our server, PLAIN and CURVE, through two codecs shuttling bytes. */
class SecureConnectionTest {
    static final byte[] SECRET = "TOP-SECRET-PAYLOAD-0123456789".getBytes(StandardCharsets.US_ASCII);

    final CurveKeyPair serverKeys = CurveKeyPair.generate();
    final CurveKeyPair clientKeys = CurveKeyPair.generate();

    static ZmtpOptions opts(SocketType type, Mechanism m) {
        return ZmtpOptions.builder(type).mechanism(m).build();
    }

    CurveMechanism curveServer() {
        return CurveMechanism.server(serverKeys, CurveAllowList.of(List.of(clientKeys.publicKey())));
    }

    CurveMechanism curveClient() {
        return CurveMechanism.client(serverKeys.publicKey(), clientKeys);
    }

    static ZmtpMessage message(byte[]... frames) {
        ZmtpMessage m = ZmtpMessage.newMessage();
        for (byte[] f : frames) {
            ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(f.length);
            b.writeBytes(f);
            m.add(b);
        }
        return m;
    }

    static List<byte[][]> messages() {
        byte[] mib = new byte[1024 * 1024];
        new Random(5).nextBytes(mib);
        return List.of(new byte[][] {SECRET}, new byte[][] {"a".getBytes(), new byte[0], "ccc".getBytes()},
                new byte[][] {new byte[0]}, new byte[][] {"big".getBytes(), mib});
    }

    /** Sends each message both ways and checks it arrives whole, with the server seeing {@code userId}. */
    static void exchange(CodecPair p, String userId) {
        for (byte[][] frames : messages()) {
            p.client.channel.writeAndFlush(message(frames));
            p.server.channel.writeAndFlush(message(frames));
            p.pump();
            ZmtpMessage atServer = (ZmtpMessage) p.server.received.remove(0);
            ZmtpMessage atClient = (ZmtpMessage) p.client.received.remove(0);
            try {
                assertEquals(frames.length, atServer.size());
                assertEquals(frames.length, atClient.size());
                for (int i = 0; i < frames.length; i++) {
                    assertArrayEquals(frames[i], atServer.frameBytes(i));
                    assertArrayEquals(frames[i], atClient.frameBytes(i));
                }
                assertEquals(userId, atServer.properties().userId());
            } finally {
                atServer.release();
                atClient.release();
            }
        }
    }

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

    static byte[] capture(CodecPair p) {
        byte[] a = p.clientToServer.toByteArray();
        byte[] b = p.serverToClient.toByteArray();
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    // ------------------------------------------------------------------ PLAIN

    @Test
    void plainClientAndServer() {
        try (CodecPair p = new CodecPair(opts(SocketType.DEALER, PlainMechanism.client("alice", "pw")),
                opts(SocketType.ROUTER, PlainMechanism.server(Authenticator.plainAccounts(Map.of("alice", "pw")))))) {
            p.pump();
            HandshakeCompleted atServer = p.server.handshake();
            assertNotNull(atServer);
            assertEquals("PLAIN", atServer.mechanism());
            assertEquals("alice", atServer.userId());
            assertNotNull(p.client.handshake());
            exchange(p, "alice");
            assertTrue(contains(capture(p), SECRET), "PLAIN does not encrypt");
        }
    }

    @Test
    void plainWrongPasswordIsRefusedOnBothSides() {
        try (CodecPair p = new CodecPair(opts(SocketType.DEALER, PlainMechanism.client("alice", "nope")),
                opts(SocketType.ROUTER, PlainMechanism.server(Authenticator.plainAccounts(Map.of("alice", "pw")))))) {
            p.pump();
            assertEquals(ConnectionFailed.Kind.AUTHENTICATION, p.server.failure().kind());
            ConnectionFailed atClient = p.client.failure();
            assertEquals(ConnectionFailed.Kind.PEER_ERROR, atClient.kind());
            assertTrue(atClient.reason().contains("\"400\""), atClient.reason());
            assertTrue(atClient.suppressesReconnect());
            assertFalse(p.client.channel.isOpen());
            assertFalse(p.server.channel.isOpen());
        }
    }

    // ------------------------------------------------------------------ CURVE

    @Test
    void curveClientAndServer() {
        try (CodecPair p = new CodecPair(opts(SocketType.DEALER, curveClient()), opts(SocketType.ROUTER, curveServer()))) {
            p.client.channel.writeAndFlush(message(SECRET)); // written before the handshake: waits for it
            p.pump();
            HandshakeCompleted atServer = p.server.handshake();
            assertEquals("CURVE", atServer.mechanism());
            assertEquals(clientKeys.publicKeyZ85(), atServer.userId());
            assertNotNull(p.client.handshake());
            ZmtpMessage early = (ZmtpMessage) p.server.received.remove(0);
            assertArrayEquals(SECRET, early.frameBytes(0));
            early.release();
            exchange(p, clientKeys.publicKeyZ85());
            assertFalse(contains(capture(p), SECRET), "CURVE shows none of the payload");
            assertTrue(p.client.channel.isOpen() && p.server.channel.isOpen());
        }
    }

    /**
     * Boxes are opened where they were read, but a read-only buffer (which a pipeline may hand
     * the codec) is opened into a copy and left as it came.
     */
    @Test
    void curveOpensReadOnlyBuffersWithoutWritingIntoThem() {
        try (CodecPair p = new CodecPair(opts(SocketType.DEALER, curveClient()), opts(SocketType.ROUTER, curveServer()))) {
            p.pump();
            assertNotNull(p.server.handshake());
            for (byte[][] frames : messages()) {
                p.client.channel.writeAndFlush(message(frames));
                byte[] wire = p.client.written();
                ByteBuf readOnly = Unpooled.wrappedBuffer(wire.clone()).asReadOnly();
                p.server.channel.writeInbound(readOnly.retain());
                assertArrayEquals(wire, ByteBufUtil.getBytes(readOnly, 0, wire.length), "the read-only buffer is untouched");
                readOnly.release();
                ZmtpMessage m = (ZmtpMessage) p.server.received.remove(0);
                try {
                    assertEquals(frames.length, m.size());
                    for (int i = 0; i < frames.length; i++) {
                        assertArrayEquals(frames[i], m.frameBytes(i));
                    }
                } finally {
                    m.release();
                }
            }
            assertTrue(p.server.channel.isOpen());
        }
    }

    /**
     * Frames held as spans (a shared body; frames received and sent on, which are spans of the
     * buffer they were read from) are sealed from where they lie and arrive whole, their source
     * bytes unchanged.
     */
    @Test
    void curveSealsSpansWhereTheyLie() {
        try (CodecPair p = new CodecPair(opts(SocketType.DEALER, curveClient()), opts(SocketType.ROUTER, curveServer()))) {
            p.pump();
            assertNotNull(p.server.handshake());
            ByteBuf shared = Unpooled.directBuffer().writeBytes(SECRET);
            for (int i = 0; i < 3; i++) {
                p.client.channel.writeAndFlush(ZmtpMessage.ofShared(shared));
            }
            p.pump();
            assertArrayEquals(SECRET, ByteBufUtil.getBytes(shared), "the shared body is untouched");
            shared.release();
            for (int i = 0; i < 3; i++) {
                ZmtpMessage m = (ZmtpMessage) p.server.received.remove(0);
                assertArrayEquals(SECRET, m.frameBytes(0));
                m.release();
            }
            for (byte[][] frames : messages()) {
                p.client.channel.writeAndFlush(message(frames));
                p.pump();
                ZmtpMessage atServer = (ZmtpMessage) p.server.received.remove(0);
                p.server.channel.writeAndFlush(atServer.retainedDuplicate()); // sent back as it came
                p.pump();
                ZmtpMessage back = (ZmtpMessage) p.client.received.remove(0);
                try {
                    assertEquals(frames.length, back.size());
                    for (int i = 0; i < frames.length; i++) {
                        assertArrayEquals(frames[i], back.frameBytes(i));
                        assertArrayEquals(frames[i], atServer.frameBytes(i), "the received frames are untouched");
                    }
                } finally {
                    back.release();
                    atServer.release();
                }
            }
        }
    }

    /** The control for the capture checks: the same exchange under NULL shows the payload. */
    @Test
    void nullShowsThePayload() {
        try (CodecPair p = new CodecPair(ZmtpOptions.builder(SocketType.DEALER).build(),
                ZmtpOptions.builder(SocketType.ROUTER).build())) {
            p.pump();
            exchange(p, null);
            assertTrue(contains(capture(p), SECRET));
        }
    }

    @Test
    void curveSubscriptionsTravelEncrypted() {
        try (CodecPair p = new CodecPair(opts(SocketType.SUB, curveClient()), opts(SocketType.PUB, curveServer()))) {
            p.pump();
            p.client.channel.writeAndFlush(ZmtpSubscription.subscribe(SECRET));
            p.client.channel.writeAndFlush(ZmtpSubscription.cancel(SECRET));
            p.pump();
            assertEquals(2, p.server.received.size());
            ZmtpSubscription sub = (ZmtpSubscription) p.server.received.get(0);
            ZmtpSubscription cancel = (ZmtpSubscription) p.server.received.get(1);
            assertTrue(sub.isSubscribe());
            assertArrayEquals(SECRET, sub.topicBytes());
            assertFalse(cancel.isSubscribe());
            byte[] seen = capture(p);
            assertFalse(contains(seen, SECRET));
            assertFalse(contains(seen, "SUBSCRIBE".getBytes(StandardCharsets.US_ASCII)));
            assertFalse(contains(seen, "CANCEL".getBytes(StandardCharsets.US_ASCII)));
        }
    }

    @Test
    void curveHeartbeatsTravelEncryptedAndKeepTheConnection() {
        HeartbeatPolicy hb = HeartbeatPolicy.of(Duration.ofMillis(100), Duration.ofMillis(1000), Duration.ofMillis(300));
        ZmtpOptions client = ZmtpOptions.builder(SocketType.DEALER).mechanism(curveClient()).heartbeat(hb).build();
        ZmtpOptions server = ZmtpOptions.builder(SocketType.ROUTER).mechanism(curveServer()).heartbeat(hb).build();
        try (CodecPair p = new CodecPair(client, server)) {
            p.pump();
            int before = capture(p).length;
            for (int i = 0; i < 20; i++) {
                p.advance(100);
            }
            byte[] seen = capture(p);
            assertTrue(seen.length > before + 20 * 33, "PINGs and PONGs went both ways");
            assertFalse(contains(seen, "PING".getBytes(StandardCharsets.US_ASCII)), "PING is inside boxes");
            assertFalse(contains(seen, "PONG".getBytes(StandardCharsets.US_ASCII)));
            assertNull(p.client.failure());
            assertNull(p.server.failure());
            assertTrue(p.client.received.isEmpty() && p.server.received.isEmpty(), "PING/PONG never reach the application");
            assertTrue(p.client.channel.isOpen() && p.server.channel.isOpen());
        }
    }

    @Test
    void curveClientWithTheWrongServerKeyIsDroppedAndHearsOfIt() {
        CurveMechanism wrong = CurveMechanism.client(CurveKeyPair.generate().publicKey(), clientKeys);
        try (CodecPair p = new CodecPair(opts(SocketType.DEALER, wrong), opts(SocketType.ROUTER, curveServer()))) {
            p.pump();
            ConnectionFailed atServer = p.server.failure();
            assertEquals(ConnectionFailed.Kind.HANDSHAKE, atServer.kind());
            assertTrue(atServer.reason().contains("wrong server key"), atServer.reason());
            ConnectionFailed atClient = p.client.failure();
            assertNotNull(atClient, "the client reports the failure");
            assertEquals(ConnectionFailed.Kind.HANDSHAKE, atClient.kind());
            assertTrue(atClient.reason().contains("peer closed the connection during the CURVE handshake"), atClient.reason());
            assertEquals(0, p.serverToClient.size() - 64, "the server sent nothing but its greeting");
        }
    }

    @Test
    void curveClientKeyNotAllowedGetsError400() {
        CurveMechanism stranger = CurveMechanism.client(serverKeys.publicKey(), CurveKeyPair.generate());
        try (CodecPair p = new CodecPair(opts(SocketType.DEALER, stranger), opts(SocketType.ROUTER, curveServer()))) {
            p.pump();
            assertEquals(ConnectionFailed.Kind.AUTHENTICATION, p.server.failure().kind());
            ConnectionFailed atClient = p.client.failure();
            assertEquals(ConnectionFailed.Kind.PEER_ERROR, atClient.kind());
            assertTrue(atClient.reason().contains("\"400\""));
            assertTrue(atClient.suppressesReconnect(), "no reconnect loop with refused credentials");
        }
    }

    @Test
    void mismatchedMechanismsFail() {
        try (CodecPair p = new CodecPair(opts(SocketType.DEALER, curveClient()),
                opts(SocketType.ROUTER, PlainMechanism.server(Authenticator.allowAll())))) {
            p.pump();
            assertTrue(p.client.failure().reason().contains("mechanism mismatch"));
            assertTrue(p.server.failure().reason().contains("mechanism mismatch"));
        }
    }
}
