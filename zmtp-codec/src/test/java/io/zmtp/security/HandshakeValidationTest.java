package io.zmtp.security;

import io.zmtp.testing.CodecHarness;
import io.zmtp.testing.CodecPair;
import io.zmtp.testing.PeerBytes;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMetadata;
import io.zmtp.wire.ZmtpOptions;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Findings 4 and 9: the peer's metadata is checked (Socket-Type, property count) before a server
 * answers READY, so an incompatible or malformed peer gets ERROR and no READY; CURVE decodes the
 * INITIATE metadata only once the authenticator has let the client in.
 */
class HandshakeValidationTest {
    static final byte[] READY_NAME = {0x05, 'R', 'E', 'A', 'D', 'Y'};
    static final byte[] ERROR_NAME = {0x05, 'E', 'R', 'R', 'O', 'R'};

    static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** Properties X-P0..X-P(n-1), each with a 1-byte value, then Socket-Type. */
    static ZmtpMetadata manyProperties(int n) {
        ZmtpMetadata.Builder b = ZmtpMetadata.builder();
        for (int i = 0; i < n; i++) {
            b.put("X-P" + i, "v");
        }
        return b.build();
    }

    @Test
    void plainServerRefusesAnIncompatibleSocketTypeWithErrorAndNoReady() {
        ZmtpOptions server = ZmtpOptions.builder(SocketType.ROUTER)
                .mechanism(PlainMechanism.server(PlainMechanismTest.ACCOUNTS)).build();
        try (CodecHarness h = new CodecHarness(server)) {
            h.feed(PlainMechanismTest.greeting(false).command("HELLO", PlainMechanismTest.hello("admin", "secret"))
                    .command("INITIATE", PeerBytes.properties("Socket-Type", "PUB")).toArray());
            byte[] out = h.written();
            assertFalse(contains(out, READY_NAME), "no READY to a peer we cannot talk to");
            assertTrue(contains(out, ERROR_NAME), "ERROR instead");
            ConnectionFailed f = h.failure();
            assertNotNull(f);
            assertTrue(f.reason().contains("cannot talk"), f.reason());
            assertTrue(f.suppressesReconnect(), "incompatible types are fatal");
            assertFalse(h.channel.isOpen());
        }
    }

    @Test
    void plainServerRefusesTooManyPropertiesWithoutReady() {
        ZmtpOptions server = ZmtpOptions.builder(SocketType.ROUTER)
                .mechanism(PlainMechanism.server(PlainMechanismTest.ACCOUNTS)).build();
        ZmtpMetadata meta = manyProperties(ZmtpOptions.DEFAULT_MAX_METADATA_PROPERTIES + 1)
                .with("Socket-Type", "DEALER");
        io.netty.buffer.ByteBuf b = io.netty.buffer.Unpooled.buffer();
        meta.encode(b);
        byte[] props = new byte[b.readableBytes()];
        b.readBytes(props);
        b.release();
        try (CodecHarness h = new CodecHarness(server)) {
            h.feed(PlainMechanismTest.greeting(false).command("HELLO", PlainMechanismTest.hello("admin", "secret"))
                    .command("INITIATE", props).toArray());
            assertFalse(contains(h.written(), READY_NAME));
            assertTrue(h.failure().reason().contains("more than 128 properties"), h.failure().reason());
        }
    }

    @Test
    void curveServerRefusesAnIncompatibleSocketTypeWithErrorAndNoReady() {
        CurveKeyPair server = CurveKeyPair.generate();
        CurveKeyPair client = CurveKeyPair.generate();
        ZmtpOptions serverOptions = ZmtpOptions.builder(SocketType.ROUTER)
                .mechanism(CurveMechanism.server(server, Authenticator.allowAll())).build();
        ZmtpOptions clientOptions = ZmtpOptions.builder(SocketType.PUB)
                .mechanism(CurveMechanism.client(server.publicKey(), client)).build();
        try (CodecPair p = new CodecPair(clientOptions, serverOptions)) {
            p.pump();
            assertFalse(contains(p.serverToClient.toByteArray(), READY_NAME), "no READY");
            assertTrue(contains(p.serverToClient.toByteArray(), ERROR_NAME), "ERROR");
            assertTrue(p.server.failure().reason().contains("cannot talk"), p.server.failure().reason());
            assertEquals(ConnectionFailed.Kind.PEER_ERROR, p.client.failure().kind());
            assertNull(p.client.handshake());
            assertNull(p.server.handshake());
        }
    }

