package io.zmtp.transport;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoRegistration;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The io_uring loops' spin ({@link SpinningIoHandler}) against a recording handler: what it
 * passes on and when it blocks. Each case ends by what the handler or the loop answers, not by
 * the clock, except the last, whose window of a microsecond passes on its own.
 */
class SpinningIoHandlerTest {

    /** Records each run: whether its context could block. */
    static final class Recording implements IoHandler {
        final List<Boolean> runs = new ArrayList<>();
        int[] answers = new int[0];   // what each run returns, in order; 0 after the last

        @Override
        public int run(IoHandlerContext context) {
            runs.add(context.canBlock());
            return runs.size() <= answers.length ? answers[runs.size() - 1] : 0;
        }

        @Override
        public IoRegistration register(IoHandle handle) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void wakeup() {
        }

        @Override
        public boolean isCompatible(Class<? extends IoHandle> handleType) {
            return false;
        }
    }

    /** A loop's context whose canBlock answers from the list, then true. */
    static IoHandlerContext context(Boolean... canBlock) {
        return new IoHandlerContext() {
            int asked;

            @Override
            public boolean canBlock() {
                return asked < canBlock.length ? canBlock[asked++] : true;
            }

            @Override
            public long delayNanos(long currentTimeNanos) {
                return 1_000_000;
            }

            @Override
            public long deadlineNanos() {
                return -1;
            }
        };
    }

    static IoHandler spinning(Recording r, Duration spin) {
        return SpinningIoHandler.factory(executor -> r, spin).newHandler(null);
    }

    @Test
    void aLoopWithTasksRunsOnceWithItsOwnContext() {
        Recording r = new Recording();
        r.answers = new int[] {3};
        assertEquals(3, spinning(r, Duration.ofSeconds(10)).run(context(false, false)));
        assertEquals(List.of(false), r.runs);
    }

    @Test
    void whatALookFindsEndsTheSpinWithoutBlocking() {
        Recording r = new Recording();
        r.answers = new int[] {0, 0, 2};
        assertEquals(2, spinning(r, Duration.ofSeconds(10)).run(context()));
        assertEquals(List.of(false, false, false), r.runs, "three looks, none blocking");
    }

    @Test
    void aTaskHandedToTheLoopEndsTheSpin() {
        Recording r = new Recording();
        // the loop can block when the spin starts and after the first look; a task came during the second
        assertEquals(0, spinning(r, Duration.ofSeconds(10)).run(context(true, true, false)));
        assertEquals(List.of(false, false), r.runs, "two looks, then back to the loop's tasks");
    }

    @Test
    void nothingWithinTheWindowBlocks() {
        Recording r = new Recording();
        assertEquals(0, spinning(r, Duration.ofNanos(1000)).run(context()));
        assertTrue(r.runs.size() >= 2, "at least a look, then the blocking run: " + r.runs);
        assertEquals(Boolean.TRUE, r.runs.get(r.runs.size() - 1), "the last run may block");
        assertTrue(r.runs.subList(0, r.runs.size() - 1).stream().noneMatch(b -> b), "the looks never block");
    }

    @Test
    void noSpinIsTheHandlerItself() {
        Recording r = new Recording();
        assertSame(r, SpinningIoHandler.factory(executor -> r, Duration.ZERO).newHandler(null));
    }
}
