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
 * What {@link SocketOptions.Builder} holds and checks: one setter per setting, each validating
 * its value as it is set, and the values {@link SocketOptions} takes when it is built. A
 * package-private superclass, as {@code AbstractStringBuilder} is {@code StringBuilder}'s: its
 * public setters are {@code SocketOptions.Builder}'s API, so the options class keeps to what a
 * socket reads.
 *
 * @param <B> the builder type its setters return
 */
abstract class SocketOptionsBuilder<B extends SocketOptionsBuilder<B>> {
    // The defaults that SocketOptions publishes as its DEFAULT_ constants (the values live here,
    // where the setters start from them).
    static final int MAX_SUBSCRIPTION_SIZE = 4096;
    static final int MAX_SUBSCRIPTIONS = 10_000;
    static final long MAX_SUBSCRIPTION_BYTES = 1 << 20;
    static final int MAX_CONNECTIONS = 65_536;
    static final int MAX_CONNECTIONS_PER_ADDRESS = 0;
    static final int MAX_HANDSHAKES = 4096;
    static final int MAX_HANDSHAKES_PER_ADDRESS = 1024;
    static final int BACKLOG = io.netty.util.NetUtil.SOMAXCONN;
    static final int LISTENERS = 1;
    static final int MAX_LISTENERS = 64;
    static final int ACCEPT_QUEUE = 16_384;
    static final int NOTIFY_CONNECT = 1;
    static final int NOTIFY_DISCONNECT = 2;

    /**
     * What the connections' settings become (each checked as it is set); ZmtpOptions need a
     * socket type, whose place this one keeps until each socket puts its own.
     */
    ZmtpOptions.Builder connection = ZmtpOptions.builder(SocketType.PAIR);
    long maxInboundBuffered;
    HeartbeatPolicy heartbeat;
    int sendHwm = 1000;
    int receiveHwm = 1000;
    Duration linger = Duration.ofSeconds(30);
    Duration reconnectInterval = Duration.ofMillis(100);
    Duration reconnectIntervalMax = Duration.ofSeconds(5);
    Duration sendTimeout;
    Duration connectTimeout = Duration.ofSeconds(10);
    java.util.Set<ReconnectStop> reconnectStop = java.util.Set.of();
    boolean routerMandatory;
    boolean routerHandover;
    boolean streamNotify = true;
    boolean reqRelaxed;
    boolean reqCorrelate;
    boolean xpubVerbose;
    int maxSubscriptionSize = MAX_SUBSCRIPTION_SIZE;
    int maxSubscriptions = MAX_SUBSCRIPTIONS;
    long maxSubscriptionBytes = MAX_SUBSCRIPTION_BYTES;
    int maxConnections = MAX_CONNECTIONS;
    int maxConnectionsPerAddress = MAX_CONNECTIONS_PER_ADDRESS;
    int maxHandshakes = MAX_HANDSHAKES;
    int maxHandshakesPerAddress = MAX_HANDSHAKES_PER_ADDRESS;
    TcpKeepAlive tcpKeepAlive = TcpKeepAlive.DEFAULT;
    io.zmtp.transport.TlsSettings tls;
    boolean conflate;
    boolean probeRouter;
    int routerNotify;
    boolean xpubManual;
    byte[] xpubWelcomeMessage;
    boolean xpubNoDrop;
    boolean invertMatching;
    int sendBuffer;
    int receiveBuffer;
    int backlog = BACKLOG;
    int listeners = LISTENERS;
    int acceptQueue = ACCEPT_QUEUE;
    int typeOfService;
    Duration tcpRetransmitTimeout = Duration.ZERO;


    /** The routing identity announced to peers (ZMQ_ROUTING_ID); 0-255 bytes, not starting with 0. */
    public B identity(byte[] id) {
        connection.identity(id);
        return self();
    }

    public B identity(String id) {
        return identity(id.getBytes(StandardCharsets.UTF_8));
    }

    public B resource(String r) {
        connection.resource(r);
        return self();
    }

    /** Application properties (names start with X-) sent in READY. */
    public B properties(ZmtpMetadata p) {
        connection.properties(Objects.requireNonNull(p));
        return self();
    }

    /** The security mechanism (NULL by default). */
    public B mechanism(Mechanism m) {
        connection.mechanism(m);
        return self();
    }

