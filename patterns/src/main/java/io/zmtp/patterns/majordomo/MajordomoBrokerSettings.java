package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.patterns.kit.Heartbeat;
import io.zmtp.socket.SocketOptions;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The settings of a {@link MajordomoBroker}.
 *
 * <table>
 *   <caption>Defaults</caption>
 *   <tr><td>endpoints</td><td>{@code tcp://*:5555} (the guide's), bound by {@code start()}</td></tr>
 *   <tr><td>heartbeat interval</td><td>2500 ms (the guide's HEARTBEAT_INTERVAL)</td></tr>
 *   <tr><td>heartbeat liveness</td><td>3: a worker silent for 3 intervals is forgotten</td></tr>
 *   <tr><td>request expiry</td><td>10 s: how long a request waits for a service that has no worker</td></tr>
 *   <tr><td>queued requests per service</td><td>100,000; beyond, new requests are refused</td></tr>
 *   <tr><td>queued bytes per service</td><td>32 MiB (bodies + {@value MajordomoBroker#REQUEST_OVERHEAD} B per request)</td></tr>
 *   <tr><td>queued bytes, all services</td><td>128 MiB</td></tr>
 *   <tr><td>queued requests per client</td><td>10,000</td></tr>
 *   <tr><td>services</td><td>10,000</td></tr>
 *   <tr><td>service name</td><td>255 bytes</td></tr>
 *   <tr><td>expiry batch</td><td>1,024 requests per event-loop task</td></tr>
 *   <tr><td>aggregated reply size</td><td>16 MiB: the most a stream of PARTIAL replies may add up
 *       to when the broker joins it into one REPLY for an MDP/0.1 client</td></tr>
 *   <tr><td>socket</td><td>ROUTER with a send high-water mark of 10,000 messages per peer (a
 *       ROUTER drops beyond it) and a linger of 1 s (to flush DISCONNECTs when closing)</td></tr>
 * </table>
 *
 * <p>With the clock, socket options, tracer and listener of every Majordomo component
 * ({@link MajordomoSettings}).
 */
public final class MajordomoBrokerSettings extends MajordomoSettings {
    public static final MajordomoBrokerSettings DEFAULTS = builder().build();

    private final List<String> endpoints;
    private final Heartbeat heartbeat;
    private final Duration requestExpiry;
    private final int maxQueuedRequests;
    private final long maxAggregatedReplyBytes;
    private final int maxServices;
    private final int maxServiceNameBytes;
    private final long maxQueuedBytesPerService;
    private final long maxQueuedBytes;
    private final int maxQueuedRequestsPerClient;
    private final int expiryBatch;

    private MajordomoBrokerSettings(Builder b) {
        super(b);
        endpoints = List.copyOf(b.endpoints);
        heartbeat = b.heartbeat;
        requestExpiry = b.requestExpiry;
        maxQueuedRequests = b.maxQueuedRequests;
        maxAggregatedReplyBytes = b.maxAggregatedReplyBytes;
        maxServices = b.maxServices;
        maxServiceNameBytes = b.maxServiceNameBytes;
        maxQueuedBytesPerService = b.maxQueuedBytesPerService;
        maxQueuedBytes = b.maxQueuedBytes;
        maxQueuedRequestsPerClient = b.maxQueuedRequestsPerClient;
        expiryBatch = b.expiryBatch;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder().from(this);
        b.endpoints = endpoints;
        b.heartbeat = heartbeat;
        b.requestExpiry = requestExpiry;
        b.maxQueuedRequests = maxQueuedRequests;
        b.maxAggregatedReplyBytes = maxAggregatedReplyBytes;
        b.maxServices = maxServices;
        b.maxServiceNameBytes = maxServiceNameBytes;
        b.maxQueuedBytesPerService = maxQueuedBytesPerService;
        b.maxQueuedBytes = maxQueuedBytes;
        b.maxQueuedRequestsPerClient = maxQueuedRequestsPerClient;
        b.expiryBatch = expiryBatch;
        return b;
    }

    /** The endpoints the broker binds in {@link MajordomoBroker#start()}, in order. */
    public List<String> endpoints() {
        return endpoints;
    }

    /**
     * How often the broker heartbeats its workers and checks expiries, and after how many silent
     * intervals a worker is forgotten ({@link Heartbeat#expiry()}).
     */
    public Heartbeat heartbeat() {
        return heartbeat;
    }

    public Duration requestExpiry() {
        return requestExpiry;
    }

    public int maxQueuedRequests() {
        return maxQueuedRequests;
    }

    public long maxAggregatedReplyBytes() {
        return maxAggregatedReplyBytes;
    }

    /** The most services the broker keeps (with workers or queued requests). A request or READY for a
     * new service beyond it is refused (the request answered {@link MdpProtocol#REFUSED}, the worker
     * sent DISCONNECT). Default 10,000. */
    public int maxServices() {
        return maxServices;
    }

    /** The longest service name, in bytes, a request or READY may carry; longer ones are refused.
     * Default 255. */
    public int maxServiceNameBytes() {
        return maxServiceNameBytes;
    }

    /** The most bytes the queued requests of one service may add up to (each counted as its body
     * plus {@link MajordomoBroker#REQUEST_OVERHEAD}); a request beyond is refused. Default 32 MiB. */
    public long maxQueuedBytesPerService() {
        return maxQueuedBytesPerService;
    }

    /** The most bytes the queued requests of all services may add up to (counted as for
     * {@link #maxQueuedBytesPerService}); a request beyond is refused. Queued requests are heap copies,
     * so this bounds the heap a flood can take. Default 128 MiB. */
    public long maxQueuedBytes() {
        return maxQueuedBytes;
    }

    /** The most requests one client (one connection) may have queued, all services; a request
     * beyond is refused. Default 10,000 (MDP expects one outstanding request per client; the
     * asynchronous client pipelines more). */
    public int maxQueuedRequestsPerClient() {
        return maxQueuedRequestsPerClient;
    }

    /** The most requests expired (or dropped for a gone client) per event-loop task; the rest follow
     * in later tasks, so other work is not held up. Default 1,024. */
    public int expiryBatch() {
        return expiryBatch;
    }

    public static final class Builder extends MajordomoSettings.Builder<Builder, MajordomoBrokerSettings> {
        private List<String> endpoints = List.of("tcp://*:5555");
        private Heartbeat heartbeat = DEFAULT_HEARTBEAT;
        private Duration requestExpiry = Duration.ofSeconds(10);
        private int maxQueuedRequests = 100_000;
        private long maxAggregatedReplyBytes = 16L * 1024 * 1024;
        private int maxServices = 10_000;
        private int maxServiceNameBytes = 255;
        private long maxQueuedBytesPerService = 32L * 1024 * 1024;
        private long maxQueuedBytes = 128L * 1024 * 1024;
        private int maxQueuedRequestsPerClient = 10_000;
        private int expiryBatch = 1024;

        private Builder() {
            super(ComponentSettings.SOCKET_OPTIONS.toBuilder().sendHwm(10_000).linger(Duration.ofSeconds(1)).build());
        }

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * The endpoints to bind (clients and workers share them), at least one; bound in this
         * order when the broker starts. Port 0 picks a free port ({@link MajordomoBroker#endpoints()}
         * tells which). Default the guide's {@code tcp://*:5555}.
         */
        public Builder endpoints(String... e) {
            return endpoints(List.of(e));
        }

        public Builder endpoints(List<String> e) {
            if (e.isEmpty()) {
                throw new IllegalArgumentException("a broker needs at least one endpoint");
            }
            this.endpoints = List.copyOf(e);
            return this;
        }

        /** The heartbeat with the workers: its interval and the liveness of a silent worker (2500 ms, 3). */
        public Builder heartbeat(Heartbeat h) {
            this.heartbeat = Objects.requireNonNull(h);
            return this;
        }

        /** How often the broker heartbeats its workers and checks expiries. */
        public Builder heartbeatInterval(Duration d) {
            return heartbeat(Heartbeat.of(positive(d, "heartbeatInterval"), heartbeat.liveness()));
        }

        /** How many intervals a worker may stay silent before it is forgotten (3-5 is usual). */
        public Builder heartbeatLiveness(int n) {
            return heartbeat(Heartbeat.of(heartbeat.interval(), atLeast(1, n, "heartbeatLiveness")));
        }

        /** How long a request may wait for a service that has no worker (checked each interval). */
        public Builder requestExpiry(Duration d) {
            this.requestExpiry = positive(d, "requestExpiry");
            return this;
        }

        /** The most requests one service may have waiting for a worker; a request beyond is refused. Default 100,000. */
        public Builder maxQueuedRequests(int n) {
            this.maxQueuedRequests = atLeast(1, n, "maxQueuedRequests");
            return this;
        }

        /** The most bytes of PARTIAL bodies joined into one REPLY for an MDP/0.1 client. */
        public Builder maxAggregatedReplyBytes(long n) {
            this.maxAggregatedReplyBytes = atLeast(1L, n, "maxAggregatedReplyBytes");
            return this;
        }

        /** The most services the broker keeps (with workers or queued requests). A request or READY for a
         * new service beyond it is refused (the request answered {@link MdpProtocol#REFUSED}, the worker
         * sent DISCONNECT). Default 10,000. */
        public Builder maxServices(int n) {
            this.maxServices = atLeast(1, n, "maxServices");
            return this;
        }

        /** The longest service name, in bytes, a request or READY may carry; longer ones are refused.
         * Default 255. */
        public Builder maxServiceNameBytes(int n) {
            this.maxServiceNameBytes = atLeast(1, n, "maxServiceNameBytes");
            return this;
        }

        /** The most bytes the queued requests of one service may add up to (each counted as its body
         * plus {@link MajordomoBroker#REQUEST_OVERHEAD}); a request beyond is refused. Default 32 MiB. */
        public Builder maxQueuedBytesPerService(long n) {
            this.maxQueuedBytesPerService = atLeast(1L, n, "maxQueuedBytesPerService");
            return this;
        }

        /** The most bytes the queued requests of all services may add up to (counted as for
         * {@link #maxQueuedBytesPerService}); a request beyond is refused. Queued requests are heap copies,
         * so this bounds the heap a flood can take. Default 128 MiB. */
        public Builder maxQueuedBytes(long n) {
            this.maxQueuedBytes = atLeast(1L, n, "maxQueuedBytes");
            return this;
        }

        /** The most requests one client (one connection) may have queued, all services; a request
         * beyond is refused. Default 10,000 (MDP expects one outstanding request per client; the
         * asynchronous client pipelines more). */
        public Builder maxQueuedRequestsPerClient(int n) {
            this.maxQueuedRequestsPerClient = atLeast(1, n, "maxQueuedRequestsPerClient");
            return this;
        }

        /** The most requests expired (or dropped for a gone client) per event-loop task; the rest follow
         * in later tasks, so other work is not held up. Default 1,024. */
        public Builder expiryBatch(int n) {
            this.expiryBatch = atLeast(1, n, "expiryBatch");
            return this;
        }

        @Override
        public MajordomoBrokerSettings build() {
            return new MajordomoBrokerSettings(this);
        }
    }
}
