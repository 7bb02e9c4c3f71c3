package io.zmtp.security;

import io.zmtp.security.CurveWire.Frame;
import io.zmtp.testing.CodecHarness;
import io.zmtp.testing.PeerBytes;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static io.zmtp.security.CurveHandshakeTest.CLIENT;
import static io.zmtp.security.CurveHandshakeTest.DEALER_META;
import static io.zmtp.security.CurveHandshakeTest.PEER_TRANSIENT;
import static io.zmtp.security.CurveHandshakeTest.ROUTER_META;
import static io.zmtp.security.CurveHandshakeTest.SERVER;
import static io.zmtp.security.CurveHandshakeTest.greeting;
import static io.zmtp.security.CurveWire.ascii;
import static io.zmtp.security.CurveWire.concat;
import static io.zmtp.security.CurveWire.frames;
import static io.zmtp.security.CurveWire.key;
import static io.zmtp.security.CurveWire.longBytes;
import static io.zmtp.security.CurveWire.nonce;
import static io.zmtp.security.CurveWire.range;
import static io.zmtp.security.CurveWire.seal;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every kind of bad CURVE input closes that connection with a clear reason, without an answer
 * (except a refused client key: ERROR), without touching other connections, and without leaking
 * a buffer (the leak check runs after every test).
 */
class CurveBadInputTest {
    final AtomicLong clock = new AtomicLong();
    final CurveMechanism server = CurveMechanism.server(SERVER, CurveAllowList.of(List.of(CLIENT.publicKey())),
            new FixedRandom(2), clock::get, 60_000_000_000L);

    ManualCurveClient client() {
        return new ManualCurveClient(server, PEER_TRANSIENT, CLIENT);
    }

    /** The connection closed for {@code reasonPart} and wrote nothing since the last drain. */
    static ConnectionFailed closedSilently(CodecHarness h, String reasonPart) {
        ConnectionFailed f = h.failure();
        assertNotNull(f, "the connection failed");
        assertTrue(f.reason().contains(reasonPart), "reason: " + f.reason());
        assertFalse(h.channel.isOpen(), "closed");
        assertEquals(0, h.written().length, "no answer (no ERROR, no WELCOME/READY)");
        return f;
    }

    // ------------------------------------------------------------------ HELLO

    void badHello(byte[] helloData, String reasonPart) {
        try (ManualCurveClient c = client()) {
            c.h.feed(greeting(false).toArray());
            assertEquals(53, c.h.written().length);
            c.h.feed(PeerBytes.create().command("HELLO", helloData).toArray());
            assertEquals(ConnectionFailed.Kind.HANDSHAKE, closedSilently(c.h, reasonPart).kind());
            assertNull(c.h.handshake());
        }
    }

    byte[] hello() {
        return CurveWire.helloData(PEER_TRANSIENT.publicKey(), PEER_TRANSIENT.secretKey(), SERVER.publicKey(), 1);
    }

    @Test
    void helloWithTheSpecProsesSeventyBytesOfPaddingIsTooShort() {
        byte[] h = hello();
        badHello(concat(range(h, 0, 2 + 70), range(h, 2 + 72, h.length)), "HELLO of 198 bytes");
        badHello(concat(range(h, 0, 2), new byte[74], range(h, 2 + 72, h.length)), "HELLO of 202 bytes");
        badHello(new byte[0], "HELLO of 6 bytes");
    }

    @Test
    void helloPaddingMustBeZero() {
        byte[] h = hello();
        h[2 + 40] = 1;
        badHello(h, "padding byte 40 is not zero");
    }

    @Test
    void helloVersionMustBe10() {
        byte[] h = hello();
        h[0] = 2;
        badHello(h, "CurveZMQ 2.0; only 1.0");
        h = hello();
        h[1] = 1;
        badHello(h, "CurveZMQ 1.1; only 1.0");
    }

    @Test
    void helloForAnotherServerKeyIsNotAnswered() {
        CurveKeyPair otherServer = CurveKeyPair.generate();
        badHello(CurveWire.helloData(PEER_TRANSIENT.publicKey(), PEER_TRANSIENT.secretKey(), otherServer.publicKey(), 1),
                "wrong server key");
        byte[] h = hello();
        h[h.length - 1] ^= 1;
        badHello(h, "HELLO box does not open");
    }