    @Test
    void curveInitiateMetadataIsParsedOnlyAfterTheAuthenticatorAllowsTheClient() {
        CurveKeyPair server = CurveKeyPair.generate();
        CurveKeyPair client = CurveKeyPair.generate();
        ZmtpMetadata tooMany = manyProperties(ZmtpOptions.DEFAULT_MAX_METADATA_PROPERTIES + 10);
        ZmtpOptions clientOptions = ZmtpOptions.builder(SocketType.DEALER).properties(tooMany)
                .mechanism(CurveMechanism.client(server.publicKey(), client)).build();
        // Refused: the refusal is what the client hears about, the metadata is never looked at.
        ZmtpOptions refusing = ZmtpOptions.builder(SocketType.ROUTER)
                .mechanism(CurveMechanism.server(server, CurveAllowList.of(List.of()))).build();
        try (CodecPair p = new CodecPair(clientOptions, refusing)) {
            p.pump();
            assertEquals(ConnectionFailed.Kind.AUTHENTICATION, p.server.failure().kind(), p.server.failure().reason());
            assertFalse(p.server.failure().reason().contains("properties"));
        }
        // Allowed: now the metadata is decoded, found over the limit, and no READY goes out.
        ZmtpOptions allowing = ZmtpOptions.builder(SocketType.ROUTER)
                .mechanism(CurveMechanism.server(server, Authenticator.allowAll())).build();
        try (CodecPair p = new CodecPair(clientOptions, allowing)) {
            p.pump();
            assertTrue(p.server.failure().reason().contains("more than 128 properties"), p.server.failure().reason());
            assertFalse(contains(p.serverToClient.toByteArray(), READY_NAME));
            assertNull(p.client.handshake());
        }
    }

    @Test
    void nullReadyWithTooManyPropertiesClosesWithAReason() {
        ZmtpMetadata meta = manyProperties(5000).with("Socket-Type", "ROUTER");
        io.netty.buffer.ByteBuf b = io.netty.buffer.Unpooled.buffer();
        meta.encode(b);
        byte[] props = new byte[b.readableBytes()];
        b.readBytes(props);
        b.release();
        try (CodecHarness h = new CodecHarness(ZmtpOptions.builder(SocketType.DEALER).build())) {
            h.feed(PeerBytes.create().greeting31().command("READY", props).toArray());
            assertNull(h.handshake());
            assertTrue(h.failure().reason().contains("more than 128 properties"), h.failure().reason());
            assertFalse(h.channel.isOpen());
        }
    }

    @Test
    void metadataDecodesManyDistinctAndRepeatedNamesInLinearTime() throws Exception {
        // 200,000 properties: with a comparison of each name against all earlier ones this is
        // 2*10^10 comparisons (minutes); linear, it is a fraction of a second. Not timed: it
        // finishes within the test's timeout only if decoding is not quadratic.
        int n = 200_000;
        io.netty.buffer.ByteBuf b = io.netty.buffer.Unpooled.buffer();
        for (int i = 0; i < n; i++) {
            byte[] name = ("X-" + (i % 2 == 0 ? i : i - 1)).getBytes(StandardCharsets.US_ASCII);
            b.writeByte(name.length).writeBytes(name).writeInt(1).writeByte('a' + (i % 2));
        }
        java.util.concurrent.CompletableFuture<ZmtpMetadata> f = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return ZmtpMetadata.decode(b, n);
            } catch (io.zmtp.wire.ZmtpProtocolException e) {
                throw new IllegalStateException(e);
            }
        });
        ZmtpMetadata m = f.get(30, java.util.concurrent.TimeUnit.SECONDS);
        b.release();
        assertEquals(n / 2, m.size(), "a repeated name replaces the earlier value");
        assertEquals("b", m.getString("x-0"), "the later value wins, names are case-insensitive");
    }
}
