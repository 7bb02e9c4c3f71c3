package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.kit.PatternClock;
import io.zmtp.socket.SocketOptions;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

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
 */
public final class MajordomoClientSettings {
    /** The default settle delay of a failover to the next broker endpoint: 2000 ms. */
    public static final Duration DEFAULT_FAILOVER_SETTLE = Duration.ofMillis(2000);
    public static final MajordomoClientSettings DEFAULTS = builder().build();

    private final MdpVersion version;
    private final Duration timeout;
    private final int retries;
    private final SocketOptions socketOptions;
    private final MessageTracer tracer;
    private final Consumer<MajordomoEvent> listener;
    private final PatternClock clock;
    private final Duration failoverSettle;

    private MajordomoClientSettings(Builder b) {
        failoverSettle = b.failoverSettle;
        version = b.version;
        timeout = b.timeout;
        retries = b.retries;
        socketOptions = b.socketOptions;
        tracer = b.tracer;
        listener = b.listener;
        clock = b.clock;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.version = version;
        b.timeout = timeout;
        b.retries = retries;
        b.socketOptions = socketOptions;
        b.tracer = tracer;
        b.listener = listener;
        b.clock = clock;
        b.failoverSettle = failoverSettle;
        return b;
    }

    public MdpVersion version() {
        return version;
    }

    public Duration timeout() {
        return timeout;
    }

    public int retries() {
        return retries;
    }

    public SocketOptions socketOptions() {
        return socketOptions;
    }

    public MessageTracer tracer() {
        return tracer;
    }

    public Consumer<MajordomoEvent> listener() {
        return listener;
    }

    /** Where the component reads the time and sets its timers (heartbeats, expiry, retries); default the event loop's. */
    public PatternClock clock() {
        return clock;
    }

    /**
     * With several broker endpoints: how long a client waits after a timeout before it resends
     * everything outstanding to the next endpoint (2000 ms).
     */
    public Duration failoverSettle() {
        return failoverSettle;
    }

    public static final class Builder {
        private MdpVersion version = MdpVersion.V0_1;
        private Duration timeout = Duration.ofMillis(2500);
        private int retries = 3;
        private SocketOptions socketOptions = SocketOptions.builder().linger(Duration.ZERO).build();
        private MessageTracer tracer;
        private Consumer<MajordomoEvent> listener;
        private PatternClock clock = PatternClock.system();
        private Duration failoverSettle = DEFAULT_FAILOVER_SETTLE;

        private Builder() {
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

        /** The clock of heartbeats, expiry and retries: {@link PatternClock#system()} by default, a manual clock in tests. */
        public Builder clock(PatternClock c) {
            this.clock = Objects.requireNonNull(c);
            return this;
        }

        public Builder version(MdpVersion v) {
            this.version = Objects.requireNonNull(v);
            return this;
        }

        /** How long to wait without any reply before resending on a new socket. */
        public Builder timeout(Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("timeout must be positive");
            }
            this.timeout = d;
            return this;
        }

        /** How many times a request is sent at most, the first send included. */
        public Builder retries(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("retries must be at least 1");
            }
            this.retries = n;
            return this;
        }

        public Builder socketOptions(SocketOptions o) {
            this.socketOptions = Objects.requireNonNull(o);
            return this;
        }

        public Builder tracer(MessageTracer t) {
            this.tracer = t;
            return this;
        }

        public Builder listener(Consumer<MajordomoEvent> l) {
            this.listener = l;
            return this;
        }

        public MajordomoClientSettings build() {
            return new MajordomoClientSettings(this);
        }
    }
}
