package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A thread's pool of message objects, driven directly (the pool that event loops get from
 * {@link ZmtpMessage#currentPool()} is off at the leak detector's paranoid level, at which tests run;
 * {@code MessageReuseTest} checks that one in a child JVM). The test's thread owns each pool here.
 */
class MessagePoolTest {

    private static ByteBuf bytes(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    @Test
    void aMessageReleasedOnTheOwningThreadComesBackEmpty() {
        MessagePool<ZmtpMessage> pool = new MessagePool<>(Thread.currentThread(), 4);
        ZmtpMessage m = ZmtpMessage.newMessage(pool);
        ByteBuf read = bytes("routing-id|body");
        m.addSpan(read, 0, 10);
        m.addSpan(read, 11, 4);
        m.properties(ZmtpMetadata.EMPTY.with("Identity", new byte[] {1}));
        m.routingId(0x7f00_0001);
        assertEquals(14, m.byteSize());
        assertTrue(m.release());
        assertEquals(1, read.refCnt(), "the message's hold on the read buffer was released");

        ZmtpMessage again = ZmtpMessage.newMessage(pool);
        assertSame(m, again);
        assertEquals(0, again.size());
        assertEquals(0, again.byteSize());
        assertEquals(ZmtpMetadata.EMPTY, again.properties());
        assertEquals(0, again.routingId(), "a reused message carries no routing id of its last use");
        again.add(bytes("x"));
        assertEquals("x", again.frameString(0));
        assertEquals(1, again.byteSize());
        again.release();
        read.release();
    }

    @Test
    void aMessageReleasedOnAnotherThreadIsReturnedToItsOwner() throws Exception {
        MessagePool<ZmtpMessage> pool = new MessagePool<>(Thread.currentThread(), 4);
        ZmtpMessage m = ZmtpMessage.newMessage(pool).add(bytes("hop"));
        Thread other = new Thread(m::release);
        other.start();
        other.join(10_000);
        assertEquals(0, m.refCnt());
        assertSame(m, ZmtpMessage.newMessage(pool), "taken back once the owner's own are used up");
    }

    @Test
    void aMessageMarkedNotToBeReusedIsNotKept() {
        MessagePool<ZmtpMessage> pool = new MessagePool<>(Thread.currentThread(), 4);
        ZmtpMessage m = ZmtpMessage.newMessage(pool).add(bytes("x"));
        m.doNotReuse().release();
        ZmtpMessage next = ZmtpMessage.newMessage(pool);
        assertNotSame(m, next);
        next.release();
    }

    @Test
    void thePoolKeepsAtMostItsLimit() {
        int max = 3;
        MessagePool<ZmtpMessage> pool = new MessagePool<>(Thread.currentThread(), max);
        List<ZmtpMessage> first = new ArrayList<>();
        for (int i = 0; i < max + 2; i++) {
            first.add(ZmtpMessage.newMessage(pool));
        }
        first.forEach(ZmtpMessage::release);
        Map<ZmtpMessage, Boolean> released = new IdentityHashMap<>();
        first.forEach(m -> released.put(m, true));
        int reused = 0;
        List<ZmtpMessage> second = new ArrayList<>();
        for (int i = 0; i < max + 2; i++) {
            ZmtpMessage m = ZmtpMessage.newMessage(pool);
            second.add(m);
            if (released.containsKey(m)) {
                reused++;
            }
        }
        assertEquals(max, reused);
        second.forEach(ZmtpMessage::release);
    }

    @Test
    void aFrameAddedAsABufferIsMeasuredWhenAsked() {
        MessagePool<ZmtpMessage> pool = new MessagePool<>(Thread.currentThread(), 4);
        ZmtpMessage m = ZmtpMessage.newMessage(pool);
        ByteBuf body = bytes("abcdef");
        m.add(body);
        body.skipBytes(2); // the caller still holds the buffer and moves its reader index
        assertEquals(4, m.byteSize());
        m.add(Unpooled.EMPTY_BUFFER);
        ByteBuf read = bytes("xyz");
        m.addSpan(read, 0, 3);
        assertEquals(7, m.byteSize());
        m.release();
        read.release();
    }
}
