package io.zmtp.security;

import io.zmtp.security.CurveWire.Frame;
import io.zmtp.testing.CodecHarness;
import io.zmtp.testing.PeerBytes;
import io.zmtp.wire.HandshakeCompleted;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpOptions;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static io.zmtp.security.CurveWire.ascii;
import static io.zmtp.security.CurveWire.concat;
import static io.zmtp.security.CurveWire.frames;
import static io.zmtp.security.CurveWire.key;
import static io.zmtp.security.CurveWire.longBytes;
import static io.zmtp.security.CurveWire.nonce;
import static io.zmtp.security.CurveWire.open;
import static io.zmtp.security.CurveWire.range;
import static io.zmtp.security.CurveWire.seal;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every CURVE handshake step with fixed keys and nonces, byte by byte: our client against a
 * hand-written server and our server against a hand-written client (see {@link CurveWire}).
 */
class CurveHandshakeTest {
    /** Long-term keys printed by libzmq's zmq_curve_keypair. */
    static final CurveKeyPair SERVER = CurveKeyPair.fromSecretKey("JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6");
    static final CurveKeyPair CLIENT = CurveKeyPair.fromSecretKey("}]#:N)dTv^mZrf=P4X#QcPya{ik/dQCHX6k.s$Fx");
    /** The hand-written peers' transient keys. */
    static final CurveKeyPair PEER_TRANSIENT = CurveKeyPair.generate(new FixedRandom(99));

    static final byte[] DEALER_META = PeerBytes.properties("Socket-Type", "DEALER", "Identity", "");
    static final byte[] ROUTER_META = PeerBytes.properties("Socket-Type", "ROUTER", "Identity", "");

    final FixedRandom clientRandom = new FixedRandom(1);
    final FixedRandom serverRandom = new FixedRandom(2);
    final AtomicLong clock = new AtomicLong();

    CurveMechanism clientMechanism() {
        return CurveMechanism.client(SERVER.publicKey(), CLIENT, clientRandom);
    }

    CurveMechanism serverMechanism() {
        return CurveMechanism.server(SERVER, CurveAllowList.of(List.of(CLIENT.publicKey())), serverRandom,
                clock::get, 60_000_000_000L);
    }

    static ZmtpOptions dealer(CurveMechanism m) {
        return ZmtpOptions.builder(SocketType.DEALER).mechanism(m).build();
    }

    static ZmtpOptions router(CurveMechanism m) {
        return ZmtpOptions.builder(SocketType.ROUTER).mechanism(m).build();
    }

    static PeerBytes greeting(boolean asServer) {
        return PeerBytes.create().greeting(3, 1, "CURVE", asServer, 0);
    }

    // ------------------------------------------------------------------ our client

