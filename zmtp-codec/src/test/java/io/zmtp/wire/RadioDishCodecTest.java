package io.zmtp.wire;

import io.netty.buffer.Unpooled;
import io.zmtp.testing.CodecHarness;
import io.zmtp.testing.PeerBytes;
import org.junit.jupiter.api.Test;

import static io.zmtp.testing.PeerBytes.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RFC 48 on the wire: JOIN and LEAVE, and a RADIO's group frame before its body. */
class RadioDishCodecTest {
    static final ZmtpOptions RADIO = ZmtpOptions.builder(SocketType.RADIO).build();
    static final ZmtpOptions DISH = ZmtpOptions.builder(SocketType.DISH).build();

    private static CodecHarness handshaken(ZmtpOptions options, String peerType) {
        CodecHarness h = new CodecHarness(options);
        h.feed(PeerBytes.create().greeting31().ready("Socket-Type", peerType).toArray());
        assertNotNull(h.handshake());
        h.written();
        return h;
    }

    @Test
    void aRadioReadsJoinAndLeaveAsGroupSubscriptions() {
        try (CodecHarness h = handshaken(RADIO, "DISH")) {
            h.feed(PeerBytes.create().command("JOIN", "weather".getBytes()).command("LEAVE", "weather".getBytes())
                    .toArray());
            assertEquals(2, h.received.size());
            ZmtpSubscription join = (ZmtpSubscription) h.received.get(0);
            ZmtpSubscription leave = (ZmtpSubscription) h.received.get(1);
            assertTrue(join.isGroup() && join.isSubscribe());
            assertEquals("weather", join.groupName());
            assertTrue(leave.isGroup());
            assertFalse(leave.isSubscribe());
            assertNull(h.failure());
        }
    }

    @Test
    void joinAtAnyOtherTypeIsAProtocolError() {
        for (SocketType type : new SocketType[] {SocketType.DISH, SocketType.PUB}) {
            try (CodecHarness h = handshaken(ZmtpOptions.builder(type).build(), type == SocketType.DISH ? "RADIO" : "SUB")) {
                h.feed(PeerBytes.create().command("JOIN", "g".getBytes()).toArray());
                ConnectionFailed f = h.failure();
                assertNotNull(f, type + " must refuse JOIN");
                assertEquals(ConnectionFailed.Kind.PROTOCOL, f.kind());
                assertTrue(f.reason().contains("only a RADIO takes JOIN"), f.reason());
                assertFalse(h.channel.isOpen());
                assertTrue(h.received.isEmpty());
            }
        }
    }

    @Test
    void joinWithoutAGroupIsAProtocolError() {
        try (CodecHarness h = handshaken(RADIO, "DISH")) {
            h.feed(PeerBytes.create().command("JOIN", new byte[0]).toArray());
            assertTrue(h.failure().reason().contains("group of 0 bytes"), h.failure().reason());
        }
    }

    @Test
    void aRadioWritesTheGroupFrameThenTheBodyAndADishWritesJoin() {
        try (CodecHarness h = handshaken(RADIO, "DISH")) {
            h.channel.writeAndFlush(ZmtpMessage.of("hi".getBytes()).group("g1"));
            assertArrayEquals(hex("01 02 67 31 00 02 68 69"), h.written());
        }
        try (CodecHarness h = handshaken(DISH, "RADIO")) {
            h.channel.writeAndFlush(ZmtpSubscription.join("g1".getBytes()));
            h.channel.writeAndFlush(ZmtpSubscription.leave("g1".getBytes()));
            assertArrayEquals(hex("04 07 04 4A 4F 49 4E 67 31 04 08 05 4C 45 41 56 45 67 31"), h.written());
        }
        try (CodecHarness h = handshaken(ZmtpOptions.builder(SocketType.DEALER).build(), "ROUTER")) {
            h.channel.writeAndFlush(ZmtpMessage.of("hi".getBytes()).group("g1"));
            assertArrayEquals(hex("00 02 68 69"), h.written(), "only a RADIO writes the group");
        }
    }

    @Test
    void aDishReadsTheGroupFrameIntoTheMessage() {
        try (CodecHarness h = handshaken(DISH, "RADIO")) {
            h.feed(PeerBytes.create().frame(true, "g1").frame(false, "body").toArray());
            ZmtpMessage m = (ZmtpMessage) h.received.get(0);
            assertEquals(1, m.size());
            assertEquals("g1", m.group());
            assertEquals("body", m.frameString(0));
        }
    }

    @Test
    void aMalformedGroupFrameIsAProtocolError() {
        byte[][] bad = {
                PeerBytes.create().frame(false, "alone").toArray(),
                PeerBytes.create().frame(true, new byte[0]).frame(false, "x").toArray(),
                PeerBytes.create().frame(true, new byte[256]).frame(false, "x").toArray(),
        };
        for (byte[] b : bad) {
            try (CodecHarness h = handshaken(DISH, "RADIO")) {
                h.feed(b);
                assertNotNull(h.failure());
                assertTrue(h.received.isEmpty());
                assertFalse(h.channel.isOpen());
            }
        }
    }

    @Test
    void theGroupIsCheckedAndForgottenWhenAPooledMessageIsReused() {
        MessagePool<ZmtpMessage> pool = new MessagePool<>(Thread.currentThread(), 4);
        ZmtpMessage m = ZmtpMessage.newMessage(pool).add(Unpooled.wrappedBuffer(new byte[1]));
        assertThrows(IllegalArgumentException.class, () -> m.group(""));
        assertThrows(IllegalArgumentException.class, () -> m.group("é".repeat(128)), "256 bytes of UTF-8");
        m.group("é".repeat(127));
        assertEquals(254, m.groupUtf8().length);
        ZmtpMessage dup = m.retainedDuplicate();
        assertEquals(m.group(), dup.group(), "a duplicate keeps the group");
        dup.release();
        m.release();
        ZmtpMessage again = ZmtpMessage.newMessage(pool);
        assertSame(m, again, "the same object, from the pool");
        assertNull(again.group());
        assertNull(again.groupUtf8());
        again.release();
    }
}
