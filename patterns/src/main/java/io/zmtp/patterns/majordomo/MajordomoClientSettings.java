package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.patterns.kit.RetryPolicy;
import io.zmtp.socket.SocketOptions;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings of a {@link MajordomoClient} and a {@link MajordomoAsyncClient}.
 *
 * <table>
 *   <caption>Defaults</caption>
 *   <tr><td>protocol</td><td>MDP/0.1 (7/MDP, the stable version)</td></tr>
 *   <tr><td>timeout</td><td>2500 ms without any reply (the guide's REQUEST_TIMEOUT)</td></tr>
 *   <tr><td>retries</td><td>3: a request is sent at most 3 times, the first send included (the
 *       guide's REQUEST_RETRIES), each resend on a new socket</td></tr>
 *   <tr><td>socket</td><td>linger 0 (a socket is dropped with whatever it still holds)</td></tr>
 *   <tr><td>failover settle</td><td>2000 ms: with several broker endpoints (a highly available
 *       pair), how long the client waits after a timeout before it resends to the next endpoint
 *       (the guide's Binary Star client's SETTLE_DELAY, two state heartbeats: time for the passive
 *       broker to see its peer gone, so the resent request's vote makes it active)</td></tr>
 * </table>
 *
 * <p>With the clock, socket options, tracer and listener of every Majordomo component
 * ({@link MajordomoSettings}).
 */
public final class MajordomoClientSettings extends MajordomoSettings {
    /** The default settle delay of a failover to the next broker endpoint: 2000 ms. */
    public static final Duration DEFAULT_FAILOVER_SETTLE = Duration.ofMillis(2000);
    public static final MajordomoClientSettings DEFAULTS = builder().build();

    private final MdpVersion version;
    private final RetryPolicy policy;
    private final Duration failoverSettle;

    private MajordomoClientSettings(Builder b) {
        super(b);
        version = b.version;
        policy = b.policy;
        failoverSettle = b.failoverSettle;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder().from(this);
        b.version = version;
        b.policy = policy;
        b.failoverSettle = failoverSettle;
        return b;
    }

    public MdpVersion version() {
        return version;
    }

    /**
     * The timeout of one try and the tries of a request (the guide's 2500 ms and 3); each client
     * adds what is its own (the asynchronous client: many in flight, resent when the connection
     * drops).
     */
    public RetryPolicy policy() {
        return policy;
    }

    /** How long one try waits without any reply before the request is resent on a new socket. */
    public Duration timeout() {
        return policy.timeout();
    }

    /** How many times a request is sent at most, the first send included. */
    public int retries() {
        return policy.tries();
    }

    /**
     * With several broker endpoints: how long a client waits after a timeout before it resends
     * everything outstanding to the next endpoint (2000 ms).
     */
    public Duration failoverSettle() {
        return failoverSettle;
    }

    public static final class Builder extends MajordomoSettings.Builder<Builder, MajordomoClientSettings> {
        private MdpVersion version = MdpVersion.V0_1;
        private RetryPolicy policy = RetryPolicy.DEFAULT;
        private Duration failoverSettle = DEFAULT_FAILOVER_SETTLE;

        private Builder() {
            super(ComponentSettings.SOCKET_OPTIONS.toBuilder().linger(Duration.ZERO).build());
        }

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * With several broker endpoints: the wait after a timeout before the next endpoint is tried
         * (2000 ms, the guide's Binary Star settle delay; zero: at once). Give a highly available
         * pair at least its peer expiry (two state heartbeats), so the backup has seen the primary
         * gone when the resent request arrives.
         */
        public Builder failoverSettle(Duration d) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("failover settle delay must not be negative");
            }
            this.failoverSettle = d;
            return this;
        }

        public Builder version(MdpVersion v) {
            this.version = Objects.requireNonNull(v);
            return this;
        }

        /** How long to wait without any reply before resending on a new socket. */
        public Builder timeout(Duration d) {
            this.policy = policy.withTimeout(positive(d, "timeout"));
            return this;
        }

        /** How many times a request is sent at most, the first send included. */
        public Builder retries(int n) {
            this.policy = policy.withTries(atLeast(1, n, "retries"));
            return this;
        }

        @Override
        public MajordomoClientSettings build() {
            return new MajordomoClientSettings(this);
        }
    }
}
