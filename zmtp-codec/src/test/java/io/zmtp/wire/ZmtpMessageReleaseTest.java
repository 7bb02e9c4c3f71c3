package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A message used after its last release fails loudly when the leak detector is at paranoid level
 * (as every test runs), instead of reading or changing the pooled object's next message.
 */
class ZmtpMessageReleaseTest {

    @Test
    void testsRunCheckedAtParanoidLevel() {
        assertEquals(ResourceLeakDetector.Level.PARANOID, ResourceLeakDetector.getLevel(),
                "the build runs tests with -Dio.netty.leakDetection.level=paranoid");
        assertTrue(ZmtpMessage.CHECKED);
    }

    @Test
    void everyUseOfAReleasedMessageThrows() {
        ZmtpMessage m = ZmtpMessage.ofStrings("id", "", "body");
        assertTrue(m.release());
        assertThrows(IllegalReferenceCountException.class, m::size);
        assertThrows(IllegalReferenceCountException.class, m::isEmpty);
        assertThrows(IllegalReferenceCountException.class, () -> m.frame(0));
        assertThrows(IllegalReferenceCountException.class, () -> m.frameString(2));
        assertThrows(IllegalReferenceCountException.class, m::first);
        assertThrows(IllegalReferenceCountException.class, m::frames);
        assertThrows(IllegalReferenceCountException.class, m::removeFirst);
        assertThrows(IllegalReferenceCountException.class, m::retainedDuplicate);
        assertThrows(IllegalReferenceCountException.class, m::touch);
        assertThrows(IllegalReferenceCountException.class, m::doNotReuse);
        assertThrows(IllegalReferenceCountException.class, m::retain);
        assertThrows(IllegalReferenceCountException.class, m::release);
        ByteBuf frame = Unpooled.wrappedBuffer(new byte[] {1});
        assertThrows(IllegalReferenceCountException.class, () -> m.add(frame));
        frame.release();
        assertEquals("ZmtpMessage[released]", m.toString());
    }

    @Test
    void aReleasedMessageIsNeverHandedOutAgain() {
        ZmtpMessage first = ZmtpMessage.ofStrings("a");
        first.release();
        ZmtpMessage second = ZmtpMessage.ofStrings("b");
        try {
            assertNotSame(first, second, "a stale reference to the first must not see the second");
            assertThrows(IllegalReferenceCountException.class, () -> first.frameString(0));
            assertEquals("b", second.frameString(0));
        } finally {
            second.release();
        }
    }
}
