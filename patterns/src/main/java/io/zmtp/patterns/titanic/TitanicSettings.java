package io.zmtp.patterns.titanic;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.patterns.majordomo.MajordomoClientSettings;
import io.zmtp.patterns.majordomo.MajordomoWorkerSettings;
import io.zmtp.patterns.majordomo.MdpVersion;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The settings of a {@link TitanicServer}.
 *
 * <table>
 *   <caption>Defaults</caption>
 *   <tr><td>broker</td><td>{@code tcp://localhost:5555} (the guide's)</td></tr>
 *   <tr><td>protocol</td><td>MDP/0.1 for its workers and its dispatching clients</td></tr>
 *   <tr><td>requestWorkers</td><td>32 workers for {@code titanic.request}: a Majordomo worker
 *       serves one request at a time, so this is how many submissions can wait for the store's
 *       commit at once (what group commit groups)</td></tr>
 *   <tr><td>replyWorkers, closeWorkers</td><td>8 each</td></tr>
 *   <tr><td>retryInterval</td><td>1 s: a request whose service has no workers, or whose
 *       dispatch failed, is tried again after it; {@code mmi.service} is asked at most once per
 *       interval per service</td></tr>
 *   <tr><td>dispatchTimeout</td><td>5 s without a reply from the service: the dispatch failed
 *       (the request waits for the retry interval and goes again)</td></tr>
 *   <tr><td>dispatchLanes</td><td>8 (at most 64): requests to one service in flight at once; each
 *       lane is a Majordomo client with at most one request per service, so a reply always
 *       answers the right request</td></tr>
 *   <tr><td>maxDispatches</td><td>256 requests in flight over all services</td></tr>
 *   <tr><td>maxRequestBytes</td><td>16 MiB: a bigger {@code titanic.request} (service and body)
 *       is answered 400</td></tr>
 *   <tr><td>maxServiceNameBytes</td><td>255 (as the broker's): a longer service name is answered 400</td></tr>
 *   <tr><td>bodyCacheBytes</td><td>64 MiB of bodies of new requests kept in memory until their
 *       first dispatch (the rest are read back from the store)</td></tr>
 *   <tr><td>replyRetention</td><td>24 h: a stored reply nobody closed is deleted after it
 *       (checked every {@code retentionSweep}, 1 min); zero turns retention off</td></tr>
 * </table>
 */
public final class TitanicSettings extends ComponentSettings {
    public static final TitanicSettings DEFAULTS = builder().build();

    private final String broker;
    private final MajordomoWorkerSettings workerSettings;
    private final MajordomoClientSettings clientSettings;
    private final int requestWorkers;
    private final int replyWorkers;
    private final int closeWorkers;
    private final Duration retryInterval;
    private final Duration dispatchTimeout;
    private final int dispatchLanes;
    private final int maxDispatches;
    private final int maxRequestBytes;
    private final int maxServiceNameBytes;
    private final long bodyCacheBytes;
    private final Duration replyRetention;
    private final Duration retentionSweep;
    private final Consumer<TitanicEvent> listener;
    private final LongSupplier wallClock;

    private TitanicSettings(Builder b) {
        super(b);
        broker = b.broker;
        MdpVersion v = b.version;
        workerSettings = b.workerSettings.toBuilder().version(v).build();
        clientSettings = b.clientSettings.toBuilder().version(v).clock(clock())
                .timeout(b.dispatchTimeout).retries(1).build();
        requestWorkers = b.requestWorkers;
        replyWorkers = b.replyWorkers;
        closeWorkers = b.closeWorkers;
        retryInterval = b.retryInterval;
        dispatchTimeout = b.dispatchTimeout;
        dispatchLanes = b.dispatchLanes;
        maxDispatches = b.maxDispatches;
        maxRequestBytes = b.maxRequestBytes;
        maxServiceNameBytes = b.maxServiceNameBytes;
        bodyCacheBytes = b.bodyCacheBytes;
        replyRetention = b.replyRetention;
        retentionSweep = b.retentionSweep;
        listener = b.listener;
        wallClock = b.wallClock;
    }

    public static Builder builder() {
        return new Builder();
    }

    public String broker() {
        return broker;
    }

    /**
     * The settings of the server's workers (the protocol applied). Their heartbeats keep the
     * clock of these settings ({@link MajordomoWorkerSettings#clock()}), not the server's: the
     * server's {@link #clock()} times the dispatching (retries, dispatch timeouts, retention).
     */
    public MajordomoWorkerSettings workerSettings() {
        return workerSettings;
    }

    /** The settings of the dispatching clients (timeout = dispatchTimeout, one try each, the server's clock). */
    public MajordomoClientSettings clientSettings() {
        return clientSettings;
    }

    public int requestWorkers() {
        return requestWorkers;
    }

    public int replyWorkers() {
        return replyWorkers;
    }

    public int closeWorkers() {
        return closeWorkers;
    }

    public Duration retryInterval() {
        return retryInterval;
    }

    public Duration dispatchTimeout() {
        return dispatchTimeout;
    }

    public int dispatchLanes() {
        return dispatchLanes;
    }

    public int maxDispatches() {
        return maxDispatches;
    }

    public int maxRequestBytes() {
        return maxRequestBytes;
    }

    public int maxServiceNameBytes() {
        return maxServiceNameBytes;
    }

    public long bodyCacheBytes() {
        return bodyCacheBytes;
    }

    public Duration replyRetention() {
        return replyRetention;
    }

    public Duration retentionSweep() {
        return retentionSweep;
    }

    public Consumer<TitanicEvent> listener() {
        return listener;
    }

    /** Epoch milliseconds, for retention (the store keeps when a reply was stored in them). */
    public LongSupplier wallClock() {
        return wallClock;
    }

    public static final class Builder extends ComponentSettings.Builder<Builder, TitanicSettings> {
        private String broker = "tcp://localhost:5555";
        private MdpVersion version = MdpVersion.V0_1;
        private MajordomoWorkerSettings workerSettings = MajordomoWorkerSettings.DEFAULTS;
        private MajordomoClientSettings clientSettings = MajordomoClientSettings.DEFAULTS;
        private int requestWorkers = 32;
        private int replyWorkers = 8;
        private int closeWorkers = 8;
        private Duration retryInterval = Duration.ofSeconds(1);
        private Duration dispatchTimeout = Duration.ofSeconds(5);
        private int dispatchLanes = 8;
        private int maxDispatches = 256;
        private int maxRequestBytes = 16 << 20;
        private int maxServiceNameBytes = 255;
        private long bodyCacheBytes = 64L << 20;
        private Duration replyRetention = Duration.ofHours(24);
        private Duration retentionSweep = Duration.ofMinutes(1);
        private Consumer<TitanicEvent> listener;
        private LongSupplier wallClock = System::currentTimeMillis;

        private Builder() {
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        public TitanicSettings build() {
            return new TitanicSettings(this);
        }

        /** The Majordomo broker the services register with and requests are dispatched through. */
        public Builder broker(String endpoint) {
            this.broker = Objects.requireNonNull(endpoint);
            return this;
        }

        /** The MDP version of the workers and the dispatching clients. */
        public Builder version(MdpVersion v) {
            this.version = Objects.requireNonNull(v);
            return this;
        }

        /** Heartbeats, reconnect delays and socket options (security) of the workers. */
        public Builder workerSettings(MajordomoWorkerSettings s) {
            this.workerSettings = Objects.requireNonNull(s);
            return this;
        }

        /** Socket options (security) of the dispatching clients; their timeout is dispatchTimeout. */
        public Builder clientSettings(MajordomoClientSettings s) {
            this.clientSettings = Objects.requireNonNull(s);
            return this;
        }

        public Builder requestWorkers(int n) {
            this.requestWorkers = atLeast(1, n, "requestWorkers");
            return this;
        }

        public Builder replyWorkers(int n) {
            this.replyWorkers = atLeast(1, n, "replyWorkers");
            return this;
        }

        public Builder closeWorkers(int n) {
            this.closeWorkers = atLeast(1, n, "closeWorkers");
            return this;
        }

        public Builder retryInterval(Duration d) {
            this.retryInterval = positive(d, "retryInterval");
            return this;
        }

        public Builder dispatchTimeout(Duration d) {
            this.dispatchTimeout = positive(d, "dispatchTimeout");
            return this;
        }

        public Builder dispatchLanes(int n) {
            if (n < 1 || n > 64) {
                throw new IllegalArgumentException("dispatchLanes must be 1 to 64");
            }
            this.dispatchLanes = n;
            return this;
        }

        public Builder maxDispatches(int n) {
            this.maxDispatches = atLeast(1, n, "maxDispatches");
            return this;
        }

        public Builder maxRequestBytes(int n) {
            this.maxRequestBytes = atLeast(1, n, "maxRequestBytes");
            return this;
        }

        public Builder maxServiceNameBytes(int n) {
            this.maxServiceNameBytes = atLeast(1, n, "maxServiceNameBytes");
            return this;
        }

        public Builder bodyCacheBytes(long n) {
            if (n < 0) {
                throw new IllegalArgumentException("bodyCacheBytes must not be negative");
            }
            this.bodyCacheBytes = n;
            return this;
        }

        /** How long an unclosed reply is kept; zero: for ever. */
        public Builder replyRetention(Duration d) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("replyRetention must not be negative");
            }
            this.replyRetention = d;
            return this;
        }

        public Builder retentionSweep(Duration d) {
            this.retentionSweep = positive(d, "retentionSweep");
            return this;
        }

        public Builder listener(Consumer<TitanicEvent> l) {
            this.listener = l;
            return this;
        }

        /** Epoch milliseconds for retention ({@code System::currentTimeMillis} by default). */
        public Builder wallClock(LongSupplier c) {
            this.wallClock = Objects.requireNonNull(c);
            return this;
        }
    }
}
