package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.zmtp.testing.CodecPair;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A message the codec reads holds its frames as spans of the read buffer: it retains that buffer
 * once, makes a slice only when a frame is read as a buffer, and releases the buffer with its last
 * release. Every accessor sees ordinary frames.
 */
class SpanFrameTest {

    /** A pooled "read buffer" holding {@code text}, as the decoder's cumulation would. */
    private static ByteBuf readBuffer(String text) {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        b.writeCharSequence(text, StandardCharsets.US_ASCII);
        return b;
    }

    /** A message of the spans "ab" and "cde" of {@code read} ("xxabcdeyy"). */
    private static ZmtpMessage spans(ByteBuf read) {
        ZmtpMessage m = ZmtpMessage.newMessage();
        m.addSpan(read, 2, 2);
        m.addSpan(read, 4, 3);
        return m;
    }

    @Test
    void theReaderMakesSpansAndTheMessageRetainsTheReadBufferOnce() throws Exception {
        FrameReader reader = new FrameReader(ZmtpOptions.builder(SocketType.DEALER).build(), (name, data, out) -> { });
        reader.ready(ZmtpMetadata.EMPTY, null);
        ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        in.writeBytes(new byte[] {ZmtpWire.FLAG_MORE, 2, 'a', 'b', ZmtpWire.FLAG_MORE, 3, 'c', 'd', 'e', ZmtpWire.FLAG_MORE, 0, 0, 1, 'f'});
        List<Object> out = new ArrayList<>();
        try {
            while (reader.read(in, out)) {
                // every frame
            }
            assertEquals(1, out.size());
            ZmtpMessage m = (ZmtpMessage) out.get(0);
            assertEquals(2, in.refCnt(), "one reference for the message, whatever its number of frames");
            assertSame(in, m.backing());
            assertNotEquals(0, m.span(0));
            assertNotEquals(0, m.span(1));
            assertEquals(0, m.span(2), "an empty frame is no span");
            assertNotEquals(0, m.span(3));
            assertEquals(4, m.size());
            assertEquals(6, m.byteSize());
            assertEquals(List.of("ab", "cde", "", "f"), strings(m));
            m.release();
            assertEquals(1, in.refCnt());
        } finally {
            in.release();
        }
    }

    @Test
    void aFrameBecomesASliceOnlyWhenReadAsABuffer() {
        ByteBuf read = readBuffer("xxabcdeyy");
        ZmtpMessage m = spans(read);
        assertEquals(2, read.refCnt());
        assertEquals("cde", m.frameString(1));
        assertArrayEquals("ab".getBytes(StandardCharsets.US_ASCII), m.frameBytes(0));
        assertFalse(m.isFrameEmpty(1));
        assertEquals(5, m.byteSize());
        assertTrue(m.toString().contains("cde"), m.toString());
        assertEquals(2, read.refCnt(), "reading bytes or text makes no slice");

        ByteBuf cde = m.frame(1);
        assertEquals(0, m.span(1));
        assertEquals("cde", cde.toString(StandardCharsets.US_ASCII));
        assertEquals(3, read.refCnt(), "the slice holds its own reference");
        assertSame(cde, m.frame(1), "made once");
        m.release();
        assertEquals(0, cde.refCnt());
        assertEquals(1, read.refCnt());
        read.release();
    }

    @Test
    void removedFramesAreTheCallersAndDroppedOnesCostNothing() {
        ByteBuf read = readBuffer("xxabcdeyy");
        ZmtpMessage m = spans(read);
        m.dropFirst();
        assertEquals(2, read.refCnt(), "a dropped span makes no buffer");
        assertEquals(1, m.size());
        assertEquals(3, m.byteSize());
        ByteBuf cde = m.removeLast();
        assertTrue(m.isEmpty());
        m.release();
        assertEquals(2, read.refCnt(), "the removed frame keeps the read buffer");
        assertEquals("cde", cde.toString(StandardCharsets.US_ASCII));
        cde.release();
        assertEquals(1, read.refCnt());
        assertThrows(IndexOutOfBoundsException.class, () -> ZmtpMessage.newMessage().dropFirst());
        read.release();
    }

    @Test
    void duplicatesCopiesAndEnvelopesSeeTheSameFrames() {
        ByteBuf read = readBuffer("xxabcdeyy");
        ZmtpMessage m = spans(read);
        ZmtpMessage dup = m.retainedDuplicate();
        assertEquals(3, read.refCnt(), "the duplicate retains the read buffer once");
        assertNotEquals(0, dup.span(0));
        ZmtpMessage copy = m.copy();
        assertEquals(List.of("ab", "cde"), strings(copy));
        copy.release();

        m.addFirst(Unpooled.copiedBuffer("id", StandardCharsets.US_ASCII)).addFirst(new LazyFrameTest.Counting("route"));
        assertEquals(List.of("route", "id", "ab", "cde"), strings(m));
        ZmtpMessage envelope = m.takeFirst(2);
        assertEquals(List.of("route", "id"), strings(envelope));
        dup.prepend(envelope);
        assertEquals(List.of("route", "id", "ab", "cde"), strings(dup));
        m.release();
        dup.release();
        assertEquals(1, read.refCnt());
        read.release();
    }

