package io.zmtp.patterns.kit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Peers expire in the order they were last heard from, in bounded batches. */
class PeerLivenessTest {
    final KitLoop k = new KitLoop();
    final ManualClock clock = new ManualClock();

    @AfterEach
    void stop() {
        k.close();
    }

    @Test
    void peersExpireLongestSilentFirstAndHearingFromOneMovesItToTheEnd() {
        PeerLiveness<String> peers = new PeerLiveness<>(clock.on(k.loop), Duration.ofMillis(300));
        List<String> expired = new ArrayList<>();
        k.run(() -> {
            assertTrue(peers.heard("a"));
            assertTrue(peers.heard("b"));
        });
        clock.advance(Duration.ofMillis(100));
        k.run(() -> {
            assertTrue(peers.heard("c"));
            assertFalse(peers.heard("a"), "a is known: moved to the end");
        });
        clock.advance(Duration.ofMillis(200)); // b: 300 ms silent; a and c: 200 ms
        k.run(() -> assertFalse(peers.expire(10, expired::add)));
        assertEquals(List.of("b"), expired);
        clock.advance(Duration.ofMillis(100));
        k.run(() -> peers.expire(10, expired::add));
        assertEquals(List.of("b", "c", "a"), expired);
        assertEquals(0, (int) k.call(peers::size));
    }

    @Test
    void aMassExpiryRunsInBatchesWithTheLoopFreeInBetween() {
        PeerLiveness<Integer> peers = new PeerLiveness<>(clock.on(k.loop), Duration.ofMillis(100));
        List<String> order = new ArrayList<>();
        k.run(() -> {
            for (int i = 0; i < 10; i++) {
                peers.heard(i);
            }
        });
        clock.advance(Duration.ofMillis(100));
        k.run(() -> {
            peers.expireInBatches(4, i -> order.add("expired " + i), () -> order.add("done"));
            k.loop.execute(() -> order.add("other work"));
        });
        io.zmtp.patterns.PatternTesting.eventually("all batches ran", () -> k.call(() -> order.contains("done")));
        assertEquals(List.of("expired 0", "expired 1", "expired 2", "expired 3", "expired 4", "expired 5",
                "expired 6", "expired 7", "other work", "expired 8", "expired 9", "done"), k.call(() -> List.copyOf(order)),
                "work queued on the loop meanwhile ran between two batches");
    }
}
