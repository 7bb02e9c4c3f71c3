package io.zmtp.patterns.kit;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Where a {@link RetryingRequester} sends its tries: one endpoint (every try goes to it, the Lazy
 * Pirate client), or several taken in turn, one more after each timeout, after a settle delay
 * that gives the pair behind them time to fail over (the guide's Binary Star client: primary,
 * backup, 2000 ms).
 *
 * @param endpoints the endpoints, the first tried first; at least one
 * @param settle how long the requester waits after a timeout before it connects to the next
 *        endpoint and resends (zero: at once); not used with one endpoint
 */
public record Failover(List<String> endpoints, Duration settle) {
    public Failover {
        endpoints = List.copyOf(endpoints);
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("at least one endpoint");
        }
        Objects.requireNonNull(settle);
        if (settle.isNegative()) {
            throw new IllegalArgumentException("settle delay must not be negative");
        }
    }

    /** Every try to {@code endpoint}. */
    public static Failover single(String endpoint) {
        return new Failover(List.of(Objects.requireNonNull(endpoint)), Duration.ZERO);
    }

    /** Whether a timeout moves to another endpoint. */
    public boolean rotates() {
        return endpoints.size() > 1;
    }
}