    /**
     * The largest message accepted (ZMQ_MAXMSGSIZE): its bytes plus
     * {@link ZmtpOptions#FRAME_COST} per frame after the first; negative means the largest that can be set,
     * {@link ZmtpOptions#MAX_MESSAGE_SIZE_LIMIT}.
     */
    public B maxMessageSize(long bytes) {
        connection.maxMessageSize(bytes);
        return self();
    }

    /** The most frames one received message may have (default 65,536). */
    public B maxFramesPerMessage(int frames) {
        connection.maxFramesPerMessage(frames);
        return self();
    }

    /**
     * How many messages one connection decodes in a turn of the socket's event loop before the
     * loop's other connections get theirs (default {@value ZmtpOptions#DEFAULT_MESSAGES_PER_TURN};
     * 0: no limit): what keeps one flooding peer from delaying every other peer of the loop by
     * its whole backlog. See {@link ZmtpOptions.Builder#messagesPerTurn}.
     */
    public B messagesPerTurn(int messages) {
        connection.messagesPerTurn(messages);
        return self();
    }

    /** The most properties a peer may announce in its handshake (default 128). */
    public B maxMetadataProperties(int properties) {
        connection.maxMetadataProperties(properties);
        return self();
    }

    /**
     * The bytes all connections of the socket may hold together in unfinished messages
     * (at least {@link InboundBudget#SMALL_HOLDING}); see {@link InboundBudget}. Default: 256 MiB
     * or twice the maximum message size, whichever is more.
     */
    public B maxInboundBuffered(long bytes) {
        if (bytes < InboundBudget.SMALL_HOLDING) {
            throw new IllegalArgumentException("maxInboundBuffered must be at least " + InboundBudget.SMALL_HOLDING);
        }
        this.maxInboundBuffered = bytes;
        return self();
    }

    /** The largest handshake command body a peer may send, READY or INITIATE and their metadata (at least 256). */
    public B maxMetadataSize(int bytes) {
        connection.maxMetadataSize(bytes);
        return self();
    }

    /**
     * The ZAP domain (ZMQ_ZAP_DOMAIN, empty by default): passed to the authenticator with each
     * request. With the NULL mechanism a non-empty domain turns authentication on through the
     * context's ZAP handler ({@link ZmtpContext#zapAuthenticator()}), as in libzmq.
     */
    public B zapDomain(String domain) {
        connection.zapDomain(Objects.requireNonNull(domain));
        return self();
    }

    /**
     * How long a handshake waits for an authenticator's answer before the client is refused with
     * status 300 and closed without ERROR (default 10 s; positive).
     */
    public B authenticationTimeout(Duration d) {
        connection.authenticationTimeout(Objects.requireNonNull(d));
        return self();
    }

    /**
     * The most handshakes of this socket that wait for an authenticator's answer at once (default
     * {@value io.zmtp.wire.AuthenticationWaits#DEFAULT_MAX}); a client beyond it is refused at once
     * with status 300, so a slow directory cannot pile connections up.
     */
    public B maxWaitingAuthentications(int handshakes) {
        connection.authenticationWaits(new io.zmtp.wire.AuthenticationWaits(handshakes));
        return self();
    }

    /** How long a connection's greeting and handshake may take (ZMQ_HANDSHAKE_IVL; positive). */
    public B handshakeTimeout(Duration d) {
        connection.handshakeTimeout(Objects.requireNonNull(d));
        return self();
    }

    /**
     * The heartbeats of every connection of this socket, bound or connected
     * ({@link HeartbeatPolicy#OFF} turns them off). Unset, a bound endpoint's connections use
     * {@link SocketOptions#DEFAULT_BOUND_HEARTBEAT} and connected ones none.
     */
    public B heartbeat(HeartbeatPolicy h) {
        this.heartbeat = Objects.requireNonNull(h);
        return self();
    }

    /**
     * PUB, XPUB: the longest prefix a peer may subscribe to (default 4096 bytes). A peer that
     * subscribes to a longer one is disconnected, with the reason in the DISCONNECTED event
     * and the log: silently ignoring it would leave the peer waiting for messages it never gets.
     */
    public B maxSubscriptionSize(int bytes) {
        this.maxSubscriptionSize = positive(bytes, "maxSubscriptionSize");
        return self();
    }

