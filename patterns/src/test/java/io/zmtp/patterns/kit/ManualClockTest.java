package io.zmtp.patterns.kit;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The manual clock: timers run in time order, on their own loop, only when the test moves time. */
class ManualClockTest {
    final EventLoop a = new DefaultEventLoop();
    final EventLoop b = new DefaultEventLoop();

    @AfterEach
    void stop() {
        a.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        b.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void timersRunInTimeOrderOnTheLoopThatSetThemAndAtTheirDueTime() {
        ManualClock clock = new ManualClock();
        LoopClock onA = clock.on(a);
        LoopClock onB = clock.on(b);
        long t0 = clock.nanoTime();
        List<String> ran = new CopyOnWriteArrayList<>();
        onB.schedule(() -> ran.add("b30 " + b.inEventLoop() + " " + (onB.nanoTime() - t0)), Duration.ofMillis(30));
        onA.schedule(() -> ran.add("a10 " + a.inEventLoop() + " " + (onA.nanoTime() - t0)), Duration.ofMillis(10));
        onA.schedule(() -> ran.add("a20 " + a.inEventLoop() + " " + (onA.nanoTime() - t0)), Duration.ofMillis(20));

        clock.advance(Duration.ofMillis(19));
        assertEquals(List.of("a10 true 10000000"), ran, "only what was due, at its due time");
        clock.advance(Duration.ofMillis(100));
        assertEquals(List.of("a10 true 10000000", "a20 true 20000000", "b30 true 30000000"), ran);
        assertEquals(t0 + Duration.ofMillis(119).toNanos(), clock.nanoTime());
        assertEquals(0, clock.pendingTimers());
    }

    @Test
    void aTimerSetByATimerRunsInTheSameAdvanceIfItFallsDueAndTiesKeepTheirOrder() {
        ManualClock clock = new ManualClock();
        LoopClock c = clock.on(a);
        List<Integer> ran = new CopyOnWriteArrayList<>();
        c.schedule(() -> {
            ran.add(1);
            c.schedule(() -> ran.add(3), Duration.ofMillis(5));
        }, Duration.ofMillis(5));
        c.schedule(() -> ran.add(2), Duration.ofMillis(5));
        clock.advance(Duration.ofMillis(10));
        assertEquals(List.of(1, 2, 3), ran);
    }

    @Test
    void cancelledTimersDoNotRun() {
        ManualClock clock = new ManualClock();
        List<Integer> ran = new CopyOnWriteArrayList<>();
        LoopClock.Timer t = clock.on(a).schedule(() -> ran.add(1), Duration.ofMillis(5));
        assertTrue(t.cancel());
        assertFalse(t.cancel());
        clock.advance(Duration.ofSeconds(1));
        assertTrue(ran.isEmpty());
    }

    @Test
    void stallRunsWhatFellDueLateAtTheNewTime() {
        ManualClock clock = new ManualClock();
        LoopClock c = clock.on(a);
        long t0 = clock.nanoTime();
        List<Long> at = new CopyOnWriteArrayList<>();
        c.schedule(() -> at.add(c.nanoTime() - t0), Duration.ofMillis(10));
        clock.stall(Duration.ofMillis(50));
        assertEquals(List.of(Duration.ofMillis(50).toNanos()), at);
    }

    @Test
    void advancingFromAnEventLoopIsRefused() throws Exception {
        ManualClock clock = new ManualClock();
        clock.on(a).schedule(() -> { }, Duration.ZERO);
        Throwable t = a.submit(() -> {
            try {
                clock.advance(Duration.ofMillis(1));
                return null;
            } catch (IllegalStateException e) {
                return e;
            }
        }).get(5, TimeUnit.SECONDS);
        assertTrue(t instanceof IllegalStateException);
        assertThrows(IllegalArgumentException.class, () -> clock.advance(Duration.ofMillis(-1)));
    }
}
