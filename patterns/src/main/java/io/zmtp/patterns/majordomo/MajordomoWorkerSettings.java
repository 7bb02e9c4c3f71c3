package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.kit.PatternClock;
import io.zmtp.socket.SocketOptions;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

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
 *   <tr><td>socket</td><td>DEALER, linger 1 s (to flush the DISCONNECT sent when closing)</td></tr>
 * </table>
 */
public final class MajordomoWorkerSettings {
    public static final MajordomoWorkerSettings DEFAULTS = builder().build();

    private final MdpVersion version;
    private final Duration heartbeatInterval;
    private final int heartbeatLiveness;
    private final Duration reconnectDelay;
    private final Duration reconnectDelayMax;
    private final Executor executor;
    private final SocketOptions socketOptions;
    private final MessageTracer tracer;
    private final Consumer<MajordomoEvent> listener;
    private final PatternClock clock;

    private MajordomoWorkerSettings(Builder b) {
        version = b.version;
        heartbeatInterval = b.heartbeatInterval;
        heartbeatLiveness = b.heartbeatLiveness;
        reconnectDelay = b.reconnectDelay;
        reconnectDelayMax = b.reconnectDelayMax == null || b.reconnectDelayMax.compareTo(b.reconnectDelay) < 0
                ? b.reconnectDelay : b.reconnectDelayMax;
        executor = b.executor;
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
        b.heartbeatInterval = heartbeatInterval;
        b.heartbeatLiveness = heartbeatLiveness;
        b.reconnectDelay = reconnectDelay;
        b.reconnectDelayMax = reconnectDelayMax;
        b.executor = executor;
        b.socketOptions = socketOptions;
        b.tracer = tracer;
        b.listener = listener;
        b.clock = clock;
        return b;
    }

    public MdpVersion version() {
        return version;
    }

    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    public int heartbeatLiveness() {
        return heartbeatLiveness;
    }

    public Duration heartbeatExpiry() {
        return heartbeatInterval.multipliedBy(heartbeatLiveness);
    }

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

    public static final class Builder {
        private MdpVersion version = MdpVersion.V0_1;
        private Duration heartbeatInterval = Duration.ofMillis(2500);
        private int heartbeatLiveness = 3;
        private Duration reconnectDelay = Duration.ofMillis(2500);
        private Duration reconnectDelayMax;
        private Executor executor;
        // The socket retries a lost broker every 100 ms, as libzmq's does (no doubling), so a worker
        // registers again within about 100 ms of a broker restart: READY goes out on reconnect.
        private SocketOptions socketOptions = SocketOptions.builder().linger(Duration.ofSeconds(1))
                .reconnectInterval(Duration.ofMillis(100)).reconnectIntervalMax(Duration.ofMillis(100)).build();
        private MessageTracer tracer;
        private Consumer<MajordomoEvent> listener;
        private PatternClock clock = PatternClock.system();

        private Builder() {
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

        public Builder heartbeatInterval(Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("heartbeatInterval must be positive");
            }
            this.heartbeatInterval = d;
            return this;
        }

        public Builder heartbeatLiveness(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("heartbeatLiveness must be at least 1");
            }
            this.heartbeatLiveness = n;
            return this;
        }

        public Builder reconnectDelay(Duration d) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("reconnectDelay must not be negative");
            }
            this.reconnectDelay = d;
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

        /**
         * The worker socket's options. By default: linger 1 s, and a lost broker retried every
         * 100 ms without doubling (libzmq's reconnect), so the worker is back within about 100 ms
         * of a broker restart.
         */
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

        public MajordomoWorkerSettings build() {
            return new MajordomoWorkerSettings(this);
        }
    }
}
