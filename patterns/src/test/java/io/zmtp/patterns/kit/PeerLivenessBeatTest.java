package io.zmtp.patterns.kit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The beat of a {@link PeerLiveness} on the manual clock: a late beat does not count silence, and a stall is one beat. */
class PeerLivenessBeatTest {
    static final Duration I = Duration.ofMillis(100);
    final KitLoop k = new KitLoop();

    @AfterEach
    void stop() {
        k.close();
    }

    @Test
    void aTickThatRunsLateDoesNotCountSilenceButTheNextOneDoes() {
        ManualClock clock = new ManualClock();
        List<Boolean> ticks = new CopyOnWriteArrayList<>();
        PeerLiveness<String> ticker = new PeerLiveness<>(clock.on(k.loop), I, I.multipliedBy(3), 1, ticks::add);
        k.run(ticker::start);

        clock.advance(I);                          // on time
        clock.stall(I.plusMillis(20));             // a little late: still counts
        clock.stall(I.multipliedBy(3));            // the loop stalled: discounted, and one tick, not three
        clock.advance(I);                          // on time again
        clock.stall(I.multipliedBy(3));            // stalled again: discounted
        clock.stall(I.multipliedBy(3));            // late twice in a row: counts (silent peers still expire)
        assertEquals(List.of(true, true, false, true, false, true), ticks);

        k.run(ticker::stop);
        clock.advance(I.multipliedBy(10));
        assertEquals(6, ticks.size(), "no tick after stop");
        assertEquals(0, clock.pendingTimers());
    }

    @Test
    void onTimeTicksComeEveryInterval() {
        ManualClock clock = new ManualClock();
        List<Boolean> ticks = new CopyOnWriteArrayList<>();
        PeerLiveness<String> ticker = new PeerLiveness<>(clock.on(k.loop), I, I.multipliedBy(3), 1, ticks::add);
        k.run(ticker::start);
        clock.advance(I.multipliedBy(10).minusMillis(1));
        assertEquals(9, ticks.size());
        clock.advance(Duration.ofMillis(1));
        assertEquals(10, ticks.size());
        assertEquals(List.of(true), ticks.stream().distinct().toList());
    }
}
