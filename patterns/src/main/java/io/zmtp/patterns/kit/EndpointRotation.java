package io.zmtp.patterns.kit;

import java.time.Duration;
import java.util.Objects;

/**
 * Where a component's connection goes when it has several endpoints to move between (the two
 * servers of a highly available pair): the current endpoint, and the next one, in turn, when the
 * current one failed. With one endpoint it never moves. A move may first wait the
 * {@link Failover#settle() settle delay}, a timer of the component's clock, which gives the pair
 * behind the endpoints time to fail over (the guide's Binary Star client). The endpoint that last
 * worked stays current: nothing moves back by itself.
 *
 * <p>The {@link RetryingRequester} moves after a timeout (with the settle delay); the
 * Majordomo worker after a lost, silent or refusing broker (at once), and after a broker its
 * socket stopped reconnecting to, until every broker has stopped ({@link #stoppedMoveOn()}). Used
 * on the component's loop only.
 */
public final class EndpointRotation {
    private final Failover failover;
    private final LoopClock clock;
    private int index;
    /** The endpoints whose socket stopped reconnecting since a connection last came up. */
    private final java.util.BitSet stopped = new java.util.BitSet();
    /** Between a move and the end of its settle delay, or null. */
    private LoopClock.Timer settle;

    public EndpointRotation(Failover failover, LoopClock clock) {
        this.failover = Objects.requireNonNull(failover);
        this.clock = Objects.requireNonNull(clock);
    }

    /** The endpoint the current (or next) connection goes to. */
    public String current() {
        return failover.endpoints().get(index);
    }

    /** Whether there is another endpoint to move to. */
    public boolean rotates() {
        return failover.rotates();
    }

    /** How many endpoints there are to take in turn. */
    public int size() {
        return failover.endpoints().size();
    }

    /** Moves to the next endpoint now. */
    public void next() {
        index = (index + 1) % failover.endpoints().size();
    }

    /**
     * The current endpoint's socket stopped reconnecting to it (a {@code ReconnectStop} case, or
     * the peer's ERROR): it is counted, and the rotation moves to the next endpoint. Returns
     * whether one is left to try: false once every endpoint has stopped since a connection last
     * came up ({@link #connected()}), and always false with one endpoint.
     */
    public boolean stoppedMoveOn() {
        stopped.set(index);
        next();
        return stopped.cardinality() < failover.endpoints().size();
    }

    /** A connection came up: the endpoints that stopped before are worth another try. */
    public void connected() {
        stopped.clear();
    }

    /**
     * Moves to the next endpoint and runs {@code settled} on the loop after the settle delay; until
     * then {@link #settling()} is true.
     */
    public void nextAfterSettle(Runnable settled) {
        next();
        cancel();
        settle = clock.schedule(() -> {
            settle = null;
            settled.run();
        }, failover.settle());
    }

    /** How long a move waits before the next endpoint is tried. */
    public Duration settle() {
        return failover.settle();
    }

    /** Whether a move waits for its settle delay. */
    public boolean settling() {
        return settle != null;
    }

    /** The settle delay is not waited for any more (the component closes). */
    public void cancel() {
        if (settle != null) {
            settle.cancel();
            settle = null;
        }
    }
}
