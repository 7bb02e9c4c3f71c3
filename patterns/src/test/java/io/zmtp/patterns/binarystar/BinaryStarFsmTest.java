package io.zmtp.patterns.binarystar;

import io.zmtp.patterns.binarystar.BinaryStarFsm.Outcome;
import io.zmtp.patterns.binarystar.BinaryStarFsm.Verdict;
import io.zmtp.patterns.kit.ManualClock;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static io.zmtp.patterns.binarystar.BinaryStarState.ACTIVE;
import static io.zmtp.patterns.binarystar.BinaryStarState.BACKUP;
import static io.zmtp.patterns.binarystar.BinaryStarState.PASSIVE;
import static io.zmtp.patterns.binarystar.BinaryStarState.PRIMARY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every row of the guide's Binary Star table, on a manual clock, without sockets. */
class BinaryStarFsmTest {
    private static final Duration EXPIRY = Duration.ofSeconds(2);
    private final ManualClock clock = new ManualClock();

    private BinaryStarFsm fsm(boolean primary) {
        return new BinaryStarFsm(primary, EXPIRY, clock::nanoTime);
    }

    /** A server brought to {@code state}, the peer just heard from. */
    private BinaryStarFsm in(BinaryStarState state) {
        return switch (state) {
            case PRIMARY -> fsm(true);
            case BACKUP -> fsm(false);
            case ACTIVE -> {
                BinaryStarFsm f = fsm(true);
                f.peerState(BACKUP);
                yield f;
            }
            case PASSIVE -> {
                BinaryStarFsm f = fsm(false);
                f.peerState(ACTIVE);
                yield f;
            }
        };
    }

    private static void expect(Outcome o, BinaryStarState from, BinaryStarState to, Verdict v) {
        assertEquals(from, o.from(), "from");
        assertEquals(to, o.to(), "to");
        assertEquals(v, o.verdict(), "verdict");
    }

    @Test
    void startsAsItsRole() {
        assertEquals(PRIMARY, fsm(true).state());
        assertEquals(BACKUP, fsm(false).state());
        assertFalse(fsm(true).peerAlive());
    }

    @Test
    void primaryTransitions() {
        expect(in(PRIMARY).peerState(BACKUP), PRIMARY, ACTIVE, Verdict.ACCEPTED);
        expect(in(PRIMARY).peerState(ACTIVE), PRIMARY, PASSIVE, Verdict.ACCEPTED);
        expect(in(PRIMARY).peerState(PASSIVE), PRIMARY, PRIMARY, Verdict.ACCEPTED);
        expect(in(PRIMARY).clientRequest(), PRIMARY, PRIMARY, Verdict.REFUSED);
        Outcome both = in(PRIMARY).peerState(PRIMARY);
        expect(both, PRIMARY, PRIMARY, Verdict.FATAL);
        assertTrue(both.reason().contains("both servers are primary"), both.reason());
    }

    @Test
    void backupTransitions() {
        expect(in(BACKUP).peerState(ACTIVE), BACKUP, PASSIVE, Verdict.ACCEPTED);
        expect(in(BACKUP).peerState(PRIMARY), BACKUP, BACKUP, Verdict.ACCEPTED);
        expect(in(BACKUP).peerState(PASSIVE), BACKUP, BACKUP, Verdict.ACCEPTED);
        expect(in(BACKUP).clientRequest(), BACKUP, BACKUP, Verdict.REFUSED);
        Outcome both = in(BACKUP).peerState(BACKUP);
        expect(both, BACKUP, BACKUP, Verdict.FATAL);
        assertTrue(both.reason().contains("both servers are backup"), both.reason());
    }

    @Test
    void activeTransitions() {
        expect(in(ACTIVE).peerState(PRIMARY), ACTIVE, ACTIVE, Verdict.ACCEPTED);
        expect(in(ACTIVE).peerState(BACKUP), ACTIVE, ACTIVE, Verdict.ACCEPTED);
        expect(in(ACTIVE).peerState(PASSIVE), ACTIVE, ACTIVE, Verdict.ACCEPTED);
        expect(in(ACTIVE).clientRequest(), ACTIVE, ACTIVE, Verdict.ACCEPTED);
        Outcome dual = in(ACTIVE).peerState(ACTIVE);
        expect(dual, ACTIVE, ACTIVE, Verdict.FATAL);
        assertTrue(dual.reason().contains("dual actives"), dual.reason());
    }

    @Test
    void passiveTransitions() {
        expect(in(PASSIVE).peerState(PRIMARY), PASSIVE, ACTIVE, Verdict.ACCEPTED);
        expect(in(PASSIVE).peerState(BACKUP), PASSIVE, ACTIVE, Verdict.ACCEPTED);
        expect(in(PASSIVE).peerState(ACTIVE), PASSIVE, PASSIVE, Verdict.ACCEPTED);
        Outcome dual = in(PASSIVE).peerState(PASSIVE);
        expect(dual, PASSIVE, PASSIVE, Verdict.FATAL);
        assertTrue(dual.reason().contains("dual passives"), dual.reason());
    }

