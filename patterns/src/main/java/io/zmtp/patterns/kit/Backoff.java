package io.zmtp.patterns.kit;

import java.time.Duration;
import java.util.Objects;

/**
 * A delay that doubles after each failure, from {@code initial} up to {@code max}, and goes back to
 * {@code initial} on success: the guide's reconnect delay (INTERVAL_INIT and INTERVAL_MAX, reset
 * when the peer is heard from), and Titanic's pause between polls that found no reply yet.
 * {@code initial == max} is a fixed delay. Not thread-safe: one per component (or call), on its
 * loop (or thread).
 */
public final class Backoff {
    private final Duration initial;
    private final Duration max;
    private Duration next;

    public Backoff(Duration initial, Duration max) {
        Objects.requireNonNull(initial);
        Objects.requireNonNull(max);
        if (initial.isNegative() || initial.isZero()) {
            throw new IllegalArgumentException("the first delay must be positive");
        }
        this.initial = initial;
        this.max = max.compareTo(initial) < 0 ? initial : max;
        this.next = initial;
    }

    /** The delay to wait now; the one after it is doubled (up to the maximum). */
    public Duration next() {
        Duration d = next;
        Duration doubled = d.multipliedBy(2);
        next = doubled.compareTo(max) > 0 ? max : doubled;
        return d;
    }

    /** The delay {@link #next()} would return, without taking it. */
    public Duration peek() {
        return next;
    }

    /** Back to the first delay (the peer was heard from). */
    public void reset() {
        next = initial;
    }

    public Duration initial() {
        return initial;
    }

    public Duration max() {
        return max;
    }
}
