package io.zmtp.patterns.paranoidpirate;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The heartbeat timer on a loop whose clock the test moves: a late tick does not count silence. */
class HeartbeatTimerTest {
    static final long INTERVAL_MS = 100;

    @Test
    void aTickThatRunsLateDoesNotCountSilenceButTheNextOneDoes() {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.freezeTime();
        List<Boolean> ticks = new ArrayList<>();
        HeartbeatTimer timer = new HeartbeatTimer(channel.eventLoop(), TimeUnit.MILLISECONDS.toNanos(INTERVAL_MS),
                ticks::add);
        timer.start();

        step(channel, INTERVAL_MS);           // on time
        step(channel, INTERVAL_MS + 20);      // a little late: still counts
        step(channel, 3 * INTERVAL_MS);       // the loop stalled: discounted
        step(channel, INTERVAL_MS);           // on time again
        step(channel, 3 * INTERVAL_MS);       // stalled again: discounted
        step(channel, 3 * INTERVAL_MS);       // late twice in a row: counts (silent peers still expire)
        assertEquals(List.of(true, true, false, true, false, true), ticks);

        timer.stop();
        step(channel, 10 * INTERVAL_MS);
        assertEquals(6, ticks.size(), "no tick after stop");
        channel.finishAndReleaseAll();
    }

    static void step(EmbeddedChannel channel, long ms) {
        channel.advanceTimeBy(ms, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
    }
}
