package io.zmtp.patterns.kit;

import java.time.Duration;
import java.util.Objects;

/**
 * An application-level heartbeat both ends agree on: each sends a heartbeat every
 * {@code interval}, and a peer not heard from for {@code liveness} intervals is dead.
 * The guide's Paranoid Pirate values are {@link #DEFAULT}: 1 s and 3 (3 to 5 is reasonable);
 * its Majordomo uses 2500 ms and 3.
 *
 * <p>Not ZMTP 3.1's connection-level PING/PONG ({@link io.zmtp.wire.HeartbeatPolicy}): this
 * heartbeat is made of application messages and also tells that the peer's code is alive.
 *
 * @param interval how often a heartbeat is sent (HEARTBEAT_INTERVAL), positive
 * @param liveness intervals of silence before the peer is dead (HEARTBEAT_LIVENESS), at least 1
 */
public record Heartbeat(Duration interval, int liveness) {
    /** The guide's Paranoid Pirate heartbeat: every second, dead after 3 silent seconds. */
    public static final Heartbeat DEFAULT = new Heartbeat(Duration.ofSeconds(1), 3);

    public Heartbeat {
        Objects.requireNonNull(interval);
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the heartbeat interval must be positive");
        }
        if (liveness < 1) {
            throw new IllegalArgumentException("liveness must be at least 1");
        }
    }

    /** A heartbeat every {@code interval}, dead after {@code liveness} silent intervals. */
    public static Heartbeat of(Duration interval, int liveness) {
        return new Heartbeat(interval, liveness);
    }

    /** How long a silent peer is given: interval x liveness. */
    public Duration expiry() {
        return interval.multipliedBy(liveness);
    }

    @Override
    public String toString() {
        return "heartbeat every " + interval.toMillis() + " ms, liveness " + liveness;
    }
}
