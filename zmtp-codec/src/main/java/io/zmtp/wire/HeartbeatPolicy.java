package io.zmtp.wire;

import java.time.Duration;

/**
 * ZMTP 3.1 connection heartbeats (PING/PONG), as libzmq's ZMQ_HEARTBEAT_IVL, _TTL and _TIMEOUT.
 *
 * <ul>
 *   <li>{@code interval}: how often we send PING; zero turns our PINGs off (the default, as in
 *       libzmq). Peers' PINGs are always answered.</li>
 *   <li>{@code ttl}: the TTL we put in our PINGs, telling the peer to drop us if it hears nothing
 *       within it; zero sends no TTL. Carried in tenths of a second, at most 6553.5 s.</li>
 *   <li>{@code timeout}: how long after a PING we wait for any traffic before we drop the
 *       connection; zero means "the interval".</li>
 * </ul>
 * Any incoming frame counts as a sign of life. Heartbeats are never sent to a ZMTP 3.0 peer.
 */
public final class HeartbeatPolicy {
    public static final HeartbeatPolicy OFF = new HeartbeatPolicy(Duration.ZERO, Duration.ZERO, Duration.ZERO);

    private final Duration interval;
    private final Duration ttl;
    private final Duration timeout;

    private HeartbeatPolicy(Duration interval, Duration ttl, Duration timeout) {
        if (interval.isNegative() || ttl.isNegative() || timeout.isNegative()) {
            throw new IllegalArgumentException("heartbeat durations must not be negative");
        }
        if (ttl.toMillis() > 6_553_500) {
            throw new IllegalArgumentException("heartbeat TTL above 6553.5 s cannot be sent");
        }
        this.interval = interval;
        this.ttl = ttl;
        this.timeout = timeout;
    }

    /** PING every {@code interval}, drop after {@code interval} of silence following a PING, no TTL. */
    public static HeartbeatPolicy every(Duration interval) {
        return new HeartbeatPolicy(interval, Duration.ZERO, Duration.ZERO);
    }

    public static HeartbeatPolicy of(Duration interval, Duration ttl, Duration timeout) {
        return new HeartbeatPolicy(interval, ttl, timeout);
    }

    public HeartbeatPolicy withTtl(Duration newTtl) {
        return new HeartbeatPolicy(interval, newTtl, timeout);
    }

    public HeartbeatPolicy withTimeout(Duration newTimeout) {
        return new HeartbeatPolicy(interval, ttl, newTimeout);
    }

    public boolean enabled() {
        return !interval.isZero();
    }

    public Duration interval() {
        return interval;
    }

    public Duration ttl() {
        return ttl;
    }

    /** The effective timeout: the configured one, or the interval when that is zero. */
    public Duration timeout() {
        return timeout.isZero() ? interval : timeout;
    }

    /** The TTL field of our PINGs, in tenths of a second. */
    public int ttlDeciseconds() {
        return (int) (ttl.toMillis() / 100);
    }

    @Override
    public String toString() {
        return enabled() ? "heartbeat(interval=" + interval.toMillis() + "ms, ttl=" + ttl.toMillis()
                + "ms, timeout=" + timeout().toMillis() + "ms)" : "heartbeat(off)";
    }
}