    @Test
    void aFrameOfAnotherReadBufferIsSlicedAtOnce() {
        ByteBuf first = readBuffer("xxabcdeyy");
        ByteBuf second = readBuffer("fgh");
        ZmtpMessage m = ZmtpMessage.newMessage();
        m.addSpan(first, 2, 2);
        m.addSpan(second, 0, 3);
        assertNotEquals(0, m.span(0));
        assertEquals(0, m.span(1), "a message has spans in one buffer only");
        assertEquals(2, second.refCnt());
        assertEquals(List.of("ab", "fgh"), strings(m));
        m.frames().forEach(f -> assertTrue(f.refCnt() > 0));
        m.release();
        assertEquals(1, first.refCnt());
        assertEquals(1, second.refCnt());
        first.release();
        second.release();
    }

    @Test
    void manyFramesAndEnvelopePushesKeepEachSpanInPlace() {
        ByteBuf read = readBuffer("0123456789abcdefghijklmnopqrstuvwxyz");
        ZmtpMessage m = ZmtpMessage.newMessage();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) { // past the first array's size: the spans grow with it
            m.addSpan(read, i, 1);
            expected.add(read.toString(i, 1, StandardCharsets.US_ASCII));
        }
        for (int i = 0; i < 6; i++) { // past the headroom: the front is moved
            m.addFirst(Unpooled.copiedBuffer("e" + i, StandardCharsets.US_ASCII));
            expected.add(0, "e" + i);
        }
        assertEquals(expected, strings(m));
        assertEquals(20 + 12, m.byteSize());
        m.release();
        assertEquals(1, read.refCnt());
        read.release();
    }

    @Test
    void theEncoderWritesSpansFromTheReadBufferSmallAndLarge() {
        byte[] large = new byte[FrameWriter.COPY_THRESHOLD * 3];
        Arrays.fill(large, (byte) 'L');
        try (CodecPair p = new CodecPair(ZmtpOptions.builder(SocketType.DEALER).build(),
                ZmtpOptions.builder(SocketType.DEALER).build())) {
            p.pump();
            p.client.channel.writeAndFlush(ZmtpMessage.of("ab".getBytes(StandardCharsets.US_ASCII), large));
            p.pump();
            ZmtpMessage atServer = (ZmtpMessage) p.server.received.remove(0);
            assertNotEquals(0, atServer.span(0), "read as a span");
            assertNotEquals(0, atServer.span(1), "read as a span");
            p.server.channel.writeAndFlush(atServer); // echoed as it was read
            p.pump();
            ZmtpMessage back = (ZmtpMessage) p.client.received.remove(0);
            try {
                assertEquals("ab", back.frameString(0));
                assertArrayEquals(large, back.frameBytes(1));
            } finally {
                back.release();
            }
        }
    }

    @Test
    void sharedMessagesReferToOneBufferWithoutAFrameObjectEach() {
        ByteBuf body = readBuffer("xxhello");
        body.skipBytes(2); // only the readable bytes are the frame
        ZmtpMessage first = ZmtpMessage.ofShared(body);
        ZmtpMessage second = ZmtpMessage.ofShared(body);
        try {
            assertEquals(3, body.refCnt(), "each message retains the shared buffer once");
            assertNotEquals(0, first.span(0), "a span, no buffer made");
            assertSame(body, first.backing());
            assertEquals("hello", first.frameString(0));
            assertEquals(5, first.byteSize());
            ByteBuf asBuffer = second.frame(0); // read as a buffer: a slice of the shared bytes
            assertEquals("hello", asBuffer.toString(StandardCharsets.US_ASCII));
            assertEquals(0, second.span(0));
            try (CodecPair p = new CodecPair(ZmtpOptions.builder(SocketType.DEALER).build(),
                    ZmtpOptions.builder(SocketType.DEALER).build())) {
                p.pump();
                p.client.channel.writeAndFlush(first.retain());
                p.pump();
                ZmtpMessage atServer = (ZmtpMessage) p.server.received.remove(0);
                try {
                    assertEquals("hello", atServer.frameString(0), "encoded from the shared bytes");
                } finally {
                    atServer.release();
                }
            }
        } finally {
            first.release();
            second.release();
        }
        assertEquals(1, body.refCnt(), "the messages gave their references back");
        assertEquals(2, body.readerIndex(), "the shared buffer was not read");
        body.release();
        ZmtpMessage empty = ZmtpMessage.ofShared(Unpooled.EMPTY_BUFFER);
        assertEquals(1, empty.size());
        assertTrue(empty.isFrameEmpty(0));
        empty.release();
    }

    @Test
    void aKeptSizeFollowsEnvelopeChangesAndIsNotKeptOnceAFrameIsHandedOut() {
        ByteBuf read = readBuffer("xxabcdeyy");
        ZmtpMessage m = spans(read);
        assertEquals(5, m.byteSize());
        m.addFirst(new LazyFrameTest.Counting("route"));
        assertEquals(10, m.byteSize());
        m.dropFirst();
        assertEquals(5, m.byteSize());
        m.add(Unpooled.copiedBuffer("fg", StandardCharsets.US_ASCII));
        assertEquals(7, m.byteSize());
        ByteBuf fg = m.last();
        fg.readByte(); // a reader moves a frame's index: the size follows
        assertEquals(6, m.byteSize());
        fg.readByte();
        assertEquals(5, m.byteSize());
        m.release();
        read.release();
    }

    private static List<String> strings(ZmtpMessage m) {
        List<String> s = new ArrayList<>();
        for (int i = 0; i < m.size(); i++) {
            s.add(m.frameString(i));
        }
        return s;
    }
}