    @Test
    void clientHandshakeByteByByte() {
        try (CodecHarness h = new CodecHarness(dealer(clientMechanism()))) {
            h.written();
            h.feed(greeting(true).toArray());
            byte[] out = h.written();
            assertEquals("CURVE", new String(out, 1, 5, StandardCharsets.US_ASCII));
            assertEquals(0, out[21], "the client's as-server flag is 0");

            // HELLO: 200 bytes in a short command frame 04 C8
            byte[] helloFrame = range(out, 53, out.length);
            assertEquals(202, helloFrame.length);
            assertArrayEquals(new byte[] {0x04, (byte) 0xC8, 5, 'H', 'E', 'L', 'L', 'O', 1, 0}, range(helloFrame, 0, 10));
            assertArrayEquals(new byte[72], range(helloFrame, 10, 82), "72 bytes of zero padding (errata: not 70)");
            byte[] cPrime = range(helloFrame, 82, 114);
            CurveKeyPair clientTransient = CurveKeyPair.fromSecretKey(clientRandom.handedOut.get(0));
            assertArrayEquals(clientTransient.publicKey(), cPrime, "C' comes from the injected random");
            assertArrayEquals(longBytes(1), range(helloFrame, 114, 122), "the first short nonce is 1");
            byte[] helloPlain = open(key(cPrime, SERVER.secretKey()), nonce("CurveZMQHELLO---", 1),
                    range(helloFrame, 122, 202));
            assertArrayEquals(new byte[64], helloPlain, "Box[64 zeros](C'->S) opens with S's secret");

            // The server's WELCOME: S' and an opaque cookie
            byte[] cookie = new byte[96];
            Arrays.fill(cookie, (byte) 0xC0);
            byte[] welcomeTail = new byte[16];
            Arrays.fill(welcomeTail, (byte) 0x77);
            byte[] welcomeBox = seal(key(cPrime, SERVER.secretKey()), nonce("WELCOME-", welcomeTail),
                    concat(PEER_TRANSIENT.publicKey(), cookie));
            h.feed(PeerBytes.create().command("WELCOME", concat(welcomeTail, welcomeBox)).toArray());

            // INITIATE: long frame (over 255 bytes with our metadata)
            List<Frame> fs = frames(h.written());
            assertEquals(1, fs.size());
            Frame initiate = fs.get(0);
            assertEquals(0x06, initiate.flags, "a long command frame");
            assertTrue(initiate.isCommand("INITIATE"));
            assertEquals(257 + DEALER_META.length, initiate.body.length, "INITIATE is 257 bytes plus metadata");
            byte[] data = initiate.data();
            assertArrayEquals(cookie, range(data, 0, 96), "the cookie goes back unchanged");
            assertArrayEquals(longBytes(2), range(data, 96, 104), "HELLO had nonce 1; INITIATE has 2");
            byte[] sessionKey = key(cPrime, PEER_TRANSIENT.secretKey());
            byte[] plain = open(sessionKey, nonce("CurveZMQINITIATE", 2), range(data, 104, data.length));
            assertNotNull(plain, "Box[C + vouch + metadata](C'->S') opens with s'");
            assertArrayEquals(CLIENT.publicKey(), range(plain, 0, 32), "C, the client's long-term key");
            byte[] vouchTail = range(plain, 32, 48);
            assertArrayEquals(clientRandom.handedOut.get(1), vouchTail, "the vouch nonce comes from the random");
            byte[] vouch = open(key(CLIENT.publicKey(), PEER_TRANSIENT.secretKey()), nonce("VOUCH---", vouchTail),
                    range(plain, 48, 128));
            assertArrayEquals(concat(cPrime, SERVER.publicKey()), vouch, "vouch = Box[C' + S](C->S')");
            assertArrayEquals(DEALER_META, range(plain, 128, plain.length));
            assertNull(h.handshake());

            // READY: short nonce 1 and Box[metadata](S'->C'); 30 bytes plus metadata
            byte[] readyData = concat(longBytes(1), seal(sessionKey, nonce("CurveZMQREADY---", 1), ROUTER_META));
            h.feed(PeerBytes.create().command("READY", readyData).toArray());
            HandshakeCompleted hc = h.handshake();
            assertNotNull(hc);
            assertEquals("CURVE", hc.mechanism());
            assertEquals(SocketType.ROUTER, hc.peerSocketType());

            // Messages both ways
            h.channel.writeAndFlush(ZmtpMessage.ofStrings("a", "bc"));
            fs = frames(h.written());
            assertEquals(2, fs.size(), "one MESSAGE per frame");
            assertArrayEquals(concat(new byte[] {1}, ascii("a")), CurveWire.openMessage(fs.get(0), sessionKey, true, 3),
                    "MORE travels inside the box");
            assertArrayEquals(concat(new byte[] {0}, ascii("bc")), CurveWire.openMessage(fs.get(1), sessionKey, true, 4));
            assertEquals(34, fs.get(0).body.length, "MESSAGE = 33 bytes + body");

            h.feed(CurveWire.messageFrame(sessionKey, false, 2, 0x01, ascii("x")));
            h.feed(CurveWire.messageFrame(sessionKey, false, 3, 0x00, ascii("yz")));
            ZmtpMessage m = (ZmtpMessage) h.received.get(0);
            assertEquals(2, m.size());
            assertEquals("x", m.frameString(0));
            assertEquals("yz", m.frameString(1));
            assertTrue(h.channel.isOpen());
        }
    }

    // ------------------------------------------------------------------ our server

