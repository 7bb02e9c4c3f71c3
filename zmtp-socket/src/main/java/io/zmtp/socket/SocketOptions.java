package io.zmtp.socket;

import io.zmtp.wire.AuthenticationWaits;
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
 *   <tr><td>maximum connections</td><td>65,536 per bound endpoint, 4096 of them in their
 *       handshake at once and 1024 of those from one address (libzmq: unlimited)</td></tr>
 *   <tr><td>TCP keepalive</td><td>on: first probe after 120 s idle, then every 20 s, 5 probes
 *       (libzmq: the system's default, ZMQ_TCP_KEEPALIVE -1)</td></tr>
 *   <tr><td>CONFLATE, PROBE_ROUTER, ROUTER_NOTIFY, XPUB_MANUAL, XPUB_NODROP, INVERT_MATCHING</td>
 *       <td>off, as in libzmq; no XPUB welcome message</td></tr>
 *   <tr><td>SNDBUF, RCVBUF, TOS</td><td>the system's (libzmq: the same)</td></tr>
 *   <tr><td>listen backlog</td><td>the system's net.core.somaxconn (ZMQ_BACKLOG; libzmq: 100)</td></tr>
 *   <tr><td>listening sockets per bound tcp:// endpoint</td><td>1, exclusive (libzmq: the same)</td></tr>
 *   <tr><td>accept queue</td><td>16,384 connections per bound endpoint accepted ahead of being set
 *       up (libzmq: none, it sets each up as it accepts it)</td></tr>
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
    public static final int DEFAULT_MAX_SUBSCRIPTION_SIZE = SocketOptionsBuilder.MAX_SUBSCRIPTION_SIZE;
    public static final int DEFAULT_MAX_SUBSCRIPTIONS = SocketOptionsBuilder.MAX_SUBSCRIPTIONS;
    public static final long DEFAULT_MAX_SUBSCRIPTION_BYTES = SocketOptionsBuilder.MAX_SUBSCRIPTION_BYTES;
    public static final int DEFAULT_MAX_CONNECTIONS = SocketOptionsBuilder.MAX_CONNECTIONS;
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = SocketOptionsBuilder.MAX_CONNECTIONS_PER_ADDRESS;
    public static final int DEFAULT_MAX_HANDSHAKES = SocketOptionsBuilder.MAX_HANDSHAKES;
    public static final int DEFAULT_MAX_HANDSHAKES_PER_ADDRESS = SocketOptionsBuilder.MAX_HANDSHAKES_PER_ADDRESS;
    /** ZMQ_BACKLOG's default: the system's {@code net.core.somaxconn} (libzmq: 100). */
    public static final int DEFAULT_BACKLOG = SocketOptionsBuilder.BACKLOG;
    /** {@link Builder#listeners}' default: one listening socket per bound endpoint, as libzmq. */
    public static final int DEFAULT_LISTENERS = SocketOptionsBuilder.LISTENERS;
    /** {@link Builder#acceptQueue}'s default: 16,384 connections per bound endpoint. */
    public static final int DEFAULT_ACCEPT_QUEUE = SocketOptionsBuilder.ACCEPT_QUEUE;
    /** {@link Builder#routerNotify}: tell the application when a peer connects (ZMQ_NOTIFY_CONNECT). */
    public static final int NOTIFY_CONNECT = SocketOptionsBuilder.NOTIFY_CONNECT;
    /** {@link Builder#routerNotify}: tell the application when a peer disconnects (ZMQ_NOTIFY_DISCONNECT). */
    public static final int NOTIFY_DISCONNECT = SocketOptionsBuilder.NOTIFY_DISCONNECT;

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
    private final java.util.Set<ReconnectStop> reconnectStop;
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
    private final int maxHandshakes;
    private final int maxHandshakesPerAddress;
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
    private final int listeners;
    private final int acceptQueue;
    private final int typeOfService;
    private final Duration tcpRetransmitTimeout;

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
        reconnectStop = b.reconnectStop;
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
        maxHandshakes = b.maxHandshakes;
        maxHandshakesPerAddress = b.maxHandshakesPerAddress;
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
        listeners = b.listeners;
        acceptQueue = b.acceptQueue;
        typeOfService = b.typeOfService;
        tcpRetransmitTimeout = b.tcpRetransmitTimeout;
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
        b.reconnectStop = reconnectStop;
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
        b.maxHandshakes = maxHandshakes;
        b.maxHandshakesPerAddress = maxHandshakesPerAddress;
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
        b.listeners = listeners;
        b.acceptQueue = acceptQueue;
        b.typeOfService = typeOfService;
        b.tcpRetransmitTimeout = tcpRetransmitTimeout;
        return b;
    }

    /**
     * The ZMTP settings of a socket's connected (outgoing) connections, with a new
     * {@link InboundBudget} that all connections made with the result share.
     */
    public ZmtpOptions zmtpOptions(SocketType type) {
        return zmtpOptions(type, false, new InboundBudget(maxInboundBuffered()),
                new AuthenticationWaits(maxWaitingAuthentications()), mechanism());
    }

    /** As {@link #zmtpOptions(SocketType, boolean, InboundBudget, AuthenticationWaits, Mechanism)}, with a bound of waiting authentications of their own and this mechanism. */
    public ZmtpOptions zmtpOptions(SocketType type, boolean accepted, InboundBudget budget) {
        return zmtpOptions(type, accepted, budget, new AuthenticationWaits(maxWaitingAuthentications()), mechanism());
    }

    /**
     * The ZMTP settings of a socket's connections: accepted on a bound endpoint, or connected.
     * {@code budget} and {@code waits} are the socket's one inbound budget and one bound of
     * handshakes waiting for an authenticator, shared by all its connections; {@code mechanism}
     * is the one its connections use (the socket's, or NULL with the ZAP handler).
     */
    public ZmtpOptions zmtpOptions(SocketType type, boolean accepted, InboundBudget budget,
                                   AuthenticationWaits waits, Mechanism mechanism) {
        return connection.toBuilder().socketType(type).inboundBudget(budget).authenticationWaits(waits)
                .mechanism(mechanism).heartbeat(accepted ? boundHeartbeat() : connectedHeartbeat())
                // a connecting socket needs the peer's READY to tell a type mismatch (stop) from a cut
                .readyWithGreeting(accepted).build();
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

    /** How many of a bound tcp:// endpoint's connections may come from one remote address; 0: no bound. */
    public int maxConnectionsPerAddress() {
        return maxConnectionsPerAddress;
    }

    /** How many of a bound endpoint's connections may be in their handshake at once. */
    public int maxHandshakes() {
        return maxHandshakes;
    }

    /** How many connections from one remote address may be in their handshake at once, per bound endpoint. */
    public int maxHandshakesPerAddress() {
        return maxHandshakesPerAddress;
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

    /** The ZAP domain (ZMQ_ZAP_DOMAIN); empty when none. */
    public String zapDomain() {
        return connection.zapDomain();
    }

    /** How long a handshake waits for an authenticator's answer (10 s by default). */
    public Duration authenticationTimeout() {
        return connection.authenticationTimeout();
    }

    /** The most handshakes of one socket that wait for an authenticator at once (1024 by default). */
    public int maxWaitingAuthentications() {
        return connection.authenticationWaits().max();
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

    /** When a connected endpoint stops reconnecting beyond the fatal failures (ZMQ_RECONNECT_STOP); empty by default. */
    public java.util.Set<ReconnectStop> reconnectStop() {
        return reconnectStop;
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

    /** The listen backlog of bound tcp:// and ipc:// endpoints (ZMQ_BACKLOG; the system's somaxconn by default). */
    public int backlog() {
        return backlog;
    }

    /** Listening sockets per bound tcp:// or tls:// endpoint (see {@link Builder#listeners}; 1 by default). */
    public int listeners() {
        return listeners;
    }

    /**
     * Connections a bound endpoint takes from the kernel's queue ahead of setting them up (see
     * {@link Builder#acceptQueue}; {@value #DEFAULT_ACCEPT_QUEUE} by default).
     */
    public int acceptQueue() {
        return acceptQueue;
    }

    /** IP_TOS of tcp:// connections (ZMQ_TOS, 0: the system's default). */
    public int typeOfService() {
        return typeOfService;
    }

    /**
     * How long sent data may stay unacknowledged before a tcp:// connection is dropped
     * (ZMQ_TCP_MAXRT, TCP_USER_TIMEOUT under epoll; the NIO transport cannot set it); zero: the
     * system's.
     */
    public Duration tcpRetransmitTimeout() {
        return tcpRetransmitTimeout;
    }

    /**
     * Builds {@link SocketOptions}: {@link SocketOptions#builder()}, a setter per setting (each
     * value is checked as it is set), then {@link #build()}.
     */
    public static final class Builder extends SocketOptionsBuilder<Builder> {
        private Builder() {
        }

        @Override
        Builder self() {
            return this;
        }

        public SocketOptions build() {
            reconcile();
            return new SocketOptions(this);
        }
    }
}
