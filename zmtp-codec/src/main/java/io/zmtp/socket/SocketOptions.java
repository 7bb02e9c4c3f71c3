package io.zmtp.socket;

import io.zmtp.wire.Mechanism;
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
 *   <tr><td>CONFLATE, PROBE_ROUTER, ROUTER_NOTIFY, XPUB_MANUAL, XPUB_NODROP, INVERT_MATCHING</td>
 *       <td>off, as in libzmq; no XPUB welcome message</td></tr>
 *   <tr><td>SNDBUF, RCVBUF, TOS</td><td>the system's (libzmq: the same)</td></tr>
 *   <tr><td>listen backlog</td><td>100 (ZMQ_BACKLOG)</td></tr>
 * </table>
 *
 * <p>docs/socket-options.md compares every setting with libzmq's; a few may change after
 * the socket is made ({@link ZmtpSocket#setSendHwm} and the setters next to it).
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
    /** ZMQ_BACKLOG's default: connections a bound endpoint's kernel queue holds before they are accepted. */
    public static final int DEFAULT_BACKLOG = 100;
    /** {@link Builder#routerNotify}: tell the application when a peer connects (ZMQ_NOTIFY_CONNECT). */
    public static final int NOTIFY_CONNECT = 1;
    /** {@link Builder#routerNotify}: tell the application when a peer disconnects (ZMQ_NOTIFY_DISCONNECT). */
    public static final int NOTIFY_DISCONNECT = 2;

    public static final SocketOptions DEFAULTS = builder().build();

    /**
     * The settings of the socket's ZMTP connections (identity, security, limits, version); the
     * socket type and heartbeats of each connection are set when the socket makes its own
     * ({@link #zmtpOptions(SocketType, boolean, InboundBudget)}).
     */
    private final ZmtpOptions connection;
    private final long maxInboundBuffered;
    private final HeartbeatPolicy heartbeat;
    private final int sendHwm;
    private final int receiveHwm;
    private final Duration linger;
    private final Duration reconnectInterval;
    private final Duration reconnectIntervalMax;
    private final Duration sendTimeout;
    private final Duration connectTimeout;
    private final boolean routerMandatory;
    private final boolean routerHandover;
    private final boolean streamNotify;
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
    private final boolean conflate;
    private final boolean probeRouter;
    private final int routerNotify;
    private final boolean xpubManual;
    private final byte[] xpubWelcomeMessage;
    private final boolean xpubNoDrop;
    private final boolean invertMatching;
    private final int sendBuffer;
    private final int receiveBuffer;
    private final int backlog;
    private final int typeOfService;

    private SocketOptions(Builder b) {
        connection = b.connection.build();
        maxInboundBuffered = b.maxInboundBuffered;
        heartbeat = b.heartbeat;
        sendHwm = b.sendHwm;
        receiveHwm = b.receiveHwm;
        linger = b.linger;
        reconnectInterval = b.reconnectInterval;
        reconnectIntervalMax = b.reconnectIntervalMax;
        sendTimeout = b.sendTimeout;
        connectTimeout = b.connectTimeout;
        routerMandatory = b.routerMandatory;
        routerHandover = b.routerHandover;
        streamNotify = b.streamNotify;
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
        conflate = b.conflate;
        probeRouter = b.probeRouter;
        routerNotify = b.routerNotify;
        xpubManual = b.xpubManual;
        xpubWelcomeMessage = b.xpubWelcomeMessage;
        xpubNoDrop = b.xpubNoDrop;
        invertMatching = b.invertMatching;
        sendBuffer = b.sendBuffer;
        receiveBuffer = b.receiveBuffer;
        backlog = b.backlog;
        typeOfService = b.typeOfService;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.connection = connection.toBuilder();
        b.maxInboundBuffered = maxInboundBuffered;
        b.heartbeat = heartbeat;
        b.sendHwm = sendHwm;
        b.receiveHwm = receiveHwm;
        b.linger = linger;
        b.reconnectInterval = reconnectInterval;
        b.reconnectIntervalMax = reconnectIntervalMax;
        b.sendTimeout = sendTimeout;
        b.connectTimeout = connectTimeout;
        b.routerMandatory = routerMandatory;
        b.routerHandover = routerHandover;
        b.streamNotify = streamNotify;
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
        b.conflate = conflate;
        b.probeRouter = probeRouter;
        b.routerNotify = routerNotify;
        b.xpubManual = xpubManual;
        b.xpubWelcomeMessage = xpubWelcomeMessage;
        b.xpubNoDrop = xpubNoDrop;
        b.invertMatching = invertMatching;
        b.sendBuffer = sendBuffer;
        b.receiveBuffer = receiveBuffer;
        b.backlog = backlog;
        b.typeOfService = typeOfService;
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
        return connection.toBuilder().socketType(type).inboundBudget(budget)
                .heartbeat(accepted ? boundHeartbeat() : connectedHeartbeat()).build();
    }

    public byte[] identity() {
        return connection.identity();
    }

    public Mechanism mechanism() {
        return connection.mechanism();
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

    /** The TLS settings of tls:// and wss:// endpoints; null when none were set. */
    public io.zmtp.transport.TlsSettings tls() {
        return tls;
    }

    /** TCP keepalive of this socket's tcp:// connections, or null when off. */
    public TcpKeepAlive tcpKeepAlive() {
        return tcpKeepAlive;
    }

    /**
     * The largest message accepted, as in effect: a negative setting, or one above the limit,
     * reads as {@link ZmtpOptions#MAX_MESSAGE_SIZE_LIMIT}.
     */
    public long maxMessageSize() {
        return connection.maxMessageSize();
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
        return Math.max(DEFAULT_MAX_INBOUND_BUFFERED, 2 * connection.maxMessageSize());
    }

    public int maxFramesPerMessage() {
        return connection.maxFramesPerMessage();
    }

    /** Messages one connection decodes per turn of its event loop (0: no limit). */
    public int messagesPerTurn() {
        return connection.messagesPerTurn();
    }

    public int maxMetadataProperties() {
        return connection.maxMetadataProperties();
    }

    public Duration handshakeTimeout() {
        return connection.handshakeTimeout();
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

    /** Whether peers announcing ZMTP 2.0 are spoken to in 2.0 (NULL security only); off by default. */
    public boolean zmtp20Fallback() {
        return connection.zmtp20Fallback();
    }

    /** STREAM: whether connects and disconnects are delivered as [routing id][empty frame]. */
    public boolean streamNotify() {
        return streamNotify;
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

    /**
     * Whether a socket keeps only the last message in each queue (ZMQ_CONFLATE); effective on
     * PUB, SUB, PUSH, PULL and DEALER only, as in libzmq ({@link ZmtpSocket#conflating()}).
     */
    public boolean conflate() {
        return conflate;
    }

    /** ROUTER, DEALER, REQ: send an empty message to each new peer (ZMQ_PROBE_ROUTER). */
    public boolean probeRouter() {
        return probeRouter;
    }

    /** ROUTER: which peer events reach the application as [routing id, empty] (ZMQ_ROUTER_NOTIFY). */
    public int routerNotify() {
        return routerNotify;
    }

    /** XPUB: subscriptions pass to the application, which alone changes the filter (ZMQ_XPUB_MANUAL). */
    public boolean xpubManual() {
        return xpubManual;
    }

    /** XPUB: the message sent to each new subscriber, or null (ZMQ_XPUB_WELCOME_MSG). */
    public byte[] xpubWelcomeMessage() {
        return xpubWelcomeMessage == null ? null : xpubWelcomeMessage.clone();
    }

    /** PUB, XPUB: a send waits while a matching subscriber is at its mark, instead of dropping (ZMQ_XPUB_NODROP). */
    public boolean xpubNoDrop() {
        return xpubNoDrop;
    }

    /** PUB, XPUB, SUB: match messages that do not start with a subscription (ZMQ_INVERT_MATCHING). */
    public boolean invertMatching() {
        return invertMatching;
    }

    /** SO_SNDBUF of tcp:// connections in bytes, or 0 for the system's default (ZMQ_SNDBUF). */
    public int sendBuffer() {
        return sendBuffer;
    }

    /** SO_RCVBUF of tcp:// connections in bytes, or 0 for the system's default (ZMQ_RCVBUF). */
    public int receiveBuffer() {
        return receiveBuffer;
    }

    /** The listen backlog of bound tcp:// and ipc:// endpoints (ZMQ_BACKLOG, 100). */
    public int backlog() {
        return backlog;
    }

    /** IP_TOS of tcp:// connections (ZMQ_TOS, 0: the system's default). */
    public int typeOfService() {
        return typeOfService;
    }

    public static final class Builder {
        /**
         * What the connections' settings become (each checked as it is set); ZmtpOptions need a
         * socket type, whose place this one keeps until each socket puts its own.
         */
        private ZmtpOptions.Builder connection = ZmtpOptions.builder(SocketType.PAIR);
        private long maxInboundBuffered;
        private HeartbeatPolicy heartbeat;
        private int sendHwm = 1000;
        private int receiveHwm = 1000;
        private Duration linger = Duration.ofSeconds(30);
        private Duration reconnectInterval = Duration.ofMillis(100);
        private Duration reconnectIntervalMax = Duration.ofSeconds(5);
        private Duration sendTimeout;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private boolean routerMandatory;
        private boolean routerHandover;
        private boolean streamNotify = true;
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
        private boolean conflate;
        private boolean probeRouter;
        private int routerNotify;
        private boolean xpubManual;
        private byte[] xpubWelcomeMessage;
        private boolean xpubNoDrop;
        private boolean invertMatching;
        private int sendBuffer;
        private int receiveBuffer;
        private int backlog = DEFAULT_BACKLOG;
        private int typeOfService;

        private Builder() {
        }

        /** The routing identity announced to peers (ZMQ_ROUTING_ID); 0-255 bytes, not starting with 0. */
        public Builder identity(byte[] id) {
            connection.identity(id);
            return this;
        }

        public Builder identity(String id) {
            return identity(id.getBytes(StandardCharsets.UTF_8));
        }

        public Builder resource(String r) {
            connection.resource(r);
            return this;
        }

        /** Application properties (names start with X-) sent in READY. */
        public Builder properties(ZmtpMetadata p) {
            connection.properties(Objects.requireNonNull(p));
            return this;
        }

        /** The security mechanism (NULL by default). */
        public Builder mechanism(Mechanism m) {
            connection.mechanism(m);
            return this;
        }

        /**
         * The largest message accepted (ZMQ_MAXMSGSIZE): its bytes plus
         * {@link ZmtpOptions#FRAME_COST} per frame after the first; negative means the largest that can be set,
         * {@link ZmtpOptions#MAX_MESSAGE_SIZE_LIMIT}.
         */
        public Builder maxMessageSize(long bytes) {
            connection.maxMessageSize(bytes);
            return this;
        }

        /** The most frames one received message may have (default 65,536). */
        public Builder maxFramesPerMessage(int frames) {
            connection.maxFramesPerMessage(frames);
            return this;
        }

        /**
         * How many messages one connection decodes in a turn of the socket's event loop before the
         * loop's other connections get theirs (default {@value ZmtpOptions#DEFAULT_MESSAGES_PER_TURN};
         * 0: no limit): what keeps one flooding peer from delaying every other peer of the loop by
         * its whole backlog. See {@link ZmtpOptions.Builder#messagesPerTurn}.
         */
        public Builder messagesPerTurn(int messages) {
            connection.messagesPerTurn(messages);
            return this;
        }

        /** The most properties a peer may announce in its handshake (default 128). */
        public Builder maxMetadataProperties(int properties) {
            connection.maxMetadataProperties(properties);
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

        /** The largest handshake command body a peer may send, READY or INITIATE and their metadata (at least 256). */
        public Builder maxMetadataSize(int bytes) {
            connection.maxMetadataSize(bytes);
            return this;
        }

        /** How long a connection's greeting and handshake may take (ZMQ_HANDSHAKE_IVL; positive). */
        public Builder handshakeTimeout(Duration d) {
            connection.handshakeTimeout(Objects.requireNonNull(d));
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
            connection.version(v);
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

        /**
         * STREAM: deliver a new connection and a closed one to the application as a message of
         * two frames, its routing id and an empty frame (ZMQ_STREAM_NOTIFY; on by default). The
         * connect notification is how the id of a connection this socket made becomes known.
         */
        public Builder streamNotify(boolean on) {
            this.streamNotify = on;
            return this;
        }

        /**
         * Speak ZMTP 2.0 with peers that announce it (libzmq 3.x, JeroMQ 0.3.x) instead of
         * refusing them; off by default, and only with the NULL mechanism: with PLAIN or CURVE
         * such a peer is refused all the same, since 2.0 has no security and accepting it would
         * let anyone who can rewrite one greeting byte downgrade the connection to plaintext.
         * See {@link ZmtpOptions.Builder#zmtp20Fallback}.
         */
        public Builder zmtp20Fallback(boolean on) {
            connection.zmtp20Fallback(on);
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

        /**
         * Keep only the last message (ZMQ_CONFLATE): a received message replaces the one the
         * application has not taken yet, a sent one replaces the one not yet written to a peer,
         * and the high-water marks no longer apply. For last-value consumers (a SUB that wants the
         * latest state, not the history). As in libzmq it applies to PUB, SUB, PUSH, PULL and
         * DEALER and is ignored by other types; unlike libzmq, multi-frame messages are kept whole.
         */
        public Builder conflate(boolean on) {
            this.conflate = on;
            return this;
        }

        /**
         * ROUTER, DEALER, REQ: send an empty one-frame message to every peer as its connection
         * completes, made or accepted (ZMQ_PROBE_ROUTER), so that a ROUTER peer learns our routing
         * id before we have anything to say. The probe bypasses REQ's request-reply alternation.
         */
        public Builder probeRouter(boolean on) {
            this.probeRouter = on;
            return this;
        }

        /**
         * ROUTER: tell the application when a peer comes ({@link #NOTIFY_CONNECT}) or goes
         * ({@link #NOTIFY_DISCONNECT}), each as a message of the peer's routing id and an empty
         * frame (ZMQ_ROUTER_NOTIFY; 0, the default, tells nothing). Flags may be combined.
         */
        public Builder routerNotify(int flags) {
            if ((flags & ~(NOTIFY_CONNECT | NOTIFY_DISCONNECT)) != 0) {
                throw new IllegalArgumentException("routerNotify takes NOTIFY_CONNECT | NOTIFY_DISCONNECT, not " + flags);
            }
            this.routerNotify = flags;
            return this;
        }

        /**
         * XPUB: manual subscriptions (ZMQ_XPUB_MANUAL). Every SUBSCRIBE and CANCEL from a peer is
         * passed to the application and none changes what the peer receives: the application
         * decides with {@link XPubSocket#subscribe} and {@link XPubSocket#unsubscribe}, which
         * apply to the peer whose subscription message it was last handed. When a peer goes, a
         * cancel is passed on for each prefix it had asked for.
         */
        public Builder xpubManual(boolean on) {
            this.xpubManual = on;
            return this;
        }

        /**
         * XPUB: a one-frame message sent to every subscriber as its connection completes
         * (ZMQ_XPUB_WELCOME_MSG); null or empty, the default, sends none. A SUB delivers it only
         * when it subscribes to a prefix of it.
         */
        public Builder xpubWelcomeMessage(byte[] message) {
            this.xpubWelcomeMessage = message == null || message.length == 0 ? null : message.clone();
            return this;
        }

        public Builder xpubWelcomeMessage(String message) {
            return xpubWelcomeMessage(message == null ? null : message.getBytes(StandardCharsets.UTF_8));
        }

        /**
         * PUB, XPUB: when a subscriber the message is for is at its send high-water mark, the
         * send waits (fails after the send timeout; {@code trySend} answers false) instead of
         * dropping the message for that subscriber (ZMQ_XPUB_NODROP). A slow subscriber then
         * slows the publisher down.
         */
        public Builder xpubNoDrop(boolean on) {
            this.xpubNoDrop = on;
            return this;
        }

        /**
         * PUB, XPUB: send each message to the subscribers with no matching prefix; SUB: deliver
         * the messages that match none of its subscriptions (ZMQ_INVERT_MATCHING). A SUB with it
         * needs publishers with it too.
         */
        public Builder invertMatching(boolean on) {
            this.invertMatching = on;
            return this;
        }

        /** SO_SNDBUF of tcp:// connections in bytes (ZMQ_SNDBUF); 0 (default) or -1 keeps the system's. */
        public Builder sendBuffer(int bytes) {
            this.sendBuffer = bufferSize(bytes, "sendBuffer");
            return this;
        }

        /** SO_RCVBUF of tcp:// connections in bytes (ZMQ_RCVBUF); 0 (default) or -1 keeps the system's. */
        public Builder receiveBuffer(int bytes) {
            this.receiveBuffer = bufferSize(bytes, "receiveBuffer");
            return this;
        }

        /** Connections a bound endpoint's kernel queue holds before they are accepted (ZMQ_BACKLOG, default 100). */
        public Builder backlog(int connections) {
            this.backlog = positive(connections, "backlog");
            return this;
        }

        /** IP_TOS (DSCP and ECN bits) of tcp:// connections, 0-255 (ZMQ_TOS; 0, the default, sets nothing). */
        public Builder typeOfService(int tos) {
            if (tos < 0 || tos > 255) {
                throw new IllegalArgumentException("typeOfService must be 0-255, not " + tos);
            }
            this.typeOfService = tos;
            return this;
        }

        private static int bufferSize(int bytes, String name) {
            if (bytes < -1) {
                throw new IllegalArgumentException(name + " must be a size in bytes, 0 or -1 (the system's)");
            }
            return Math.max(0, bytes);
        }

        public SocketOptions build() {
            if (reconnectIntervalMax.compareTo(reconnectInterval) < 0) {
                reconnectIntervalMax = reconnectInterval;
            }
            return new SocketOptions(this);
        }
    }
}