    @Test
    void serverHandshakeByteByByte() {
        CurveMechanism server = serverMechanism();
        try (ManualCurveClient c = new ManualCurveClient(server, PEER_TRANSIENT, CLIENT)) {
            Frame welcome = c.hello(1);
            assertEquals(0x04, welcome.flags);
            assertEquals(168, welcome.body.length, "WELCOME is 168 bytes");
            assertTrue(welcome.isCommand("WELCOME"));
            // the random's draws, in order: s', cookie nonce, cookie key K, WELCOME nonce
            List<byte[]> drawn = serverRandom.handedOut;
            assertArrayEquals(CurveKeyPair.fromSecretKey(drawn.get(0)).publicKey(), c.serverTransient, "S'");
            assertArrayEquals(drawn.get(1), range(c.cookie, 0, 16), "cookie nonce");
            assertArrayEquals(drawn.get(3), range(welcome.data(), 0, 16), "WELCOME nonce");
            byte[] cookiePlain = open(drawn.get(2), nonce("COOKIE--", range(c.cookie, 0, 16)), range(c.cookie, 16, 96));
            assertNotNull(cookiePlain, "the cookie is Box[C' + s'](K)");
            assertArrayEquals(PEER_TRANSIENT.publicKey(), range(cookiePlain, 0, 32));
            assertArrayEquals(CurveKeyPair.fromSecretKey(drawn.get(0)).publicKey(),
                    CurveKeyPair.fromSecretKey(range(cookiePlain, 32, 64)).publicKey(), "s' travels in the cookie");

            c.initiate(2);
            List<Frame> fs = frames(c.h.written());
            assertEquals(1, fs.size());
            Frame ready = fs.get(0);
            assertTrue(ready.isCommand("READY"));
            assertEquals(30 + ROUTER_META.length, ready.body.length, "READY is 30 bytes plus metadata");
            assertArrayEquals(longBytes(1), range(ready.data(), 0, 8), "the server's first short nonce is 1");
            assertArrayEquals(ROUTER_META, open(c.sessionKey, nonce("CurveZMQREADY---", 1),
                    range(ready.data(), 8, ready.data().length)));

            HandshakeCompleted hc = c.h.handshake();
            assertNotNull(hc);
            assertEquals(CLIENT.publicKeyZ85(), hc.userId(), "the allow list names the client by its key");

            // libzmq's form (plain data frame) and the RFC's (command frame) are both accepted
            c.h.feed(CurveWire.messageFrame(c.sessionKey, true, 3, 0x00, ascii("hello")));
            c.h.feed(PeerBytes.create().command("MESSAGE",
                    CurveWire.messageData(c.sessionKey, true, 4, 0x00, ascii("again"))).toArray());
            assertEquals(2, c.h.received.size());
            ZmtpMessage m = (ZmtpMessage) c.h.received.get(0);
            assertEquals("hello", m.frameString(0));
            assertEquals(CLIENT.publicKeyZ85(), m.properties().userId());
            assertEquals("again", ((ZmtpMessage) c.h.received.get(1)).frameString(0));

            // an encrypted SUBSCRIBE command (COMMAND flag inside the box) from a subscriber
            c.h.channel.writeAndFlush(ZmtpMessage.ofStrings("to you"));
            fs = frames(c.h.written());
            assertArrayEquals(concat(new byte[] {0}, ascii("to you")), CurveWire.openMessage(fs.get(0), c.sessionKey, false, 2));
            assertTrue(c.h.channel.isOpen());
        }
    }

    @Test
    void encryptedCommandsTravelInsideTheBox() {
        ZmtpOptions pub = ZmtpOptions.builder(SocketType.PUB).mechanism(serverMechanism()).build();
        try (ManualCurveClient c = new ManualCurveClient(pub, PEER_TRANSIENT, CLIENT)) {
            c.hello(1);
            c.initiate(2, PeerBytes.properties("Socket-Type", "SUB"));
            assertNotNull(c.h.handshake());
            c.h.written();
            // SUBSCRIBE "ab" as libzmq sends it to a 3.1 peer: COMMAND flag (0x02) inside the box
            c.h.feed(CurveWire.messageFrame(c.sessionKey, true, 3, 0x02, concat(ascii("\u0009SUBSCRIBE"), ascii("ab"))));
            io.zmtp.wire.ZmtpSubscription s = (io.zmtp.wire.ZmtpSubscription) c.h.received.get(0);
            assertTrue(s.isSubscribe());
            assertEquals("ab", s.topic().toString(StandardCharsets.US_ASCII));
            // a PING inside a box is answered with a PONG inside a box
            c.h.feed(CurveWire.messageFrame(c.sessionKey, true, 4, 0x02,
                    concat(ascii("\u0004PING"), new byte[] {0, 0}, ascii("ctx"))));
            List<Frame> fs = frames(c.h.written());
            assertEquals(1, fs.size());
            assertArrayEquals(concat(new byte[] {0x02}, ascii("\u0004PONG"), ascii("ctx")),
                    CurveWire.openMessage(fs.get(0), c.sessionKey, false, 2));
            assertEquals(1, c.h.received.size(), "PING never reaches the application");
        }
    }

