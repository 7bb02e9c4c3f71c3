package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A message's lazy first frame (a ROUTER's routing id held by reference) reads as an ordinary
 * frame through every accessor, and becomes a buffer only when something reads it as one.
 */
class LazyFrameTest {

    /** A lazy frame that counts the buffers made of it. */
    static final class Counting implements LazyFrame {
        final byte[] bytes;
        final AtomicInteger made = new AtomicInteger();

        Counting(String text) {
            bytes = text.getBytes(StandardCharsets.US_ASCII);
        }

        @Override
        public byte[] bytes() {
            return bytes;
        }

        @Override
        public ByteBuf toBuffer() {
            made.incrementAndGet();
            return Unpooled.copiedBuffer(bytes);
        }
    }

    @Test
    void bytesSizeAndDropMakeNoBuffer() {
        Counting id = new Counting("peer-1");
        ZmtpMessage m = ZmtpMessage.ofStrings("", "body").addFirst(id);
        try {
            assertSame(id, m.lazyFirst());
            assertEquals(3, m.size());
            assertEquals(6 + 4, m.byteSize());
            assertEquals("peer-1", m.frameString(0));
            assertArrayEquals(id.bytes, m.frameBytes(0));
            assertFalse(m.isFrameEmpty(0));
            assertTrue(m.toString().contains("peer-1"), m.toString());
            m.dropFirst();
            assertNull(m.lazyFirst());
            assertEquals(2, m.size());
            assertEquals("body", m.frameString(1));
            assertEquals(0, id.made.get(), "no buffer was made of the id");
        } finally {
            m.release();
        }
    }

    @Test
    void readingTheFrameMakesOneBufferOwnedByTheMessage() {
        Counting id = new Counting("W");
        ZmtpMessage m = ZmtpMessage.ofStrings("body").addFirst(id);
        ByteBuf first = m.frame(0);
        assertEquals("W", first.toString(StandardCharsets.US_ASCII));
        assertSame(first, m.first(), "made once");
        assertNull(m.lazyFirst(), "an ordinary frame now");
        assertEquals(1, id.made.get());
        m.release();
        assertEquals(0, first.refCnt(), "the message released the buffer it made");
    }

    @Test
    void removeFirstHandsOverAMadeBuffer() {
        Counting id = new Counting("C");
        ZmtpMessage m = ZmtpMessage.ofStrings("x").addFirst(id);
        ByteBuf taken = m.removeFirst();
        try {
            assertEquals("C", taken.toString(StandardCharsets.US_ASCII));
            assertEquals(1, taken.refCnt());
            assertEquals(1, m.size());
        } finally {
            taken.release();
            m.release();
        }
    }

    @Test
    void envelopeOperationsKeepTheOrderOfFrames() {
        Counting id = new Counting("id");
        ZmtpMessage m = ZmtpMessage.ofStrings("", "a", "b").addFirst(id);
        ZmtpMessage envelope = m.takeFirst(2); // id and delimiter
        assertEquals(2, envelope.size());
        assertEquals("id", envelope.frameString(0));
        assertEquals("a", m.frameString(0));
        m.prepend(envelope);
        assertEquals(4, m.size());
        assertEquals("id", m.frameString(0));
        assertEquals("", m.frameString(1));
        assertEquals("b", m.frameString(3));
        m.release();

        ZmtpMessage lone = ZmtpMessage.newMessage().addFirst(new Counting("only"));
        ByteBuf last = lone.removeLast();
        assertEquals("only", last.toString(StandardCharsets.US_ASCII));
        assertTrue(lone.isEmpty());
        last.release();
        lone.release();

        Counting second = new Counting("outer");
        ZmtpMessage twice = ZmtpMessage.ofStrings("body").addFirst(new Counting("inner")).addFirst(second);
        assertEquals(3, twice.size());
        assertEquals("outer", twice.frameString(0));
        assertEquals("inner", twice.frameString(1), "the inner id was made a buffer before the outer went in front");
        twice.release();
    }

    @Test
    void duplicatesAndCopiesCarryTheId() {
        Counting id = new Counting("dup");
        ZmtpMessage m = ZmtpMessage.ofStrings("body").addFirst(id);
        ZmtpMessage dup = m.retainedDuplicate();
        ZmtpMessage copy = m.copy();
        try {
            assertSame(id, dup.lazyFirst(), "the duplicate shares the id by reference");
            assertEquals(2, dup.size());
            assertEquals("body", dup.frameString(1));
            assertEquals("dup", copy.frameString(0));
            assertEquals(2, copy.size());
            assertEquals(0, id.made.get());
        } finally {
            m.release();
            dup.release();
            copy.release();
        }
    }

    @Test
    void aDuplicateOfSpansBehindALazyIdHasTheSameByteSize() {
        ByteBuf read = Unpooled.copiedBuffer("body", StandardCharsets.US_ASCII);
        ZmtpMessage m = ZmtpMessage.newMessage();
        m.addSpan(read, 0, 4);
        m.addFirst(new Counting("dup"));
        ZmtpMessage dup = m.retainedDuplicate();
        try {
            assertEquals(7, m.byteSize());
            assertEquals(7, dup.byteSize(), "the id counts in the duplicate's size too");
        } finally {
            m.release();
            dup.release();
            read.release();
        }
    }

    @Test
    void aReleasedMessageWithALazyIdIsClean() {
        Counting id = new Counting("gone");
        ZmtpMessage m = ZmtpMessage.ofStrings("body").addFirst(id);
        assertTrue(m.release());
        assertEquals(0, id.made.get());
        ZmtpMessage next = ZmtpMessage.ofStrings("next");
        try {
            assertNull(next.lazyFirst());
            assertEquals(1, next.size());
        } finally {
            next.release();
        }
    }
}
