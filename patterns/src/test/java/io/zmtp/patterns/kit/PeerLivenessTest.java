package io.zmtp.patterns.kit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Peers expire in the order they were last heard from, in bounded batches, on the beat that counts;
 * a peer nothing was sent to for an interval is due a heartbeat.
 */
class PeerLivenessTest {
    final KitLoop k = new KitLoop();
    final ManualClock clock = new ManualClock();

    @AfterEach
    void stop() {
        k.close();
    }

    @Test
    void peersExpireLongestSilentFirstAndHearingFromOneMovesItToTheEnd() {
        PeerLiveness<String> peers = new PeerLiveness<>(clock.on(k.loop), Duration.ofMillis(100), Duration.ofMillis(300),
                PeerLiveness.DEFAULT_BATCH, counted -> { });
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
        PeerLiveness<Integer> peers = new PeerLiveness<>(clock.on(k.loop), Duration.ofMillis(100), Duration.ofMillis(100),
                PeerLiveness.DEFAULT_BATCH, counted -> { });
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

    /** A liveness beating every 100 ms, peers lost after 300 ms, its owner's calls in {@code log}. */
    PeerLiveness<String> beating(List<String> log) {
        PeerLiveness<String> peers = new PeerLiveness<>(clock.on(k.loop), Heartbeat.of(Duration.ofMillis(100), 3),
                new PeerLiveness.Owner<>() {
                    @Override
                    public void beat(boolean counted) {
                        log.add(counted ? "beat" : "late beat");
                    }

                    @Override
                    public void expired(String peer) {
                        log.add("expired " + peer);
                    }

                    @Override
                    public void due(String peer) {
                        log.add("due " + peer);
                    }
                });
        k.run(peers::start);
        return peers;
    }

    @Test
    void theBeatThatEndsAPeersExpiryForgetsItBeforeTheOwnerBeats() {
        List<String> log = new CopyOnWriteArrayList<>();
        PeerLiveness<String> peers = beating(log);
        k.run(() -> peers.heard("a"));
        clock.advance(Duration.ofMillis(50));
        k.run(() -> peers.heard("b"));
        clock.advance(Duration.ofMillis(250));
        assertEquals(List.of("beat", "beat", "expired a", "beat"), log, "a: 300 ms silent at the third beat");
        assertTrue(k.call(() -> peers.isAlive("b")));
        clock.advance(Duration.ofMillis(50));
        assertFalse(k.call(() -> peers.isAlive("b")), "b's expiry passed; it goes on the next beat");
        assertTrue(k.call(() -> peers.contains("b")));
        clock.advance(Duration.ofMillis(50));
        assertEquals(List.of("beat", "beat", "expired a", "beat", "expired b", "beat"), log);
        assertTrue(k.call(peers::isEmpty));
    }

    @Test
    void aBeatThatRunsLateExpiresNobodyAndTheNextOneDoes() {
        List<String> log = new CopyOnWriteArrayList<>();
        PeerLiveness<String> peers = beating(log);
        k.run(() -> peers.heard("a"));
        clock.stall(Duration.ofMillis(1000)); // the loop stalled: it has not read what "a" sent meanwhile
        assertEquals(List.of("late beat"), log);
        clock.advance(Duration.ofMillis(100));
        assertEquals(List.of("late beat", "expired a", "beat"), log, "the next beat, on time, counts");
    }

    @Test
    void aPeerIsDueAHeartbeatAnIntervalAfterAnythingWasLastSentToIt() {
        List<String> log = new CopyOnWriteArrayList<>();
        PeerLiveness<String> peers = beating(log);
        clock.advance(Duration.ofMillis(40)); // not in phase with the beat
        k.run(() -> {
            peers.heard("a");
            peers.sent("a");
        });
        clock.advance(Duration.ofMillis(99));
        assertEquals(List.of("beat"), log, "nothing due before an interval");
        clock.advance(Duration.ofMillis(1));
        assertEquals(List.of("beat", "due a"), log);
        clock.advance(Duration.ofMillis(50));
        k.run(() -> {
            peers.heard("a");
            peers.sent("a"); // a request went to it: the next heartbeat an interval from now
        });
        clock.advance(Duration.ofMillis(99));
        assertEquals(List.of("beat", "due a", "beat"), log, "not due 100 ms after the last heartbeat: sent to since");
        clock.advance(Duration.ofMillis(1));
        assertEquals("due a", log.get(log.size() - 1));
        k.run(() -> peers.remove("a"));
        clock.advance(Duration.ofMillis(500));
        assertFalse(log.subList(4, log.size()).contains("due a"), "a forgotten peer is due nothing");
        k.run(peers::stop);
        assertEquals(0, clock.pendingTimers(), "stopped: no beat, no due heartbeat");
    }

    @Test
    void anOwnerThatStopsTheBeatWhenAPeerExpiresGetsNoBeatAfterIt() {
        List<String> log = new CopyOnWriteArrayList<>();
        AtomicReference<PeerLiveness<String>> peers = new AtomicReference<>();
        peers.set(new PeerLiveness<>(clock.on(k.loop), Heartbeat.of(Duration.ofMillis(100), 2),
                new PeerLiveness.Owner<>() {
                    @Override
                    public void beat(boolean counted) {
                        log.add("beat");
                    }

                    @Override
                    public void expired(String peer) {
                        log.add("lost " + peer);
                        peers.get().stop(); // the upstream peer is lost: no beats until a new connection
                    }
                }));
        k.run(() -> {
            peers.get().start();
            peers.get().heard("upstream");
        });
        clock.advance(Duration.ofMillis(500));
        assertEquals(List.of("beat", "lost upstream"), log);
        assertEquals(0, clock.pendingTimers());
    }
}
