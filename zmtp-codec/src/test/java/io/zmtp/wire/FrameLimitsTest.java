package io.zmtp.wire;

import io.zmtp.testing.CodecHarness;
import io.zmtp.testing.PeerBytes;
import org.junit.jupiter.api.Test;

import static io.zmtp.testing.PeerBytes.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Finding 3 (empty frames cost something, and a message has a bounded number of frames) and the size clamp. */
class FrameLimitsTest {
    static byte[] handshake() {
        return PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER").toArray();
    }

    static byte[] emptyMoreFrames(int n) {
        byte[] b = new byte[2 * n];
        for (int i = 0; i < n; i++) {
            b[2 * i] = 0x01; // MORE, short, size 0
        }
        return b;
    }

    @Test
    void emptyFramesCountAgainstTheMessageSize() {
        // 64 KiB allows 1,025 empty frames (the first is free, each later one costs 64); more close.
        ZmtpOptions options = ZmtpOptions.builder(SocketType.DEALER).maxMessageSize(64 * 1024).build();
        try (CodecHarness h = new CodecHarness(options)) {
            h.feed(handshake());
            h.feed(emptyMoreFrames(1023));
            assertTrue(h.channel.isOpen(), "1,023 empty frames fit");
            h.feed(emptyMoreFrames(10));
            ConnectionFailed f = h.failure();
            assertNotNull(f);
            assertEquals(ConnectionFailed.Kind.MESSAGE_TOO_LARGE, f.kind());
            assertTrue(f.reason().contains("exceeds maxMessageSize") && f.reason().contains("per frame"), f.reason());
            assertFalse(h.channel.isOpen());
            assertTrue(h.received.isEmpty());
        }
    }

    @Test
    void aOneFrameMessageOfExactlyTheMaximumSizeIsAccepted() {
        ZmtpOptions options = ZmtpOptions.builder(SocketType.DEALER).maxMessageSize(1000).build();
        try (CodecHarness h = new CodecHarness(options)) {
            h.feed(handshake());
            h.feed(PeerBytes.create().frame(false, new byte[1000]).toArray());
            assertEquals(1, h.received.size());
            h.feed(PeerBytes.create().frame(true, new byte[500]).frame(false, new byte[500]).toArray());
            assertTrue(h.failure().reason().contains("exceeds maxMessageSize"), "two frames of 500 cost 1,064");
        }
    }

    @Test
    void aMessageHasAtMostMaxFramesPerMessageFrames() {
        ZmtpOptions options = ZmtpOptions.builder(SocketType.DEALER).maxFramesPerMessage(100).build();
        try (CodecHarness h = new CodecHarness(options)) {
            h.feed(handshake());
            h.feed(PeerBytes.create().raw(emptyMoreFrames(99)).frame(false, "last").toArray());
            assertEquals(1, h.received.size(), "100 frames are a message");
            h.feed(emptyMoreFrames(150));
            assertTrue(h.failure().reason().contains("more than 100 frames"), h.failure().reason());
            assertFalse(h.channel.isOpen());
        }
    }

    @Test
    void defaultFrameLimitStopsAMillionEmptyFrames() {
        try (CodecHarness h = new CodecHarness(ZmtpOptions.builder(SocketType.DEALER).build())) {
            h.feed(handshake());
            byte[] chunk = emptyMoreFrames(10_000);
            for (int i = 0; i < 100 && h.channel.isOpen(); i++) {
                h.feed(chunk);
            }
            assertNotNull(h.failure(), "closed before a million frames");
            assertTrue(h.failure().reason().contains("maxFramesPerMessage"), h.failure().reason());
        }
    }

    @Test
    void maxMessageSizeIsClampedSoNoSumOverflows() {
        assertEquals(ZmtpOptions.MAX_MESSAGE_SIZE_LIMIT,
                ZmtpOptions.builder(SocketType.DEALER).maxMessageSize(-1).build().maxMessageSize(), "-1: unlimited");
        assertEquals(ZmtpOptions.MAX_MESSAGE_SIZE_LIMIT,
                ZmtpOptions.builder(SocketType.DEALER).maxMessageSize(Long.MAX_VALUE).build().maxMessageSize());
        assertThrows(IllegalArgumentException.class, () -> ZmtpOptions.builder(SocketType.DEALER).maxMessageSize(0));
        // Largest limit, frame sizes near 2^63: refused on the header, no overflow into acceptance.
        ZmtpOptions unlimited = ZmtpOptions.builder(SocketType.DEALER).maxMessageSize(-1).build();
        try (CodecHarness h = new CodecHarness(unlimited)) {
            h.feed(handshake());
            h.feed(PeerBytes.create().frame(true, "a").raw(0x02).raw(hex("7F FF FF FF FF FF FF F0")).toArray());
            assertTrue(h.failure().reason().contains("exceeds maxMessageSize"), h.failure().reason());
        }
        try (CodecHarness h = new CodecHarness(unlimited)) {
            h.feed(handshake());
            h.feed(PeerBytes.create().raw(0x02).raw(hex("00 00 00 00 7F FF FF FF")).toArray());
            assertTrue(h.failure().reason().contains("exceeds maxMessageSize"), "2^31-1 is above the clamp");
        }
    }
}
