package io.zmtp.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The leak check must be able to fail: a buffer dropped without release is reported. */
class LeakCheckTest {

    @Test
    void aDroppedBufferIsReported() {
        leakOne();
        for (int i = 0; i < 20 && !reported(); i++) {
            LeakCheck.drain();
        }
        // takeLeaks() clears what was found, so the extension's own check after this test passes.
        assertTrue(found, "a buffer garbage-collected without release() must be reported");
    }

    private boolean found;

    private boolean reported() {
        found |= !LeakCheck.takeLeaks().isEmpty();
        return found;
    }

    private static void leakOne() {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        b.writeLong(42);
        assertFalse(b.refCnt() == 0);
    }
}
