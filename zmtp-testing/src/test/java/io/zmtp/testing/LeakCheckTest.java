package io.zmtp.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The leak check must be able to fail: a buffer dropped without release is reported. */
class LeakCheckTest {

    /**
     * One drain, as after every test, reports the buffer. Each repetition leaks from a stack of
     * another depth: Netty's detector reports a leak whose records it has reported before only
     * once per JVM.
     */
    @RepeatedTest(5)
    void aDroppedBufferIsReported(RepetitionInfo repetition) {
        leakAtDepth(repetition.getCurrentRepetition());
        LeakCheck.drain();
        // takeLeaks() clears what was found, so the extension's own check after this test passes.
        assertTrue(!LeakCheck.takeLeaks().isEmpty(),
                "one drain must report a buffer garbage-collected without release()");
    }

    private static void leakAtDepth(int depth) {
        if (depth > 1) {
            leakAtDepth(depth - 1);
            return;
        }
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        b.writeLong(42);
        assertFalse(b.refCnt() == 0);
    }
}
