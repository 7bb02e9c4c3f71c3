package io.zmtp.security;

import io.zmtp.testing.CodecHarness;
import io.zmtp.testing.PeerBytes;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.HandshakeCompleted;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpOptions;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

import static io.zmtp.testing.PeerBytes.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PLAIN byte by byte against hand-written peer bytes (24/ZMTP-PLAIN). */
class PlainMechanismTest {
    static final Authenticator ACCOUNTS = Authenticator.plainAccounts(Map.of("admin", "secret"));

    static ZmtpOptions client() {
        return ZmtpOptions.builder(SocketType.DEALER).mechanism(PlainMechanism.client("admin", "secret")).build();
    }

    static ZmtpOptions server(Authenticator a) {
        return ZmtpOptions.builder(SocketType.ROUTER).mechanism(PlainMechanism.server(a)).build();
    }

    static PeerBytes greeting(boolean asServer) {
        return PeerBytes.create().greeting(3, 1, "PLAIN", asServer, 0);
    }

    static byte[] hello(String user, String password) {
        byte[] u = user.getBytes(StandardCharsets.UTF_8);
        byte[] p = password.getBytes(StandardCharsets.UTF_8);
        byte[] d = new byte[2 + u.length + p.length];
        d[0] = (byte) u.length;
        System.arraycopy(u, 0, d, 1, u.length);
        d[1 + u.length] = (byte) p.length;
        System.arraycopy(p, 0, d, 2 + u.length, p.length);
        return d;
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void clientSideByteByByte() {
        try (CodecHarness h = new CodecHarness(client())) {
            h.written();
            h.feed(greeting(true).toArray());
            byte[] out = h.written();
            assertEquals("PLAIN", new String(out, 1, 5, StandardCharsets.US_ASCII));
            assertEquals(0, out[21], "the client's as-server flag is 0");
            assertArrayEquals(hex("04 13 05 48 45 4C 4C 4F 05 61 64 6D 69 6E 06 73 65 63 72 65 74"),
                    Arrays.copyOfRange(out, 53, out.length), "HELLO = 05 HELLO, 05 admin, 06 secret");

            h.feed(hex("04 08 07 57 45 4C 43 4F 4D 45")); // WELCOME, no data
            assertArrayEquals(PeerBytes.create().command("INITIATE",
                    PeerBytes.properties("Socket-Type", "DEALER", "Identity", "")).toArray(), h.written(),
                    "INITIATE carries our metadata");
            assertNull(h.handshake(), "not complete before READY");

            h.feed(PeerBytes.create().ready("Socket-Type", "ROUTER", "X-Info", "hi").toArray());
            HandshakeCompleted hc = h.handshake();
            assertNotNull(hc);
            assertEquals("PLAIN", hc.mechanism());
            assertEquals(SocketType.ROUTER, hc.peerSocketType());
            assertEquals("hi", hc.peerMetadata().getString("X-Info"));
            assertNull(hc.userId(), "the client does not authenticate the server");

            h.feed(PeerBytes.create().frame(false, "clear").toArray());
            ZmtpMessage m = (ZmtpMessage) h.received.get(0);
            assertEquals("clear", m.frameString(0), "data frames are plaintext under PLAIN");
        }
    }

    @Test
    void serverSideByteByByteAndTheUserIdReachesMessages() {
        try (CodecHarness h = new CodecHarness(server(ACCOUNTS))) {
            h.feed(greeting(false).command("HELLO", hello("admin", "secret")).toArray());
            byte[] out = h.written();
            assertEquals(1, out[11 + 21], "the server's as-server flag is 1");
            assertArrayEquals(hex("04 08 07 57 45 4C 43 4F 4D 45"), Arrays.copyOfRange(out, 64, out.length),
                    "WELCOME is the 8-byte command libzmq insists on");

            h.feed(PeerBytes.create().command("INITIATE", PeerBytes.properties("Socket-Type", "DEALER",
                    "Identity", "d1")).toArray());
            assertArrayEquals(PeerBytes.create().ready("Socket-Type", "ROUTER", "Identity", "").toArray(), h.written());
            HandshakeCompleted hc = h.handshake();
            assertEquals("admin", hc.userId());
            assertEquals("d1", new String(hc.peerIdentity(), StandardCharsets.UTF_8));

            h.feed(PeerBytes.create().frame(true, "a").frame(false, "b").toArray());
            ZmtpMessage m = (ZmtpMessage) h.received.get(0);
            assertEquals(2, m.size());
            assertEquals("admin", m.properties().userId(), "User-Id travels with every message");
        }
    }

    @Test
    void wrongPasswordGetsError400AndClose() {
        try (CodecHarness h = new CodecHarness(server(ACCOUNTS))) {
            h.feed(greeting(false).command("HELLO", hello("admin", "guess")).toArray());
            byte[] out = h.written();
            assertArrayEquals(hex("04 0A 05 45 52 52 4F 52 03 34 30 30"), Arrays.copyOfRange(out, 64, out.length),
                    "ERROR \"400\" and nothing else");
            ConnectionFailed f = h.failure();
            assertEquals(ConnectionFailed.Kind.AUTHENTICATION, f.kind());
            assertTrue(f.reason().contains("admin"), f.reason());
            assertFalse(f.reason().contains("guess"), "the password is not logged");
            assertFalse(h.channel.isOpen());
            assertNull(h.handshake());
        }
    }

    @Test
    void authenticatorDenialCodeAndFailureReachThePeer() {
        Authenticator down = r -> AuthResult.deny("500", "directory broken");
        try (CodecHarness h = new CodecHarness(server(down))) {
            h.feed(greeting(false).command("HELLO", hello("admin", "secret")).toArray());
            byte[] out = h.written();
            assertArrayEquals(hex("04 0A 05 45 52 52 4F 52 03 35 30 30"), Arrays.copyOfRange(out, 64, out.length));
        }
        Authenticator later = r -> AuthResult.deny("300", "directory offline");
        try (CodecHarness h = new CodecHarness(server(later))) {
            h.feed(greeting(false).command("HELLO", hello("admin", "secret")).toArray());
            byte[] out = h.written();
            assertEquals(64, out.length, "300 (temporary) closes without ERROR, as libzmq does, so the client retries");
            assertFalse(h.channel.isOpen());
        }
        Authenticator broken = r -> {
            throw new IllegalStateException("bug");
        };
        try (CodecHarness h = new CodecHarness(server(broken))) {
            h.feed(greeting(false).command("HELLO", hello("admin", "secret")).toArray());
            byte[] out = h.written();
            assertArrayEquals(hex("04 0A 05 45 52 52 4F 52 03 35 30 30"), Arrays.copyOfRange(out, 64, out.length),
                    "an authenticator that throws refuses with 500");
            assertEquals(ConnectionFailed.Kind.HANDSHAKE, h.failure().kind());
        }
    }

    @Test
    void clientReportsTheServersError() {
        try (CodecHarness h = new CodecHarness(client())) {
            h.feed(greeting(true).command("ERROR", hex("03 34 30 30")).toArray());
            ConnectionFailed f = h.failure();
            assertEquals(ConnectionFailed.Kind.PEER_ERROR, f.kind());
            assertTrue(f.reason().contains("400"));
            assertTrue(f.suppressesReconnect(), "no retry with the same credentials");
        }
    }

    static ConnectionFailed expectFailure(ZmtpOptions opts, byte[] peer, String reasonPart) {
        try (CodecHarness h = new CodecHarness(opts)) {
            h.feed(peer);
            ConnectionFailed f = h.failure();
            assertNotNull(f, "connection refused");
            assertTrue(f.reason().contains(reasonPart), f.reason());
            assertFalse(h.channel.isOpen());
            assertNull(h.handshake());
            assertTrue(h.received.isEmpty());
            return f;
        }
    }

    @Test
    void malformedHelloCloses() {
        byte[] good = hello("admin", "secret");
        expectFailure(server(ACCOUNTS), greeting(false).command("HELLO", Arrays.copyOf(good, good.length - 1)).toArray(),
                "malformed HELLO");
        expectFailure(server(ACCOUNTS), greeting(false).command("HELLO", Arrays.copyOf(good, good.length + 1)).toArray(),
                "malformed HELLO");
        expectFailure(server(ACCOUNTS), greeting(false).command("HELLO", hex("09 61")).toArray(), "malformed HELLO");
        expectFailure(server(ACCOUNTS), greeting(false).command("HELLO", new byte[0]).toArray(), "malformed HELLO");
    }

    @Test
    void commandsOutOfOrderClose() {
        expectFailure(server(ACCOUNTS), greeting(false).command("INITIATE", new byte[0]).toArray(), "expected HELLO, got INITIATE");
        expectFailure(server(ACCOUNTS), greeting(false).ready("Socket-Type", "DEALER").toArray(), "expected HELLO, got READY");
        expectFailure(server(ACCOUNTS), greeting(false).command("HELLO", hello("admin", "secret"))
                .command("HELLO", hello("admin", "secret")).toArray(), "expected INITIATE, got HELLO");
        expectFailure(server(ACCOUNTS), greeting(false).command("HELLO", hello("admin", "secret"))
                .frame(false, "data").toArray(), "message frame before the handshake");
        expectFailure(client(), greeting(true).ready("Socket-Type", "ROUTER").toArray(), "expected WELCOME, got READY");
        expectFailure(client(), greeting(true).command("WELCOME", hex("00")).toArray(), "WELCOME with 1 bytes");
        expectFailure(client(), greeting(true).command("WELCOME", new byte[0]).command("WELCOME", new byte[0]).toArray(),
                "expected READY, got WELCOME");
    }

    @Test
    void peersClaimingTheSameRoleFail() {
        expectFailure(server(ACCOUNTS), greeting(true).toArray(), "both peers claim the server role");
        // libzmq announces as-server 0 even as a server, so two clients meet on each other's HELLO
        expectFailure(client(), greeting(false).command("HELLO", hello("x", "y")).toArray(),
                "expected WELCOME, got HELLO (the peer is a PLAIN client too)");
    }

    @Test
    void clientAcceptsAServerAnnouncingAsServerZeroAsLibzmqDoes() {
        try (CodecHarness h = new CodecHarness(client())) {
            h.feed(greeting(false).command("WELCOME", new byte[0]).ready("Socket-Type", "ROUTER").toArray());
            assertNotNull(h.handshake());
        }
    }

    /** The bytes libzmq 4.3.4's PLAIN server sends to refuse a password: 5E "RROR", not 05 "ERROR". */
    @Test
    void libzmqsMalformedPlainErrorIsUnderstood() {
        try (CodecHarness h = new CodecHarness(client())) {
            h.feed(greeting(false).raw(hex("04 09 5E 52 52 4F 52 03 34 30 30")).toArray());
            ConnectionFailed f = h.failure();
            assertEquals(ConnectionFailed.Kind.PEER_ERROR, f.kind(), f.reason());
            assertTrue(f.reason().contains("\"400\""), f.reason());
            assertTrue(f.suppressesReconnect());
        }
    }

    @Test
    void mechanismMismatchFails() {
        expectFailure(client(), PeerBytes.create().greeting(3, 1, "CURVE", true, 0).toArray(), "mechanism mismatch");
        expectFailure(client(), PeerBytes.create().greeting31().toArray(), "mechanism mismatch");
    }

    @Test
    void passwordNeverInToString() {
        assertFalse(PlainMechanism.client("admin", "secret").toString().contains("secret"));
    }
}