    @Test
    void helloNonceZeroIsRefused() {
        badHello(CurveWire.helloData(PEER_TRANSIENT.publicKey(), PEER_TRANSIENT.secretKey(), SERVER.publicKey(), 0),
                "short nonce 0");
    }

    @Test
    void commandsOutOfOrder() {
        for (String name : new String[] {"INITIATE", "READY", "MESSAGE", "WELCOME"}) {
            try (ManualCurveClient c = client()) {
                c.h.feed(greeting(false).command(name, new byte[300]).toArray());
                c.h.written();
                closedSilently(c.h, "expected HELLO, got " + name);
            }
        }
        try (ManualCurveClient c = client()) {
            c.hello(1);
            c.h.feed(PeerBytes.create().command("HELLO", c.helloData(2)).toArray());
            closedSilently(c.h, "expected INITIATE, got HELLO");
        }
        try (ManualCurveClient c = client()) {
            c.hello(1);
            c.h.feed(PeerBytes.create().frame(false, "early").toArray());
            closedSilently(c.h, "message frame before the handshake completed");
        }
    }

    // ------------------------------------------------------------------ INITIATE

    void badInitiate(Consumer<ManualCurveClient> sendInitiate, String reasonPart) {
        try (ManualCurveClient c = client()) {
            c.hello(1);
            sendInitiate.accept(c);
            assertEquals(ConnectionFailed.Kind.HANDSHAKE, closedSilently(c.h, reasonPart).kind());
            assertNull(c.h.handshake());
        }
    }

    static void send(ManualCurveClient c, byte[] initiateData) {
        c.h.feed(PeerBytes.create().command("INITIATE", initiateData).toArray());
    }

    @Test
    void initiateTooShort() {
        badInitiate(c -> send(c, range(c.initiateData(2, c.vouch(), new byte[0]), 0, 247)), "at least 257");
    }

    @Test
    void initiateWithACookieFromAnotherConnection() {
        try (ManualCurveClient victim = client()) {
            victim.hello(1);
            byte[] theirs = victim.initiateData(2, victim.vouch(), DEALER_META);
            // the whole recorded INITIATE, replayed on a new connection while the cookie key is valid
            badInitiate(c -> send(c, theirs), "cookie this connection did not issue");
            victim.initiate(2);
            assertNotNull(victim.h.handshake(), "the victim's own connection is unaffected");
        }
    }

    @Test
    void initiateWithAForgedCookie() {
        badInitiate(c -> {
            c.cookie[50] ^= 1;
            send(c, c.initiateData(2, c.vouch(), DEALER_META));
        }, "cookie does not open");
    }

    @Test
    void initiateNonceMustBeAboveHellos() {
        try (ManualCurveClient c = client()) {
            c.hello(5);
            c.initiate(5);
            closedSilently(c.h, "INITIATE short nonce 5 is not above HELLO's 5");
        }
        try (ManualCurveClient c = client()) {
            c.hello(5);
            c.initiate(4);
            closedSilently(c.h, "is not above HELLO's 5");
        }
        try (ManualCurveClient c = client()) {
            c.hello(5);
            c.initiate(77); // gaps are allowed
            assertNotNull(c.h.handshake());
        }
    }

    @Test
    void initiateBoxTampered() {
        badInitiate(c -> {
            byte[] d = c.initiateData(2, c.vouch(), DEALER_META);
            d[d.length - 3] ^= 1;
            send(c, d);
        }, "INITIATE box does not open");
    }

