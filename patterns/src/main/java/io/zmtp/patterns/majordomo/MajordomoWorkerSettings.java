package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.kit.Heartbeat;
import io.zmtp.socket.SocketOptions;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The settings of a {@link MajordomoWorker}.
 *
 * <table>
 *   <caption>Defaults</caption>
 *   <tr><td>protocol</td><td>MDP/0.1 (7/MDP, the stable version)</td></tr>
 *   <tr><td>heartbeat interval</td><td>2500 ms; must be close to the broker's</td></tr>
 *   <tr><td>heartbeat liveness</td><td>3: a broker silent for 3 intervals is taken as lost</td></tr>
 *   <tr><td>reconnect delay</td><td>2500 ms after the broker was lost (a DISCONNECT from the
 *       broker reconnects at once)</td></tr>
 *   <tr><td>reconnect delay max</td><td>the reconnect delay (MDP's fixed delay); larger: the delay
 *       doubles after each loss up to it, and goes back to the first once the broker answers</td></tr>
 *   <tr><td>executor</td><td>none given: the worker runs its handler on a thread of its own</td></tr>
 *   <tr><td>socket</td><td>DEALER, linger 1 s (to flush the DISCONNECT sent when closing), a lost
 *       broker retried every 100 ms without doubling (libzmq's reconnect), so the worker is back
 *       within about 100 ms of a broker restart</td></tr>
 * </table>
 *
 * <p>With the clock, socket options, tracer and listener of every Majordomo component
 * ({@link MajordomoSettings}).
 */
public final class MajordomoWorkerSettings extends MajordomoSettings {
    public static final MajordomoWorkerSettings DEFAULTS = builder().build();

    private final MdpVersion version;
    private final Heartbeat heartbeat;
    private final Duration reconnectDelay;
    private final Duration reconnectDelayMax;
    private final Executor executor;

    private MajordomoWorkerSettings(Builder b) {
        super(b);
        version = b.version;
        heartbeat = b.heartbeat;
        reconnectDelay = b.reconnectDelay;
        reconnectDelayMax = b.reconnectDelayMax == null || b.reconnectDelayMax.compareTo(b.reconnectDelay) < 0
                ? b.reconnectDelay : b.reconnectDelayMax;
        executor = b.executor;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder().from(this);
        b.version = version;
        b.heartbeat = heartbeat;
        b.reconnectDelay = reconnectDelay;
        b.reconnectDelayMax = reconnectDelayMax;
        b.executor = executor;
        return b;
    }

    public MdpVersion version() {
        return version;
    }

    /** How often the worker heartbeats the broker, and after how many silent intervals the broker is lost. */
    public Heartbeat heartbeat() {
        return heartbeat;
    }

    /** The first delay before the worker connects again after it lost the broker. */
    public Duration reconnectDelay() {
        return reconnectDelay;
    }

    /** The longest reconnect delay, reached by doubling; at least {@link #reconnectDelay()} (the default: fixed). */
    public Duration reconnectDelayMax() {
        return reconnectDelayMax;
    }

    /** Where request handlers run; null: a thread of the worker's own. */
    public Executor executor() {
        return executor;
    }

    public static final class Builder extends MajordomoSettings.Builder<Builder, MajordomoWorkerSettings> {
        private MdpVersion version = MdpVersion.V0_1;
        private Heartbeat heartbeat = DEFAULT_HEARTBEAT;
        private Duration reconnectDelay = Duration.ofMillis(2500);
        private Duration reconnectDelayMax;
        private Executor executor;

        private Builder() {
            // The socket retries a lost broker every 100 ms, as libzmq's does (no doubling), so a worker
            // registers again within about 100 ms of a broker restart: READY goes out on reconnect.
            super(SocketOptions.builder().linger(Duration.ofSeconds(1))
                    .reconnectInterval(Duration.ofMillis(100)).reconnectIntervalMax(Duration.ofMillis(100)).build());
        }

        @Override
        protected Builder self() {
            return this;
        }

        public Builder version(MdpVersion v) {
            this.version = Objects.requireNonNull(v);
            return this;
        }

        /** The heartbeat with the broker: its interval, and the liveness of a silent broker (2500 ms, 3). */
        public Builder heartbeat(Heartbeat h) {
            this.heartbeat = Objects.requireNonNull(h);
            return this;
        }

        public Builder heartbeatInterval(Duration d) {
            return heartbeat(Heartbeat.of(positive(d, "heartbeatInterval"), heartbeat.liveness()));
        }

        public Builder heartbeatLiveness(int n) {
            return heartbeat(Heartbeat.of(heartbeat.interval(), atLeast(1, n, "heartbeatLiveness")));
        }

        public Builder reconnectDelay(Duration d) {
            this.reconnectDelay = notNegative(d, "reconnectDelay");
            return this;
        }

        /** The longest reconnect delay (the delay doubles up to it); below the reconnect delay: fixed. */
        public Builder reconnectDelayMax(Duration d) {
            this.reconnectDelayMax = Objects.requireNonNull(d);
            return this;
        }

        /**
         * Where request handlers run. A handler that never blocks may run on the worker's event
         * loop with {@code Runnable::run}; anything that may block needs a thread of its own (the
         * default).
         */
        public Builder executor(Executor e) {
            this.executor = e;
            return this;
        }

        @Override
        public MajordomoWorkerSettings build() {
            return new MajordomoWorkerSettings(this);
        }
    }
}
