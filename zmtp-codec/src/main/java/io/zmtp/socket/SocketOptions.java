package io.zmtp.socket;

import io.zmtp.wire.Mechanism;
import io.zmtp.wire.NullMechanism;
import io.zmtp.transport.TcpKeepAlive;
import io.zmtp.wire.HeartbeatPolicy;
import io.zmtp.wire.InboundBudget;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMetadata;
import io.zmtp.wire.ZmtpOptions;
import io.zmtp.wire.ZmtpVersion;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything configurable about a socket: its connections' ZMTP settings and the socket's own
 * behaviour. Immutable; {@code SocketOptions.builder()...build()}. The defaults follow libzmq
 * 4.3 except where libzmq has no bound:
 *
 * <table>
 *   <caption>Defaults</caption>
 *   <tr><td>send / receive high-water mark</td><td>1000 messages per peer (ZMQ_SNDHWM, ZMQ_RCVHWM)</td></tr>
 *   <tr><td>linger</td><td>30 s (libzmq waits forever)</td></tr>
 *   <tr><td>reconnect interval</td><td>100 ms, doubling on each failed attempt up to 5 s
 *       (libzmq: 100 ms, no doubling)</td></tr>
 *   <tr><td>send timeout</td><td>none: a send at the high-water mark waits (ZMQ_SNDTIMEO -1)</td></tr>
 *   <tr><td>handshake timeout</td><td>30 s (ZMQ_HANDSHAKE_IVL)</td></tr>
 *   <tr><td>maximum message size</td><td>64 MiB, each frame after the first counting 64 bytes more (libzmq: unlimited)</td></tr>
 *   <tr><td>frames per message</td><td>65,536</td></tr>
 *   <tr><td>handshake metadata</td><td>64 KiB, 128 properties</td></tr>
 *   <tr><td>inbound budget</td><td>256 MiB or twice the maximum message size, whichever is more,
 *       shared by the socket's connections for unfinished messages</td></tr>
 *   <tr><td>heartbeats</td><td>bound endpoints' connections: PING every 30 s, drop after 30 s
 *       without an answer, TTL 90 s ({@link #DEFAULT_BOUND_HEARTBEAT}); connected: off
 *       (libzmq: off, ZMQ_HEARTBEAT_IVL 0)</td></tr>
 *   <tr><td>maximum subscription size</td><td>4096 bytes per prefix (libzmq: unlimited)</td></tr>
 *   <tr><td>maximum subscriptions</td><td>10,000 prefixes and 1 MiB of prefixes per peer
 *       (libzmq: unlimited)</td></tr>
 *   <tr><td>maximum connections</td><td>4096 per bound endpoint, 1024 of them from one
 *       address (libzmq: unlimited)</td></tr>
 *   <tr><td>TCP keepalive</td><td>on: first probe after 120 s idle, then every 20 s, 5 probes
 *       (libzmq: the system's default, ZMQ_TCP_KEEPALIVE -1)</td></tr>
 * </table>
 */
public final class SocketOptions {
    /** 256 MiB: the least default inbound budget of a socket (see {@link #maxInboundBuffered()}). */
    public static final long DEFAULT_MAX_INBOUND_BUFFERED = 256L * 1024 * 1024;
    /**
     * The heartbeats of a bound endpoint's connections unless {@link Builder#heartbeat} says
     * otherwise: a PING every 30 s; a peer that sends nothing (not even the PONG) within 30 s of
     * a PING is dropped, so an idle peer that stopped answering goes after at most a minute; the
     * PINGs carry a TTL of 90 s. libzmq answers PINGs, so its peers stay connected.
     */
    public static final HeartbeatPolicy DEFAULT_BOUND_HEARTBEAT =
            HeartbeatPolicy.of(Duration.ofSeconds(30), Duration.ofSeconds(90), Duration.ofSeconds(30));
    public static final int DEFAULT_MAX_SUBSCRIPTION_SIZE = 4096;
    public static final int DEFAULT_MAX_SUBSCRIPTIONS = 10_000;
    public static final long DEFAULT_MAX_SUBSCRIPTION_BYTES = 1 << 20;
    public static final int DEFAULT_MAX_CONNECTIONS = 4096;
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 1024;

    public static final SocketOptions DEFAULTS = builder().build();

    private final byte[] identity;
    private final String resource;
    private final ZmtpMetadata properties;
    private final Mechanism mechanism;
    private final long maxMessageSize;
    private final int maxMetadataSize;
    private final int maxMetadataProperties;
    private final int maxFramesPerMessage;
    private final int messagesPerTurn;
    private final long maxInboundBuffered;
    private final Duration handshakeTimeout;
    private final HeartbeatPolicy heartbeat;
    private final ZmtpVersion version;
    private final int sendHwm;
    private final int receiveHwm;
    private final Duration linger;
    private final Duration reconnectInterval;
    private final Duration reconnectIntervalMax;
    private final Duration sendTimeout;
    private final Duration connectTimeout;
    private final boolean routerMandatory;
    private final boolean routerHandover;
    private final boolean reqRelaxed;
    private final boolean reqCorrelate;
    private final boolean xpubVerbose;
    private final int maxSubscriptionSize;
    private final int maxSubscriptions;
    private final long maxSubscriptionBytes;
    private final int maxConnections;
    private final int maxConnectionsPerAddress;
    private final TcpKeepAlive tcpKeepAlive;
    private final io.zmtp.transport.TlsSettings tls;

    private SocketOptions(Builder b) {
        identity = b.identity;
        resource = b.resource;
        properties = b.properties;
        mechanism = b.mechanism;
        maxMessageSize = b.maxMessageSize;
        maxMetadataSize = b.maxMetadataSize;
        maxMetadataProperties = b.maxMetadataProperties;
        maxFramesPerMessage = b.maxFramesPerMessage;
        messagesPerTurn = b.messagesPerTurn;
        maxInboundBuffered = b.maxInboundBuffered;
        handshakeTimeout = b.handshakeTimeout;
        heartbeat = b.heartbeat;
        version = b.version;
        sendHwm = b.sendHwm;
        receiveHwm = b.receiveHwm;
        linger = b.linger;
        reconnectInterval = b.reconnectInterval;
        reconnectIntervalMax = b.reconnectIntervalMax;
        sendTimeout = b.sendTimeout;
        connectTimeout = b.connectTimeout;
        routerMandatory = b.routerMandatory;
        routerHandover = b.routerHandover;
        reqRelaxed = b.reqRelaxed;
        reqCorrelate = b.reqCorrelate;
        xpubVerbose = b.xpubVerbose;
        maxSubscriptionSize = b.maxSubscriptionSize;
        maxSubscriptions = b.maxSubscriptions;
        maxSubscriptionBytes = b.maxSubscriptionBytes;
        maxConnections = b.maxConnections;
        maxConnectionsPerAddress = b.maxConnectionsPerAddress;
        tcpKeepAlive = b.tcpKeepAlive;
        tls = b.tls;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.identity = identity;
        b.resource = resource;
        b.properties = properties;
        b.mechanism = mechanism;
        b.maxMessageSize = maxMessageSize;
        b.maxMetadataSize = maxMetadataSize;
        b.maxMetadataProperties = maxMetadataProperties;
        b.maxFramesPerMessage = maxFramesPerMessage;
        b.messagesPerTurn = messagesPerTurn;
        b.maxInboundBuffered = maxInboundBuffered;
        b.handshakeTimeout = handshakeTimeout;
        b.heartbeat = heartbeat;
        b.version = version;
        b.sendHwm = sendHwm;
        b.receiveHwm = receiveHwm;
        b.linger = linger;
        b.reconnectInterval = reconnectInterval;
        b.reconnectIntervalMax = reconnectIntervalMax;
        b.sendTimeout = sendTimeout;
        b.connectTimeout = connectTimeout;
        b.routerMandatory = routerMandatory;
        b.routerHandover = routerHandover;
        b.reqRelaxed = reqRelaxed;
        b.reqCorrelate = reqCorrelate;
        b.xpubVerbose = xpubVerbose;
        b.maxSubscriptionSize = maxSubscriptionSize;
        b.maxSubscriptions = maxSubscriptions;
        b.maxSubscriptionBytes = maxSubscriptionBytes;
        b.maxConnections = maxConnections;
        b.maxConnectionsPerAddress = maxConnectionsPerAddress;
        b.tcpKeepAlive = tcpKeepAlive;
        b.tls = tls;
        return b;
    }

    /**
     * The ZMTP settings of a socket's connected (outgoing) connections, with a new
     * {@link InboundBudget} that all connections made with the result share.
     */
    public ZmtpOptions zmtpOptions(SocketType type) {
        return zmtpOptions(type, false, new InboundBudget(maxInboundBuffered()));
    }

    /**
     * The ZMTP settings of a socket's connections: accepted on a bound endpoint, or connected.
     * {@code budget} is the socket's one inbound budget, shared by all its connections.
     */
    public ZmtpOptions zmtpOptions(SocketType type, boolean accepted, InboundBudget budget) {
        ZmtpOptions.Builder b = ZmtpOptions.builder(type).mechanism(mechanism).maxMessageSize(maxMessageSize)
                .maxMetadataSize(maxMetadataSize).maxMetadataProperties(maxMetadataProperties)
                .maxFramesPerMessage(maxFramesPerMessage)
                .messagesPerTurn(messagesPerTurn)
                .inboundBudget(budget)
                .handshakeTimeout(handshakeTimeout)
                .heartbeat(accepted ? boundHeartbeat() : connectedHeartbeat())
                .version(version).properties(properties).identity(identity);
        if (resource != null) {
            b.resource(resource);
        }
        return b.build();
    }

    public byte[] identity() {
        return identity.clone();
    }

    public Mechanism mechanism() {
        return mechanism;
    }

    /** The heartbeat policy set with {@link Builder#heartbeat}, or null when the defaults apply. */
    public HeartbeatPolicy heartbeat() {
        return heartbeat;
    }

    /** The heartbeats of connections accepted on bound endpoints. */
    public HeartbeatPolicy boundHeartbeat() {
        return heartbeat != null ? heartbeat : DEFAULT_BOUND_HEARTBEAT;
    }

    /** The heartbeats of connections this socket makes. */
    public HeartbeatPolicy connectedHeartbeat() {
        return heartbeat != null ? heartbeat : HeartbeatPolicy.OFF;
    }

    /** The longest prefix a peer may subscribe to, in bytes (PUB, XPUB). */
    public int maxSubscriptionSize() {
        return maxSubscriptionSize;
    }

    /** How many prefixes one peer may subscribe to at once (PUB, XPUB). */
    public int maxSubscriptions() {
        return maxSubscriptions;
    }

    /** How many bytes one peer's subscribed prefixes may add up to (PUB, XPUB). */
    public long maxSubscriptionBytes() {
        return maxSubscriptionBytes;
    }

    /** How many connections one bound tcp:// or ipc:// endpoint holds at once (handshaking or not). */
    public int maxConnections() {
        return maxConnections;
    }

    /** How many of a bound tcp:// endpoint's connections may come from one remote address. */
    public int maxConnectionsPerAddress() {
        return maxConnectionsPerAddress;
    }

    /** TCP keepalive of this socket's tcp:// connections, or null when off. */
    /** The TLS settings of tls:// and wss:// endpoints; null when none were set. */
    public io.zmtp.transport.TlsSettings tls() {
        return tls;
    }

    public TcpKeepAlive tcpKeepAlive() {
        return tcpKeepAlive;
    }

    public long maxMessageSize() {
        return maxMessageSize;
    }

    /**
     * The bytes all connections of the socket may hold together in unfinished messages: the
     * value set, or by default {@value #DEFAULT_MAX_INBOUND_BUFFERED} bytes or twice the maximum
     * message size, whichever is more.
     */
    public long maxInboundBuffered() {
        if (maxInboundBuffered > 0) {
            return maxInboundBuffered;
        }
        long maxMessage = maxMessageSize < 0 ? ZmtpOptions.MAX_MESSAGE_SIZE_LIMIT
                : Math.min(maxMessageSize, ZmtpOptions.MAX_MESSAGE_SIZE_LIMIT);
        return Math.max(DEFAULT_MAX_INBOUND_BUFFERED, 2 * maxMessage);
    }

    public int maxFramesPerMessage() {
        return maxFramesPerMessage;
    }

    /** Messages one connection decodes per turn of its event loop (0: no limit). */
    public int messagesPerTurn() {
        return messagesPerTurn;
    }

    public int maxMetadataProperties() {
        return maxMetadataProperties;
    }

    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    public int sendHwm() {
        return sendHwm;
    }

    public int receiveHwm() {
        return receiveHwm;
    }

    public Duration linger() {
        return linger;
    }

    public Duration reconnectInterval() {
        return reconnectInterval;
    }

    public Duration reconnectIntervalMax() {
        return reconnectIntervalMax;
    }

    /** How long a send may wait at the high-water mark; null waits forever. */
    public Duration sendTimeout() {
        return sendTimeout;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public boolean routerMandatory() {
        return routerMandatory;
    }

    public boolean routerHandover() {
        return routerHandover;
    }

    public boolean reqRelaxed() {
        return reqRelaxed;
    }

    public boolean reqCorrelate() {
        return reqCorrelate;
    }

    public boolean xpubVerbose() {
        return xpubVerbose;
    }

    public static final class Builder {
        private byte[] identity = new byte[0];
        private String resource;
        private ZmtpMetadata properties = ZmtpMetadata.EMPTY;
        private Mechanism mechanism = NullMechanism.INSTANCE;
        private long maxMessageSize = ZmtpOptions.DEFAULT_MAX_MESSAGE_SIZE;
        private int maxMetadataSize = ZmtpOptions.DEFAULT_MAX_METADATA_SIZE;
        private int maxMetadataProperties = ZmtpOptions.DEFAULT_MAX_METADATA_PROPERTIES;
        private int maxFramesPerMessage = ZmtpOptions.DEFAULT_MAX_FRAMES_PER_MESSAGE;
        private int messagesPerTurn = ZmtpOptions.DEFAULT_MESSAGES_PER_TURN;
        private long maxInboundBuffered;
        private Duration handshakeTimeout = ZmtpOptions.DEFAULT_HANDSHAKE_TIMEOUT;
        private HeartbeatPolicy heartbeat;
        private ZmtpVersion version = ZmtpVersion.V3_1;
        private int sendHwm = 1000;
        private int receiveHwm = 1000;
        private Duration linger = Duration.ofSeconds(30);
        private Duration reconnectInterval = Duration.ofMillis(100);
        private Duration reconnectIntervalMax = Duration.ofSeconds(5);
        private Duration sendTimeout;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private boolean routerMandatory;
        private boolean routerHandover;
        private boolean reqRelaxed;
        private boolean reqCorrelate;
        private boolean xpubVerbose;
        private int maxSubscriptionSize = DEFAULT_MAX_SUBSCRIPTION_SIZE;
        private int maxSubscriptions = DEFAULT_MAX_SUBSCRIPTIONS;
        private long maxSubscriptionBytes = DEFAULT_MAX_SUBSCRIPTION_BYTES;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private int maxConnectionsPerAddress = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
        private TcpKeepAlive tcpKeepAlive = TcpKeepAlive.DEFAULT;
        private io.zmtp.transport.TlsSettings tls;

        private Builder() {
        }

        /** The routing identity announced to peers (ZMQ_ROUTING_ID); 0-255 bytes, not starting with 0. */
        public Builder identity(byte[] id) {
            ZmtpOptions.builder(SocketType.DEALER).identity(id); // validates
            this.identity = id.clone();
            return this;
        }

        public Builder identity(String id) {
            return identity(id.getBytes(StandardCharsets.UTF_8));
        }

        public Builder resource(String r) {
            this.resource = r;
            return this;
        }

        /** Application properties (names start with X-) sent in READY. */
        public Builder properties(ZmtpMetadata p) {
            this.properties = Objects.requireNonNull(p);
            return this;
        }

        /** The security mechanism (NULL by default). */
        public Builder mechanism(Mechanism m) {
            this.mechanism = Objects.requireNonNull(m);
            return this;
        }

        /**
         * The largest message accepted (ZMQ_MAXMSGSIZE): its bytes plus
         * {@link ZmtpOptions#FRAME_COST} per frame after the first; negative means the largest that can be set,
         * {@link ZmtpOptions#MAX_MESSAGE_SIZE_LIMIT}.
         */
        public Builder maxMessageSize(long bytes) {
            this.maxMessageSize = bytes;
            return this;
        }

        /** The most frames one received message may have (default 65,536). */
        public Builder maxFramesPerMessage(int frames) {
            ZmtpOptions.builder(SocketType.DEALER).maxFramesPerMessage(frames); // validates
            this.maxFramesPerMessage = frames;
            return this;
        }

        /**
         * How many messages one connection decodes in a turn of the socket's event loop before the
         * loop's other connections get theirs (default 128; 0: no limit): what keeps one flooding
         * peer from delaying every other peer of the loop by its whole backlog. See
         * {@link ZmtpOptions.Builder#messagesPerTurn}.
         */
        public Builder messagesPerTurn(int messages) {
            ZmtpOptions.builder(SocketType.DEALER).messagesPerTurn(messages); // validates
            this.messagesPerTurn = messages;
            return this;
        }

        /** The most properties a peer may announce in its handshake (default 128). */
        public Builder maxMetadataProperties(int properties) {
            ZmtpOptions.builder(SocketType.DEALER).maxMetadataProperties(properties); // validates
            this.maxMetadataProperties = properties;
            return this;
        }

        /**
         * The bytes all connections of the socket may hold together in unfinished messages
         * (at least {@link InboundBudget#SMALL_HOLDING}); see {@link InboundBudget}. Default: 256 MiB
         * or twice the maximum message size, whichever is more.
         */
        public Builder maxInboundBuffered(long bytes) {
            if (bytes < InboundBudget.SMALL_HOLDING) {
                throw new IllegalArgumentException("maxInboundBuffered must be at least " + InboundBudget.SMALL_HOLDING);
            }
            this.maxInboundBuffered = bytes;
            return this;
        }

        public Builder maxMetadataSize(int bytes) {
            this.maxMetadataSize = bytes;
            return this;
        }

        public Builder handshakeTimeout(Duration d) {
            this.handshakeTimeout = Objects.requireNonNull(d);
            return this;
        }

        /**
         * The heartbeats of every connection of this socket, bound or connected
         * ({@link HeartbeatPolicy#OFF} turns them off). Unset, a bound endpoint's connections use
         * {@link SocketOptions#DEFAULT_BOUND_HEARTBEAT} and connected ones none.
         */
        public Builder heartbeat(HeartbeatPolicy h) {
            this.heartbeat = Objects.requireNonNull(h);
            return this;
        }

        /**
         * PUB, XPUB: the longest prefix a peer may subscribe to (default 4096 bytes). A peer that
         * subscribes to a longer one is disconnected, with the reason in the DISCONNECTED event
         * and the log: silently ignoring it would leave the peer waiting for messages it never gets.
         */
        public Builder maxSubscriptionSize(int bytes) {
            this.maxSubscriptionSize = positive(bytes, "maxSubscriptionSize");
            return this;
        }

        /**
         * PUB, XPUB: how many distinct prefixes one peer may subscribe to at once (default 10,000);
         * a peer that goes past it is disconnected. Each costs a few hundred bytes of memory.
         */
        public Builder maxSubscriptions(int count) {
            this.maxSubscriptions = positive(count, "maxSubscriptions");
            return this;
        }

        /**
         * PUB, XPUB: how many bytes one peer's prefixes may add up to (default 1 MiB); a peer
         * that goes past it is disconnected.
         */
        public Builder maxSubscriptionBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("maxSubscriptionBytes must be at least 1");
            }
            this.maxSubscriptionBytes = bytes;
            return this;
        }

        /**
         * How many connections each bound tcp:// or ipc:// endpoint holds at once, those still in
         * their handshake included (default 4096). A connection accepted past it is closed at once,
         * without a handshake. Keep it below the process's file descriptor limit.
         */
        public Builder maxConnections(int count) {
            this.maxConnections = positive(count, "maxConnections");
            return this;
        }

        /**
         * How many of a bound tcp:// endpoint's connections may come from one remote IP address
         * (default 1024), so one host cannot take every connection; past it a new connection
         * from that address is closed at once.
         */
        public Builder maxConnectionsPerAddress(int count) {
            this.maxConnectionsPerAddress = positive(count, "maxConnectionsPerAddress");
            return this;
        }

        /** TCP keepalive of tcp:// connections ({@link TcpKeepAlive#DEFAULT}); null turns it off. */
        public Builder tcpKeepAlive(TcpKeepAlive keepAlive) {
            this.tcpKeepAlive = keepAlive;
            return this;
        }

        /**
         * TLS for tls:// and wss:// endpoints: the server context a bind uses, the client context a
         * connect uses (either may be absent when the socket only binds or only connects). No
         * default: binding or connecting such an endpoint without it fails with a clear error.
         */
        public Builder tls(io.zmtp.transport.TlsSettings settings) {
            this.tls = settings;
            return this;
        }

        private static int positive(int n, String name) {
            if (n < 1) {
                throw new IllegalArgumentException(name + " must be at least 1");
            }
            return n;
        }

        /** Announce ZMTP 3.0 (behave as an older peer); 3.1 by default. */
        public Builder version(ZmtpVersion v) {
            this.version = Objects.requireNonNull(v);
            return this;
        }

        /** Messages queued per peer before a send blocks or drops (ZMQ_SNDHWM); at least 1. */
        public Builder sendHwm(int messages) {
            if (messages < 1) {
                throw new IllegalArgumentException("sendHwm must be at least 1");
            }
            this.sendHwm = messages;
            return this;
        }

        /** Messages received per peer and not yet consumed before reading pauses (ZMQ_RCVHWM). */
        public Builder receiveHwm(int messages) {
            if (messages < 1) {
                throw new IllegalArgumentException("receiveHwm must be at least 1");
            }
            this.receiveHwm = messages;
            return this;
        }

        /** Both high-water marks. */
        public Builder hwm(int messages) {
            return sendHwm(messages).receiveHwm(messages);
        }

        /** How long close() keeps flushing queued messages before dropping them (ZMQ_LINGER). */
        public Builder linger(Duration d) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("linger must not be negative");
            }
            this.linger = d;
            return this;
        }

        /** The first reconnect delay (ZMQ_RECONNECT_IVL). */
        public Builder reconnectInterval(Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("reconnectInterval must be positive");
            }
            this.reconnectInterval = d;
            return this;
        }

        /** The longest reconnect delay the doubling reaches (ZMQ_RECONNECT_IVL_MAX). */
        public Builder reconnectIntervalMax(Duration d) {
            this.reconnectIntervalMax = Objects.requireNonNull(d);
            return this;
        }

        /** How long a send may wait at the high-water mark before failing; null waits forever. */
        public Builder sendTimeout(Duration d) {
            this.sendTimeout = d;
            return this;
        }

        public Builder connectTimeout(Duration d) {
            this.connectTimeout = Objects.requireNonNull(d);
            return this;
        }

        /** ROUTER: fail an unroutable send instead of dropping it (ZMQ_ROUTER_MANDATORY). */
        public Builder routerMandatory(boolean on) {
            this.routerMandatory = on;
            return this;
        }

        /** ROUTER: a new peer with a known identity takes over from the old one (ZMQ_ROUTER_HANDOVER). */
        public Builder routerHandover(boolean on) {
            this.routerHandover = on;
            return this;
        }

        /** REQ: allow a new request before the reply to the last one (ZMQ_REQ_RELAXED). */
        public Builder reqRelaxed(boolean on) {
            this.reqRelaxed = on;
            return this;
        }

        /** REQ: tag requests with an id and accept only the matching reply (ZMQ_REQ_CORRELATE). */
        public Builder reqCorrelate(boolean on) {
            this.reqCorrelate = on;
            return this;
        }

        /** XPUB: pass every subscription to the application, not only new ones (ZMQ_XPUB_VERBOSE). */
        public Builder xpubVerbose(boolean on) {
            this.xpubVerbose = on;
            return this;
        }

        public SocketOptions build() {
            if (reconnectIntervalMax.compareTo(reconnectInterval) < 0) {
                reconnectIntervalMax = reconnectInterval;
            }
            return new SocketOptions(this);
        }
    }
}