    @Test
    void vouchMustNameThisServerAndThisTransientKey() {
        CurveKeyPair other = CurveKeyPair.generate();
        badInitiate(c -> send(c, c.initiateData(2, CurveWire.vouch(c.transientKeys.publicKey(), other.publicKey(),
                CLIENT.secretKey(), c.serverTransient, new byte[16]), DEALER_META)), "vouch is for another server");
        badInitiate(c -> send(c, c.initiateData(2, CurveWire.vouch(other.publicKey(), SERVER.publicKey(),
                CLIENT.secretKey(), c.serverTransient, new byte[16]), DEALER_META)), "vouch is for another transient key");
        // a vouch not made with C's secret: someone presenting a key they do not hold
        badInitiate(c -> send(c, c.initiateData(2, CurveWire.vouch(c.transientKeys.publicKey(), SERVER.publicKey(),
                other.secretKey(), c.serverTransient, new byte[16]), DEALER_META)), "vouch does not open with the client key");
    }

    @Test
    void initiateWithMalformedMetadata() {
        badInitiate(c -> send(c, c.initiateData(2, c.vouch(), new byte[] {0, 1, 2})), "metadata property with an empty name");
        badInitiate(c -> send(c, c.initiateData(2, c.vouch(), range(DEALER_META, 0, DEALER_META.length - 3))),
                "truncated");
    }

    @Test
    void clientKeyNotAllowedGetsError400() {
        CurveKeyPair stranger = CurveKeyPair.generate();
        try (ManualCurveClient c = new ManualCurveClient(server, PEER_TRANSIENT, stranger)) {
            c.hello(1);
            c.initiate(2);
            List<Frame> fs = frames(c.h.written());
            assertEquals(1, fs.size());
            assertTrue(fs.get(0).isCommand("ERROR"));
            assertArrayEquals(concat(new byte[] {3}, ascii("400")), fs.get(0).data(), "ERROR \"400\", in clear");
            ConnectionFailed f = c.h.failure();
            assertEquals(ConnectionFailed.Kind.AUTHENTICATION, f.kind());
            assertTrue(f.reason().contains(stranger.publicKeyZ85()), f.reason());
            assertNull(c.h.handshake());
            assertFalse(c.h.channel.isOpen());
        }
    }

    // ------------------------------------------------------------------ MESSAGE (server side)

    ManualCurveClient connected() {
        ManualCurveClient c = client();
        c.hello(1);
        c.initiate(2);
        assertNotNull(c.h.handshake());
        c.h.written();
        return c;
    }

    void badMessage(byte[] frames, String reasonPart) {
        try (ManualCurveClient c = connected()) {
            c.h.feed(frames);
            ConnectionFailed f = closedSilently(c.h, reasonPart);
            assertEquals(ConnectionFailed.Kind.PROTOCOL, f.kind());
            assertFalse(f.suppressesReconnect());
        }
    }

    byte[] msg(ManualCurveClient c, long n, int flags, String body) {
        return CurveWire.messageFrame(c.sessionKey, true, n, flags, ascii(body));
    }

    @Test
    void replayedMessageCloses() {
        try (ManualCurveClient c = connected()) {
            byte[] m = msg(c, 3, 0, "once");
            c.h.feed(m);
            assertEquals(1, c.h.received.size());
            c.h.feed(m);
            closedSilently(c.h, "short nonce 3 is not above the last one, 3 (replayed or reordered)");
            assertEquals(1, c.h.received.size(), "the replay is not delivered");
        }
    }

    @Test
    void reorderedMessagesClose() {
        try (ManualCurveClient c = connected()) {
            byte[] m4 = msg(c, 4, 0, "four");
            byte[] m5 = msg(c, 5, 0, "five");
            c.h.feed(concat(m5, m4));
            assertEquals(1, c.h.received.size());
            closedSilently(c.h, "short nonce 4 is not above the last one, 5");
        }
        try (ManualCurveClient c = connected()) {
            c.h.feed(msg(c, 2, 0, "same as INITIATE's"));
            closedSilently(c.h, "short nonce 2 is not above the last one, 2");
        }
    }

    @Test
    void tamperedMessageClosesWithoutError() {
        try (ManualCurveClient c = connected()) {
            byte[] m = msg(c, 3, 0, "payload");
            m[m.length - 1] ^= 1;
            c.h.feed(m);
            closedSilently(c.h, "MESSAGE fails authentication");
            assertTrue(c.h.received.isEmpty());
        }
    }

