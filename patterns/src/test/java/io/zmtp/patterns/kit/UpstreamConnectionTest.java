package io.zmtp.patterns.kit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A worker's connection to its upstream peer on the manual clock: loss, backoff, reset, stall guard, suspend. */
class UpstreamConnectionTest {
    static final Duration I = Duration.ofMillis(100);
    final KitLoop k = new KitLoop();
    final ManualClock clock = new ManualClock();
    final List<String> log = new CopyOnWriteArrayList<>();
    UpstreamConnection link;

    @AfterEach
    void stop() {
        k.close();
    }

    UpstreamConnection start(int liveness, Duration backoffInitial, Duration backoffMax) {
        link = new UpstreamConnection(clock.on(k.loop), Heartbeat.of(I, liveness), new Backoff(backoffInitial, backoffMax),
                new UpstreamConnection.Sockets() {
                    @Override
                    public void open() {
                        log.add("open");
                    }

                    @Override
                    public void close() {
                        log.add("close");
                    }

                    @Override
                    public void heartbeat() {
                        log.add("hb");
                    }

                    @Override
                    public void announce() {
                        log.add("ready");
                    }
                }, new UpstreamConnection.Listener() {
                    @Override
                    public void lost(Duration silence) {
                        log.add("lost " + silence.toMillis());
                    }

                    @Override
                    public void reconnecting(Duration delay) {
                        log.add("reconnect in " + delay.toMillis());
                    }
                });
        k.run(link::start);
        return link;
    }

    @Test
    void aSilentPeerIsLostAfterLivenessIntervalsAndTheDelayDoublesUpToTheMaximum() {
        start(3, Duration.ofMillis(1000), Duration.ofMillis(3000));
        clock.advance(I.multipliedBy(2));
        assertEquals(List.of("open", "hb", "hb"), log, "liveness 3: two silent ticks still heartbeat");
        clock.advance(I);
        assertEquals(List.of("open", "hb", "hb", "lost 300", "close", "reconnect in 1000"), log);
        log.clear();
        clock.advance(Duration.ofMillis(999));
        assertEquals(List.of(), log, "nothing until the delay is over");
        clock.advance(Duration.ofMillis(1));
        assertEquals(List.of("open"), log);
        log.clear();
        clock.advance(I.multipliedBy(3)); // lost again: 2 s
        clock.advance(Duration.ofMillis(2000));
        clock.advance(I.multipliedBy(3)); // and again: 3 s, the maximum
        clock.advance(Duration.ofMillis(3000));
        clock.advance(I.multipliedBy(3));
        assertEquals(List.of("reconnect in 2000", "reconnect in 3000", "reconnect in 3000"),
                log.stream().filter(s -> s.startsWith("reconnect")).toList());
    }

    /**
     * A peer that is down (refusing, or a proxy closing) is not a silent peer: until the
     * handshake nothing counts and no heartbeat goes, however long; on each handshake the worker
     * announces itself, and the silence counts from then with the full liveness.
     */
    @Test
    void aConnectionThatIsNotUpIsNotASilentPeer() {
        start(3, Duration.ofMillis(1000), Duration.ofMillis(3000));
        k.run(link::connecting);
        log.clear();
        clock.advance(I.multipliedBy(50));
        assertEquals(List.of(), log, "no heartbeat, no loss, no backoff while the connection is not up");
        k.run(link::connectionUp);
        assertEquals(List.of("ready"), log, "READY on the handshake");
        clock.advance(I.multipliedBy(2));
        assertEquals(List.of("ready", "hb", "hb"), log);
        k.run(link::connectionLost); // the peer went away: the socket reconnects by itself
        clock.advance(I.multipliedBy(50));
        assertEquals(List.of("ready", "hb", "hb"), log, "nothing counts while it is down");
        k.run(link::connectionUp); // back: announced again at once, no delay
        clock.advance(I.multipliedBy(2));
        assertEquals(List.of("ready", "hb", "hb", "ready", "hb", "hb"), log);
        clock.advance(I);
        assertEquals("lost 300", log.get(6), "connected but silent: the guide's loss, then its backoff");
        assertEquals("reconnect in 1000", log.get(8));
    }

    @Test
    void anythingHeardRestoresLivenessAndResetsTheBackoff() {
        start(3, Duration.ofMillis(1000), Duration.ofMillis(8000));
        clock.advance(I.multipliedBy(3));
        clock.advance(Duration.ofMillis(1000)); // reconnected after 1 s; next delay would be 2 s
        for (int i = 0; i < 10; i++) {
            clock.advance(I.multipliedBy(2));
            k.run(link::heard);
        }
        assertEquals(1, log.stream().filter(s -> s.startsWith("lost")).count(), "heard in time: never lost");
        clock.advance(I.multipliedBy(4));
        assertEquals("reconnect in 1000", log.get(log.size() - 1), "the backoff was reset by what was heard");
    }

    @Test
    void aStallLongerThanTheExpiryIsNotTakenForSilence() {
        start(2, Duration.ofMillis(1000), Duration.ofMillis(1000));
        clock.stall(I.multipliedBy(10)); // the loop froze for ten intervals: one late tick, discounted
        assertEquals(List.of("open", "hb"), log);
        k.run(link::heard); // what the peer sent meanwhile is read
        clock.advance(I.multipliedBy(2));
        assertEquals(List.of("open", "hb", "hb", "hb"), log);
    }

    @Test
    void aSuspendedLinkNeitherSendsNorCounts() {
        start(2, Duration.ofMillis(1000), Duration.ofMillis(1000));
        k.run(link::suspend);
        clock.advance(I.multipliedBy(10));
        assertEquals(List.of("open"), log);
        k.run(link::resume);
        clock.advance(I);
        assertEquals(List.of("open", "hb"), log);
        k.run(link::stop);
        clock.advance(I.multipliedBy(10));
        assertEquals(List.of("open", "hb"), log);
        assertEquals(0, clock.pendingTimers());
    }

    @Test
    void reopenReplacesTheConnectionAtOnceWithoutBackoffAndRestartsTheTicks() {
        start(2, Duration.ofMillis(1000), Duration.ofMillis(1000));
        clock.advance(Duration.ofMillis(50));
        k.run(link::reopen); // the peer said DISCONNECT
        assertEquals(List.of("open", "close", "open"), log, "no delay, no reconnecting event");
        clock.advance(Duration.ofMillis(50));
        assertEquals(List.of("open", "close", "open"), log, "the old phase's tick is gone");
        clock.advance(Duration.ofMillis(50));
        assertEquals(List.of("open", "close", "open", "hb"), log, "one interval after the new connection");
    }

    /** A worker that counts from the connect resets the count at the handshake (the Majordomo worker with several brokers). */
    @Test
    void resumeGivesThePeerItsFullLivenessFromNowAlsoWhenNotSuspended() {
        start(2, Duration.ofMillis(1000), Duration.ofMillis(1000));
        clock.advance(Duration.ofMillis(150));
        k.run(link::resume);
        clock.advance(Duration.ofMillis(150));
        assertEquals(List.of("open", "hb", "hb", "hb"), log, "200 ms after the connect, but only 150 after the resume");
        clock.advance(Duration.ofMillis(100));
        assertEquals(List.of("open", "hb", "hb", "hb", "lost 200", "close", "reconnect in 1000"), log);
    }
}
