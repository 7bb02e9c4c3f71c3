package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The one-frame factories (no varargs array) build the same messages as the varargs ones. */
class ZmtpMessageFactoriesTest {

    @Test
    void oneByteArrayFrameWrapsTheArray() {
        byte[] body = "hello".getBytes(StandardCharsets.US_ASCII);
        ZmtpMessage one = ZmtpMessage.of(body);
        ZmtpMessage many = ZmtpMessage.of(body, body);
        try {
            assertEquals(1, one.size());
            assertArrayEquals(body, one.frameBytes(0));
            body[0] = 'j'; // wrapped, not copied: the documented contract
            assertEquals("jello", one.frameString(0));
            assertEquals(2, many.size());
        } finally {
            one.release();
            many.release();
        }
        ZmtpMessage empty = ZmtpMessage.of(new byte[0]);
        try {
            assertEquals(1, empty.size());
            assertSame(Unpooled.EMPTY_BUFFER, empty.frame(0));
        } finally {
            empty.release();
        }
    }

    @Test
    void oneByteBufFrameIsOwnedByTheMessage() {
        ByteBuf frame = Unpooled.copiedBuffer("x", StandardCharsets.US_ASCII);
        ZmtpMessage m = ZmtpMessage.of(frame);
        assertSame(frame, m.frame(0));
        assertEquals(1, frame.refCnt());
        m.release();
        assertEquals(0, frame.refCnt(), "releasing the message releases its frame");
    }

    @Test
    void aRoutingIdIsKeptByDuplicatesAndCopiesAndIsNoFrame() {
        ZmtpMessage m = ZmtpMessage.of("body".getBytes(StandardCharsets.US_ASCII));
        assertEquals(0, m.routingId(), "none until set");
        assertSame(m, m.routingId(-5));
        assertEquals(1, m.size(), "the id is not a frame");
        ZmtpMessage dup = m.retainedDuplicate();
        ZmtpMessage copy = m.copy();
        assertEquals(-5, dup.routingId());
        assertEquals(-5, copy.routingId());
        m.routingId(0);
        assertEquals(-5, dup.routingId(), "each message keeps its own");
        dup.release();
        copy.release();
        m.release();
    }
}