    @Test
    void reflectedMessageFailsAuthentication() {
        // a MESSAGE made with the server-to-client nonce prefix, as if our own frame were sent back
        try (ManualCurveClient c = connected()) {
            c.h.feed(CurveWire.messageFrame(c.sessionKey, false, 3, 0, ascii("mirror")));
            closedSilently(c.h, "MESSAGE fails authentication");
        }
    }

    @Test
    void malformedMessagesClose() {
        try (ManualCurveClient c = connected()) {
            byte[] m = msg(c, 3, 0, "x");
            c.h.feed(PeerBytes.create().frame(false, range(m, 2, 2 + 32)).toArray()); // 07 MESSAGE + 24 bytes
            closedSilently(c.h, "MESSAGE of 32 bytes (at least 33)");
        }
        badMessage(PeerBytes.create().frame(false, "hello").toArray(), "command with a truncated or empty name");
        badMessage(PeerBytes.create().command("PING", new byte[] {0, 0}).toArray(), "expected MESSAGE after the handshake, got PING");
        badMessage(PeerBytes.create().command("READY", ROUTER_META).toArray(), "expected MESSAGE after the handshake, got READY");
    }

    @Test
    void messageFlagsMoreAndCommandTogetherClose() {
        try (ManualCurveClient c = connected()) {
            c.h.feed(msg(c, 3, 0x03, "\u0004PING"));
            closedSilently(c.h, "both MORE and COMMAND");
        }
    }

    @Test
    void outerMoreFlagCloses() {
        try (ManualCurveClient c = connected()) {
            byte[] m = msg(c, 3, 0x01, "part");
            m[0] = 0x01;
            c.h.feed(m);
            closedSilently(c.h, "MORE flag on the outside of an encrypted frame");
        }
    }

    // ------------------------------------------------------------------ isolation and limits

    @Test
    void aBadConnectionDoesNotDisturbAnotherOnTheSameServer() {
        try (ManualCurveClient good = client(); ManualCurveClient bad = new ManualCurveClient(server,
                CurveKeyPair.generate(), CLIENT)) {
            good.hello(1);
            bad.hello(1);
            bad.h.feed(PeerBytes.create().command("INITIATE", new byte[300]).toArray());
            assertNotNull(bad.h.failure());
            assertFalse(bad.h.channel.isOpen());
            good.initiate(2);
            assertNotNull(good.h.handshake());
            good.h.feed(msg(good, 3, 0, "fine"));
            assertEquals("fine", ((ZmtpMessage) good.h.received.get(0)).frameString(0));
            assertTrue(good.h.channel.isOpen());
        }
    }

    @Test
    void aClientThatStopsAfterHelloTimesOut() {
        ZmtpOptions opts = ZmtpOptions.builder(SocketType.ROUTER).mechanism(server)
                .handshakeTimeout(Duration.ofSeconds(2)).build();
        try (ManualCurveClient c = new ManualCurveClient(opts, PEER_TRANSIENT, CLIENT)) {
            c.hello(1);
            c.h.advance(2100);
            assertEquals(ConnectionFailed.Kind.HANDSHAKE_TIMEOUT, c.h.failure().kind());
            assertFalse(c.h.channel.isOpen());
        }
    }

    @Test
    void rolesMustDiffer() {
        try (CodecHarness h = new CodecHarness(CurveHandshakeTest.router(server))) {
            h.feed(greeting(true).toArray());
            assertTrue(h.failure().reason().contains("both peers claim the server role"), h.failure().reason());
        }
        CurveMechanism client = CurveMechanism.client(SERVER.publicKey(), CLIENT);
        try (CodecHarness h = new CodecHarness(CurveHandshakeTest.dealer(client))) {
            // libzmq announces as-server 0 even as a server: two clients meet on each other's HELLO
            h.feed(greeting(false).toArray());
            assertNull(h.failure());
            h.feed(PeerBytes.create().command("HELLO", hello()).toArray());
            assertTrue(h.failure().reason().contains("expected WELCOME, got HELLO (the peer is a CURVE client too)"),
                    h.failure().reason());
        }
    }

    // ------------------------------------------------------------------ client side