    @Test
    void passiveTakesOverOnlyWhenThePeerIsGoneAndAClientAsks() {
        BinaryStarFsm f = in(PASSIVE);
        clock.advance(EXPIRY.minusMillis(1));
        assertTrue(f.peerAlive());
        expect(f.clientRequest(), PASSIVE, PASSIVE, Verdict.REFUSED);
        f.peerState(ACTIVE); // heard again: one more expiry
        clock.advance(EXPIRY.minusMillis(1));
        expect(f.clientRequest(), PASSIVE, PASSIVE, Verdict.REFUSED);
        clock.advance(Duration.ofMillis(1));
        assertFalse(f.peerAlive());
        // the peer lost alone changes nothing: no client, no takeover
        assertEquals(PASSIVE, f.state());
        Outcome o = f.clientRequest();
        expect(o, PASSIVE, ACTIVE, Verdict.ACCEPTED);
        assertEquals("failover successful, ready as active", o.reason());
    }

    /**
     * The guide's reactor rule: a (re)started primary serves no client before it knows its peer,
     * which may be active after a failover, unless the peer stays silent for the expiry.
     */
    @Test
    void aStartedPrimaryServesOnlyOnceThePeerHasBeenSilentForTheExpiry() {
        BinaryStarFsm f = fsm(true);
        clock.advance(EXPIRY.minusMillis(1));
        expect(f.clientRequest(), PRIMARY, PRIMARY, Verdict.REFUSED);
        clock.advance(Duration.ofMillis(1));
        Outcome o = f.clientRequest();
        expect(o, PRIMARY, ACTIVE, Verdict.ACCEPTED);
        assertEquals("request from client, ready as active", o.reason());
        expect(f.clientRequest(), ACTIVE, ACTIVE, Verdict.ACCEPTED);
    }

    @Test
    void aRestartedPrimaryThatHearsTheActiveBackupEndsPassiveHavingServedNothing() {
        BinaryStarFsm f = fsm(true);
        clock.advance(EXPIRY.dividedBy(2));
        expect(f.clientRequest(), PRIMARY, PRIMARY, Verdict.REFUSED);
        expect(f.peerState(ACTIVE), PRIMARY, PASSIVE, Verdict.ACCEPTED);
        clock.advance(EXPIRY.dividedBy(2));
        expect(f.clientRequest(), PASSIVE, PASSIVE, Verdict.REFUSED);
    }

    @Test
    void startCountsThePeersSilenceFromNow() {
        BinaryStarFsm f = fsm(true);
        clock.advance(EXPIRY);
        f.start();
        expect(f.clientRequest(), PRIMARY, PRIMARY, Verdict.REFUSED);
        clock.advance(EXPIRY);
        expect(f.clientRequest(), PRIMARY, ACTIVE, Verdict.ACCEPTED);
    }

    @Test
    void aPrimaryThatHearsAPassivePeerWaitsForItsSilence() {
        BinaryStarFsm f = fsm(true);
        clock.advance(EXPIRY);
        expect(f.peerState(PASSIVE), PRIMARY, PRIMARY, Verdict.ACCEPTED);
        expect(f.clientRequest(), PRIMARY, PRIMARY, Verdict.REFUSED);
        clock.advance(EXPIRY);
        expect(f.clientRequest(), PRIMARY, ACTIVE, Verdict.ACCEPTED);
    }

    @Test
    void fatalEventsDoNotRefreshThePeer() {
        BinaryStarFsm f = in(PASSIVE);
        clock.advance(EXPIRY);
        f.peerState(PASSIVE);
        assertFalse(f.peerAlive());
    }

    @Test
    void stateFramesAreAsciiDecimal() {
        for (BinaryStarState s : BinaryStarState.values()) {
            byte[] frame = Integer.toString(s.code()).getBytes(StandardCharsets.US_ASCII);
            assertEquals(s, BinaryStarState.parse(frame));
            assertEquals(s, BinaryStarState.parse(new byte[] {frame[0], 0}));
        }
        assertNull(BinaryStarState.parse("5".getBytes(StandardCharsets.US_ASCII)));
        assertNull(BinaryStarState.parse("0".getBytes(StandardCharsets.US_ASCII)));
        assertNull(BinaryStarState.parse("12".getBytes(StandardCharsets.US_ASCII)));
        assertNull(BinaryStarState.parse(new byte[0]));
        assertNull(BinaryStarState.parse(new byte[] {1, 0, 0, 0}));
    }
}