    @Test
    void serverKeepsNoKeysBetweenWelcomeAndInitiate() throws Exception {
        CurveMechanism server = serverMechanism();
        try (ManualCurveClient c = new ManualCurveClient(server, PEER_TRANSIENT, CLIENT)) {
            c.hello(1);
            Object hs = handshakeOf(c.h);
            int arrays = 0;
            for (java.lang.reflect.Field f : hs.getClass().getDeclaredFields()) {
                f.setAccessible(true);
                Object v = f.get(hs);
                if (v instanceof byte[]) {
                    assertEquals("cookieNonce", f.getName(), "the only array held is the cookie's (public) nonce");
                    assertEquals(16, ((byte[]) v).length);
                    arrays++;
                }
            }
            assertEquals(1, arrays);
            c.initiate(2);
            assertNotNull(c.h.handshake());
        }
    }

    /** The mechanism's handshake: the codec's HandshakeDriver holds it while the handshake runs. */
    static Object handshakeOf(CodecHarness h) throws Exception {
        Object codec = h.channel.pipeline().first();
        java.lang.reflect.Field f = codec.getClass().getDeclaredField("handshake");
        f.setAccessible(true);
        Object driver = f.get(codec);
        java.lang.reflect.Field g = driver.getClass().getDeclaredField("handshake");
        g.setAccessible(true);
        return g.get(driver);
    }

    // ------------------------------------------------------------------ cookie keys

    @Test
    void cookieKeyRotatesAndThePreviousOneOpensForAGraceWindow() {
        CurveMechanism server = serverMechanism();
        // a cookie made at t=0 is still good at t=61 s (its key sealed until 60 s, opens until 120 s)
        try (ManualCurveClient c = new ManualCurveClient(server, PEER_TRANSIENT, CLIENT)) {
            c.hello(1);
            byte[] firstKey = server.cookies().sealingKey().bytes.clone();
            clock.set(61_000_000_000L);
            try (ManualCurveClient other = new ManualCurveClient(server, CurveKeyPair.generate(), CLIENT)) {
                other.hello(1);
                byte[] secondKey = server.cookies().sealingKey().bytes;
                assertTrue(!Arrays.equals(firstKey, secondKey), "a WELCOME after 60 s rotates the cookie key");
                other.initiate(2);
                assertNotNull(other.h.handshake(), "a cookie of the new key opens");
            }
            c.initiate(2);
            assertNotNull(c.h.handshake(), "the previous key still opens its cookies");
        }
        // a cookie made at t=61 s has expired at t=181 s
        try (ManualCurveClient c = new ManualCurveClient(server, PEER_TRANSIENT, CLIENT)) {
            c.hello(1);
            clock.set(181_000_000_000L + 1);
            c.initiate(2);
            assertNull(c.h.handshake());
            assertTrue(c.h.failure().reason().contains("cookie does not open"), c.h.failure().reason());
        }
    }

    @Test
    void cookieKeysAreSharedYetExpireUnused() {
        AtomicLong t = new AtomicLong();
        CookieKeys keys = new CookieKeys(new FixedRandom(5), t::get, 10);
        CookieKeys.Key k0 = keys.sealingKey();
        t.set(9);
        assertEquals(k0, keys.sealingKey());
        t.set(10);
        CookieKeys.Key k1 = keys.sealingKey();
        assertTrue(k1 != k0);
        assertArrayEquals(new CookieKeys.Key[] {k1, k0}, keys.openingKeys());
        t.set(20);
        assertArrayEquals(new CookieKeys.Key[] {k1}, keys.openingKeys(), "k0 is past 2 lifetimes");
        t.set(1000);
        assertEquals(0, keys.openingKeys().length, "nothing opens after a long silence");
        CookieKeys.Key k2 = keys.sealingKey();
        assertArrayEquals(new byte[32], k1.bytes, "an expired key is overwritten when the next one is made");
        assertArrayEquals(new CookieKeys.Key[] {k2}, keys.openingKeys());
    }
}