    /** Our client after HELLO: returns C'. */
    static byte[] clientHello(CodecHarness h) {
        h.written();
        h.feed(greeting(true).toArray());
        byte[] out = h.written();
        return range(out, 53 + 2 + 80, 53 + 2 + 112);
    }

    static byte[] welcome(byte[] cPrime, CurveKeyPair from) {
        byte[] tail = new byte[16];
        return concat(tail, seal(key(cPrime, from.secretKey()), nonce("WELCOME-", tail),
                concat(PEER_TRANSIENT.publicKey(), new byte[96])));
    }

    void badServer(Consumer<CodecHarness> afterHello, String reasonPart) {
        try (CodecHarness h = new CodecHarness(CurveHandshakeTest.dealer(CurveMechanism.client(SERVER.publicKey(), CLIENT)))) {
            afterHello.accept(h);
            ConnectionFailed f = closedSilently(h, reasonPart);
            assertEquals(ConnectionFailed.Kind.HANDSHAKE, f.kind());
            assertNull(h.handshake());
        }
    }

    @Test
    void clientRefusesBadWelcome() {
        badServer(h -> {
            byte[] c = clientHello(h);
            h.feed(PeerBytes.create().command("WELCOME", range(welcome(c, SERVER), 0, 159)).toArray());
        }, "WELCOME of 167 bytes");
        badServer(h -> {
            byte[] c = clientHello(h);
            h.feed(PeerBytes.create().command("WELCOME", welcome(c, CurveKeyPair.generate())).toArray());
        }, "WELCOME box does not open");
        badServer(h -> {
            clientHello(h);
            h.feed(PeerBytes.create().ready("Socket-Type", "ROUTER").toArray());
        }, "expected WELCOME, got READY");
    }

    /** Our client after INITIATE: returns the C'/S' session key. */
    static byte[] clientAfterInitiate(CodecHarness h) {
        byte[] c = clientHello(h);
        h.feed(PeerBytes.create().command("WELCOME", welcome(c, SERVER)).toArray());
        assertEquals(1, frames(h.written()).size());
        return key(c, PEER_TRANSIENT.secretKey());
    }

    @Test
    void clientRefusesBadReady() {
        badServer(h -> {
            clientAfterInitiate(h);
            h.feed(PeerBytes.create().command("READY", new byte[23]).toArray());
        }, "READY of 29 bytes");
        badServer(h -> {
            byte[] k = clientAfterInitiate(h);
            h.feed(PeerBytes.create().command("READY", concat(longBytes(0),
                    seal(k, nonce("CurveZMQREADY---", 0), ROUTER_META))).toArray());
        }, "READY with short nonce 0");
        badServer(h -> {
            byte[] k = clientAfterInitiate(h);
            h.feed(PeerBytes.create().command("READY", concat(longBytes(1),
                    seal(k, nonce("CurveZMQREADY---", 2), ROUTER_META))).toArray());
        }, "READY box does not open");
    }

    @Test
    void clientChecksMessageNoncesToo() {
        try (CodecHarness h = new CodecHarness(CurveHandshakeTest.dealer(CurveMechanism.client(SERVER.publicKey(), CLIENT)))) {
            byte[] k = clientAfterInitiate(h);
            h.feed(PeerBytes.create().command("READY", concat(longBytes(7),
                    seal(k, nonce("CurveZMQREADY---", 7), ROUTER_META))).toArray());
            assertNotNull(h.handshake());
            h.feed(CurveWire.messageFrame(k, false, 7, 0, ascii("same as READY's")));
            closedSilently(h, "short nonce 7 is not above the last one, 7");
        }
        try (CodecHarness h = new CodecHarness(CurveHandshakeTest.dealer(CurveMechanism.client(SERVER.publicKey(), CLIENT)))) {
            byte[] k = clientAfterInitiate(h);
            h.feed(PeerBytes.create().command("READY", concat(longBytes(1),
                    seal(k, nonce("CurveZMQREADY---", 1), ROUTER_META))).toArray());
            h.feed(CurveWire.messageFrame(k, true, 2, 0, ascii("our own direction's prefix")));
            closedSilently(h, "MESSAGE fails authentication");
        }
    }
}