    /**
     * PUB, XPUB: how many distinct prefixes one peer may subscribe to at once (default 10,000);
     * a peer that goes past it is disconnected. Each costs a few hundred bytes of memory.
     */
    public B maxSubscriptions(int count) {
        this.maxSubscriptions = positive(count, "maxSubscriptions");
        return self();
    }

    /**
     * PUB, XPUB: how many bytes one peer's prefixes may add up to (default 1 MiB); a peer
     * that goes past it is disconnected.
     */
    public B maxSubscriptionBytes(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("maxSubscriptionBytes must be at least 1");
        }
        this.maxSubscriptionBytes = bytes;
        return self();
    }

    /**
     * How many connections each bound tcp:// or ipc:// endpoint holds at once, those still in
     * their handshake included (default 65,536). At the bound a new connection is let in and an
     * older one makes room (an {@link SocketEvent.Type#EVICTED} event): the oldest still in its
     * handshake, else the peer heard from longest ago. Keep it below the process's file
     * descriptor limit, so this, and not a failing accept, decides who goes (docs/limits.md).
     */
    public B maxConnections(int count) {
        this.maxConnections = positive(count, "maxConnections");
        return self();
    }

    /**
     * How many of a bound tcp:// endpoint's connections may come from one remote IP address, in
     * their handshake or past it; 0 (the default) sets no such bound, as a worker host, a NAT
     * gateway or a node's SNAT brings many peers from one address. Past it a new connection from
     * that address is closed at once. Connections still in their handshake are bounded per
     * address by {@link #maxHandshakesPerAddress} whatever this says.
     */
    public B maxConnectionsPerAddress(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("maxConnectionsPerAddress must be 0 (no bound) or more");
        }
        this.maxConnectionsPerAddress = count;
        return self();
    }

    /**
     * How many connections of a bound endpoint may be in their handshake at once (default 4096):
     * connections that never finish one hold a descriptor each until the handshake timeout. At
     * the bound a new connection is let in and the oldest one still in its handshake is closed to
     * make room (an {@link SocketEvent.Type#EVICTED} event), so such connections cannot lock good
     * peers out, and a good peer, which finishes in milliseconds, is never the oldest.
     */
    public B maxHandshakes(int count) {
        this.maxHandshakes = positive(count, "maxHandshakes");
        return self();
    }

    /**
     * How many connections from one remote IP address may be in their handshake at once, per
     * bound tcp:// endpoint (default 1024), so one host cannot take every handshake; past it a
     * new connection from that address is closed at once (a {@link SocketEvent.Type#REFUSED}
     * event), and the peer tries again after its reconnect interval. A completed handshake no
     * longer counts: a busy address is refused only while it is that busy handshaking.
     */
    public B maxHandshakesPerAddress(int count) {
        this.maxHandshakesPerAddress = positive(count, "maxHandshakesPerAddress");
        return self();
    }

    /** TCP keepalive of tcp:// connections ({@link TcpKeepAlive#DEFAULT}); null turns it off. */
    public B tcpKeepAlive(TcpKeepAlive keepAlive) {
        this.tcpKeepAlive = keepAlive;
        return self();
    }

    /**
     * TLS for tls:// and wss:// endpoints: the server context a bind uses, the client context a
     * connect uses (either may be absent when the socket only binds or only connects). No
     * default: binding or connecting such an endpoint without it fails with a clear error.
     */
    public B tls(io.zmtp.transport.TlsSettings settings) {
        this.tls = settings;
        return self();
    }

    private static int positive(int n, String name) {
        if (n < 1) {
            throw new IllegalArgumentException(name + " must be at least 1");
        }
        return n;
    }

    /** Announce ZMTP 3.0 (behave as an older peer); 3.1 by default. */
    public B version(ZmtpVersion v) {
        connection.version(v);
        return self();
    }

    /** Messages queued per peer before a send blocks or drops (ZMQ_SNDHWM); at least 1. */
    public B sendHwm(int messages) {
        if (messages < 1) {
            throw new IllegalArgumentException("sendHwm must be at least 1");
        }
        this.sendHwm = messages;
        return self();
    }

    /** Messages received per peer and not yet consumed before reading pauses (ZMQ_RCVHWM). */
    public B receiveHwm(int messages) {
        if (messages < 1) {
            throw new IllegalArgumentException("receiveHwm must be at least 1");
        }
        this.receiveHwm = messages;
        return self();
    }

    /** Both high-water marks. */
    public B hwm(int messages) {
        return sendHwm(messages).receiveHwm(messages);
    }

    /** How long close() keeps flushing queued messages before dropping them (ZMQ_LINGER). */
    public B linger(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("linger must not be negative");
        }
        this.linger = d;
        return self();
    }

    /** The first reconnect delay (ZMQ_RECONNECT_IVL). */
    public B reconnectInterval(Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("reconnectInterval must be positive");
        }
        this.reconnectInterval = d;
        return self();
    }

    /** The longest reconnect delay the doubling reaches (ZMQ_RECONNECT_IVL_MAX). */
    public B reconnectIntervalMax(Duration d) {
        this.reconnectIntervalMax = Objects.requireNonNull(d);
        return self();
    }

    /** How long a send may wait at the high-water mark before failing; null waits forever. */
    public B sendTimeout(Duration d) {
        this.sendTimeout = d;
        return self();
    }

    public B connectTimeout(Duration d) {
        this.connectTimeout = Objects.requireNonNull(d);
        return self();
    }

    /**
     * When a connected endpoint stops reconnecting, beyond the failures that always stop it
     * (ZMQ_RECONNECT_STOP; default: none, it reconnects after refusals and failed handshakes).
     * See {@link ReconnectStop}.
     */
    public B reconnectStop(ReconnectStop... cases) {
        java.util.EnumSet<ReconnectStop> set = java.util.EnumSet.noneOf(ReconnectStop.class);
        for (ReconnectStop c : cases) {
            set.add(Objects.requireNonNull(c));
        }
        this.reconnectStop = java.util.Collections.unmodifiableSet(set);
        return self();
    }

    /** ROUTER: fail an unroutable send instead of dropping it (ZMQ_ROUTER_MANDATORY). */
    public B routerMandatory(boolean on) {
        this.routerMandatory = on;
        return self();
    }

    /** ROUTER: a new peer with a known identity takes over from the old one (ZMQ_ROUTER_HANDOVER). */
    public B routerHandover(boolean on) {
        this.routerHandover = on;
        return self();
    }

    /**
     * STREAM: deliver a new connection and a closed one to the application as a message of
     * two frames, its routing id and an empty frame (ZMQ_STREAM_NOTIFY; on by default). The
     * connect notification is how the id of a connection this socket made becomes known.
     */
    public B streamNotify(boolean on) {
        this.streamNotify = on;
        return self();
    }

    /**
     * Speak ZMTP 2.0 with peers that announce it (libzmq 3.x, JeroMQ 0.3.x) instead of
     * refusing them; off by default, and only with the NULL mechanism: with PLAIN or CURVE
     * such a peer is refused all the same, since 2.0 has no security and accepting it would
     * let anyone who can rewrite one greeting byte downgrade the connection to plaintext.
     * See {@link ZmtpOptions.Builder#zmtp20Fallback}.
     */
    public B zmtp20Fallback(boolean on) {
        connection.zmtp20Fallback(on);
        return self();
    }

    /** REQ: allow a new request before the reply to the last one (ZMQ_REQ_RELAXED). */
    public B reqRelaxed(boolean on) {
        this.reqRelaxed = on;
        return self();
    }

    /** REQ: tag requests with an id and accept only the matching reply (ZMQ_REQ_CORRELATE). */
    public B reqCorrelate(boolean on) {
        this.reqCorrelate = on;
        return self();
    }

    /** XPUB: pass every subscription to the application, not only new ones (ZMQ_XPUB_VERBOSE). */
    public B xpubVerbose(boolean on) {
        this.xpubVerbose = on;
        return self();
    }

    /**
     * Keep only the last message (ZMQ_CONFLATE): a received message replaces the one the
     * application has not taken yet, a sent one replaces the one not yet written to a peer,
     * and the high-water marks no longer apply. For last-value consumers (a SUB that wants the
     * latest state, not the history). As in libzmq it applies to PUB, SUB, PUSH, PULL and
     * DEALER and is ignored by other types; unlike libzmq, multi-frame messages are kept whole.
     */
    public B conflate(boolean on) {
        this.conflate = on;
        return self();
    }

    /**
     * ROUTER, DEALER, REQ: send an empty one-frame message to every peer as its connection
     * completes, made or accepted (ZMQ_PROBE_ROUTER), so that a ROUTER peer learns our routing
     * id before we have anything to say. The probe bypasses REQ's request-reply alternation.
     */
    public B probeRouter(boolean on) {
        this.probeRouter = on;
        return self();
    }

    /**
     * ROUTER: tell the application when a peer comes ({@link SocketOptions#NOTIFY_CONNECT}) or goes
     * ({@link SocketOptions#NOTIFY_DISCONNECT}), each as a message of the peer's routing id and an empty
     * frame (ZMQ_ROUTER_NOTIFY; 0, the default, tells nothing). Flags may be combined.
     */
    public B routerNotify(int flags) {
        if ((flags & ~(NOTIFY_CONNECT | NOTIFY_DISCONNECT)) != 0) {
            throw new IllegalArgumentException("routerNotify takes SocketOptions.NOTIFY_CONNECT | SocketOptions.NOTIFY_DISCONNECT, not " + flags);
        }
        this.routerNotify = flags;
        return self();
    }

    /**
     * XPUB: manual subscriptions (ZMQ_XPUB_MANUAL). Every SUBSCRIBE and CANCEL from a peer is
     * passed to the application and none changes what the peer receives: the application
     * decides with {@link XPubSocket#subscribe} and {@link XPubSocket#unsubscribe}, which
     * apply to the peer whose subscription message it was last handed. When a peer goes, a
     * cancel is passed on for each prefix it had asked for.
     */
    public B xpubManual(boolean on) {
        this.xpubManual = on;
        return self();
    }

    /**
     * XPUB: a one-frame message sent to every subscriber as its connection completes
     * (ZMQ_XPUB_WELCOME_MSG); null or empty, the default, sends none. A SUB delivers it only
     * when it subscribes to a prefix of it.
     */
    public B xpubWelcomeMessage(byte[] message) {
        this.xpubWelcomeMessage = message == null || message.length == 0 ? null : message.clone();
        return self();
    }

    public B xpubWelcomeMessage(String message) {
        return xpubWelcomeMessage(message == null ? null : message.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * PUB, XPUB: when a subscriber the message is for is at its send high-water mark, the
     * send waits (fails after the send timeout; {@code trySend} answers false) instead of
     * dropping the message for that subscriber (ZMQ_XPUB_NODROP). A slow subscriber then
     * slows the publisher down.
     */
    public B xpubNoDrop(boolean on) {
        this.xpubNoDrop = on;
        return self();
    }

    /**
     * PUB, XPUB: send each message to the subscribers with no matching prefix; SUB: deliver
     * the messages that match none of its subscriptions (ZMQ_INVERT_MATCHING). A SUB with it
     * needs publishers with it too.
     */
    public B invertMatching(boolean on) {
        this.invertMatching = on;
        return self();
    }

    /** SO_SNDBUF of tcp:// connections in bytes (ZMQ_SNDBUF); 0 (default) or -1 keeps the system's. */
    public B sendBuffer(int bytes) {
        this.sendBuffer = bufferSize(bytes, "sendBuffer");
        return self();
    }

    /** SO_RCVBUF of tcp:// connections in bytes (ZMQ_RCVBUF); 0 (default) or -1 keeps the system's. */
    public B receiveBuffer(int bytes) {
        this.receiveBuffer = bufferSize(bytes, "receiveBuffer");
        return self();
    }

    /**
     * Connections a bound endpoint's kernel queue holds before they are accepted (ZMQ_BACKLOG).
     * The default is the system's largest, {@code net.core.somaxconn} (4096 on recent Linux; libzmq
     * takes 100), so a restarted server meets its peers' reconnects in the queue, not with
     * refused SYNs that come back a second later; the kernel lowers any value to that maximum.
     */
    public B backlog(int connections) {
        this.backlog = positive(connections, "backlog");
        return self();
    }

    /**
     * Listening sockets per bound tcp:// or tls:// endpoint, 1-{@value #MAX_LISTENERS}, all on the
     * socket's event loop and sharing its port with SO_REUSEPORT (Linux, which spreads new
     * connections over them): each has its own kernel queue of {@link #backlog} connections, so a
     * server restarted under thousands of peers that all connect at once queues them all while it
     * starts, instead of the kernel dropping what one queue cannot hold (they come back a second
     * or more later). The default, 1, binds as libzmq does: exclusively. With more than one,
     * another process of the same user that also sets SO_REUSEPORT may bind the same port and
     * share its connections; that is the price, and why it is not the default. Where the system
     * does not spread connections over such sockets (not Linux), a bind asks for one only, and says
     * so in the log. ipc://, ws:// and wss:// endpoints have one listener whatever this says.
     */
    public B listeners(int sockets) {
        if (sockets < 1 || sockets > MAX_LISTENERS) {
            throw new IllegalArgumentException("listeners must be 1-" + MAX_LISTENERS + ", not " + sockets);
        }
        this.listeners = sockets;
        return self();
    }

    /**
     * Connections a bound endpoint takes from its kernel queue ahead of setting them up, at most
     * (tcp://, tls:// and ipc://). Setting a connection up (its admission, pipeline, registration
     * and greeting) costs many times what accepting it does, ten times more while the JVM is
     * still compiling, so a server that set up each connection as it accepted it would empty the
     * kernel's queue ({@link #backlog}) only at the speed of set-ups, and a crowd of peers
     * connecting at once (a restarted broker's) would overflow it: the kernel drops what arrives
     * then, and those peers come back a second or more later. Instead an endpoint accepts what
     * the kernel holds as fast as it can, up to this many waiting, and sets them up a slice at a
     * time between the event loop's turns of I/O, so the peers already set up keep their
     * handshakes going. At the bound it stops accepting (the kernel queues the rest) until half
     * have been set up. Each connection waiting holds a file descriptor and a channel object;
     * the limits on connections and handshakes apply when it is set up. The default,
     * {@value #ACCEPT_QUEUE}, holds a crowd of 10,000 with room; 1 sets each up before taking the
     * next, as libzmq does. Before it listens, a bind grows the process's descriptor table to hold
     * this many descriptors ({@link io.zmtp.transport.DescriptorTable}: Linux stops an accept that
     * needs the table grown for a few milliseconds each time it doubles), once per process; the
     * bind waits for it, 0.16 s for 16,384 on a 2-core machine.
     */
    public B acceptQueue(int connections) {
        this.acceptQueue = positive(connections, "acceptQueue");
        return self();
    }

    /** IP_TOS (DSCP and ECN bits) of tcp:// connections, 0-255 (ZMQ_TOS; 0, the default, sets nothing). */
    public B typeOfService(int tos) {
        if (tos < 0 || tos > 255) {
            throw new IllegalArgumentException("typeOfService must be 0-255, not " + tos);
        }
        this.typeOfService = tos;
        return self();
    }

    /**
     * How long data sent on a tcp:// connection, made or accepted, may stay unacknowledged before
     * the system drops the connection (ZMQ_TCP_MAXRT): TCP_USER_TIMEOUT, under the epoll transport
     * only; the NIO transport cannot set it (the JDK has no such socket option) and keeps the
     * system's. {@link Duration#ZERO} (the default) keeps the system's: on Linux, retransmissions
     * for about 15 minutes ({@code net.ipv4.tcp_retries2}). Whole milliseconds, up to
     * {@link Integer#MAX_VALUE}.
     */
    public B tcpRetransmitTimeout(Duration timeout) {
        Objects.requireNonNull(timeout);
        if (timeout.isNegative() || (!timeout.isZero() && timeout.toMillis() == 0)
                || timeout.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("tcpRetransmitTimeout must be zero (the system's) or 1 ms to "
                    + Integer.MAX_VALUE + " ms, not " + timeout);
        }
        this.tcpRetransmitTimeout = timeout;
        return self();
    }

    private static int bufferSize(int bytes, String name) {
        if (bytes < -1) {
            throw new IllegalArgumentException(name + " must be a size in bytes, 0 or -1 (the system's)");
        }
        return Math.max(0, bytes);
    }

    /** This builder, as its own type (for the setters' return). */
    abstract B self();

    /** The settings that must agree with each other, made to (before the options are built). */
    void reconcile() {
        if (reconnectIntervalMax.compareTo(reconnectInterval) < 0) {
            reconnectIntervalMax = reconnectInterval;
        }
    }
}
