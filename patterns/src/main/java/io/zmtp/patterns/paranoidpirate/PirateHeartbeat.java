package io.zmtp.patterns.paranoidpirate;

import java.time.Duration;
import java.util.Objects;

/**
 * The heartbeat of the Paranoid Pirate Protocol (6/PPP), which the queue and its workers must
 * agree on: each sends HEARTBEAT every {@link #interval()}, and a peer not heard from for
 * {@link #liveness()} intervals is dead. The guide's values are the default: 1 s and 3 (3 to 5
 * is reasonable).
 *
 * <p>Not to be confused with {@link io.zmtp.wire.HeartbeatPolicy}, ZMTP 3.1's connection-level
 * PING/PONG: this heartbeat is made of application messages and also tells the queue that a
 * worker is alive, not only that its connection is.
 */
public final class PirateHeartbeat {
    /** The guide's heartbeat: every second, dead after 3 silent seconds. */
    public static final PirateHeartbeat DEFAULT = new PirateHeartbeat(Duration.ofSeconds(1), 3);

    private final Duration interval;
    private final int liveness;

    private PirateHeartbeat(Duration interval, int liveness) {
        this.interval = interval;
        this.liveness = liveness;
    }

    /**
     * A heartbeat every {@code interval}; a peer is dead after {@code liveness} intervals without a
     * word from it.
     */
    public static PirateHeartbeat of(Duration interval, int liveness) {
        Objects.requireNonNull(interval);
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the heartbeat interval must be positive");
        }
        if (liveness < 1) {
            throw new IllegalArgumentException("liveness must be at least 1");
        }
        return new PirateHeartbeat(interval, liveness);
    }

    /** How often a HEARTBEAT is sent (HEARTBEAT_INTERVAL). */
    public Duration interval() {
        return interval;
    }

    /** How many intervals may pass in silence before a peer is dead (HEARTBEAT_LIVENESS). */
    public int liveness() {
        return liveness;
    }

    /** How long a silent peer is given: interval x liveness. */
    public Duration expiry() {
        return interval.multipliedBy(liveness);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PirateHeartbeat && ((PirateHeartbeat) o).interval.equals(interval)
                && ((PirateHeartbeat) o).liveness == liveness;
    }

    @Override
    public int hashCode() {
        return interval.hashCode() * 31 + liveness;
    }

    @Override
    public String toString() {
        return "heartbeat every " + interval.toMillis() + " ms, liveness " + liveness;
    }
}
