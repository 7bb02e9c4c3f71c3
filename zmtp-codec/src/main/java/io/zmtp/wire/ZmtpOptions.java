package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of one ZMTP connection: who we are (socket type, identity, properties), how we secure
 * it, and the limits that protect us from a peer. Immutable; build with {@link #builder}.
 *
 * <p>Defaults: {@value #DEFAULT_MAX_MESSAGE_SIZE} bytes per message (each frame after the first also counts
 * {@value #FRAME_COST} bytes), {@value #DEFAULT_MAX_FRAMES_PER_MESSAGE} frames per message, a 30 s
 * handshake timeout (as libzmq's ZMQ_HANDSHAKE_IVL), {@value #DEFAULT_MAX_METADATA_SIZE} bytes and
 * {@value #DEFAULT_MAX_METADATA_PROPERTIES} properties of handshake metadata, no inbound budget
 * shared with other connections (a socket gives its connections one), heartbeats off, NULL
 * security, ZMTP 3.1 announced. Every field is safely published (final), so an options object
 * may be read from any thread.
 */
public final class ZmtpOptions {
    /** 64 MiB: a message whose frames add up to more closes the connection. */
    public static final long DEFAULT_MAX_MESSAGE_SIZE = 64L * 1024 * 1024;
    /**
     * The largest maximum message size that can be set: 2 GiB less 64 MiB, so that a frame's
     * size fits an {@code int} and sums of sizes, frame costs and command overheads cannot
     * overflow. A negative maximum (libzmq's -1, "unlimited") means this value.
     */
    public static final long MAX_MESSAGE_SIZE_LIMIT = Integer.MAX_VALUE - 64L * 1024 * 1024;
    /**
     * What each received frame after a message's first costs against the maximum message size, in
     * addition to its bytes: about what holding one frame costs in memory (the slice object and
     * its slot in the message's frame list). Without it a message of millions of empty frames
     * would cost nothing; the first frame is free so that a one-frame message of exactly the
     * maximum size is accepted.
     */
    public static final int FRAME_COST = 64;
    /** 65,536: a message with more frames closes the connection. */
    public static final int DEFAULT_MAX_FRAMES_PER_MESSAGE = 65_536;
    /** 128: the most properties a peer's READY or INITIATE may carry. */
    public static final int DEFAULT_MAX_METADATA_PROPERTIES = ZmtpMetadata.DEFAULT_MAX_PROPERTIES;
    /** 64 KiB: the largest handshake command body (READY, INITIATE and their metadata). */
    public static final int DEFAULT_MAX_METADATA_SIZE = 64 * 1024;
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(30);
    /**
     * 512: the messages one connection decodes in a turn of its event loop before it yields to the
     * loop's other connections (see {@link Builder#messagesPerTurn}). About what libzmq decodes
     * from one 8 KiB read of small messages; 128 measured up to a quarter slower on the
     * asynchronous round trip (a turn costs a pause and a resume of reading, and a flush), and
     * no fairer at the median (benchmarks/RESULTS.md, the broker under a flood).
     */
    public static final int DEFAULT_MESSAGES_PER_TURN = 512;
    /**
     * 10 s: how long a handshake waits for an authenticator's answer before the client is refused
     * with ZAP status 300 (libzmq has no such bound apart from the handshake timeout).
     */
    public static final Duration DEFAULT_AUTHENTICATION_TIMEOUT = Duration.ofSeconds(10);

    private final SocketType socketType;
    private final byte[] identity;
    private final String resource;
    private final ZmtpMetadata properties;
    private final Mechanism mechanism;
    private final long maxMessageSize;
    private final int maxMetadataSize;
    private final int maxMetadataProperties;
    private final int maxFramesPerMessage;
    private final int messagesPerTurn;
    private final InboundBudget inboundBudget;
    private final Duration handshakeTimeout;
    private final HeartbeatPolicy heartbeat;
    private final ZmtpVersion version;
    private final ZmtpMetadata localMetadata;
    private final boolean zmtp20Fallback;
    private final boolean readyWithGreeting;
    private final String zapDomain;
    private final Duration authenticationTimeout;
    private final AuthenticationWaits authenticationWaits;
    /** The greeting bytes every connection with these options sends, encoded at the first one. */
    private HandshakeBytes handshakeBytes;

    private ZmtpOptions(Builder b) {
        this.socketType = Objects.requireNonNull(b.socketType, "socketType");
        this.identity = b.identity;
        this.resource = b.resource;
        this.properties = b.properties;
        this.mechanism = b.mechanism;
        this.maxMessageSize = b.maxMessageSize;
        this.maxMetadataSize = b.maxMetadataSize;
        this.maxMetadataProperties = b.maxMetadataProperties;
        this.maxFramesPerMessage = b.maxFramesPerMessage;
        this.messagesPerTurn = b.messagesPerTurn;
        this.inboundBudget = b.inboundBudget;
        this.handshakeTimeout = b.handshakeTimeout;
        this.heartbeat = b.heartbeat;
        this.version = b.version;
        this.zmtp20Fallback = b.zmtp20Fallback;
        this.readyWithGreeting = b.readyWithGreeting;
        this.zapDomain = b.zapDomain;
        this.authenticationTimeout = b.authenticationTimeout;
        this.authenticationWaits = b.authenticationWaits != null ? b.authenticationWaits
                : new AuthenticationWaits(AuthenticationWaits.DEFAULT_MAX);
        ZmtpMetadata.Builder m = ZmtpMetadata.builder().put(ZmtpMetadata.SOCKET_TYPE, socketType.wireName());
        if (socketType.sendsIdentity()) {
            m.put(ZmtpMetadata.IDENTITY, identity);
        }
        if (resource != null && version == ZmtpVersion.V3_1) {
            m.put(ZmtpMetadata.RESOURCE, resource);
        }
        m.putAll(properties);
        this.localMetadata = m.build();
    }

    public static Builder builder(SocketType type) {
        return new Builder().socketType(type);
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.socketType = socketType;
        b.identity = identity;
        b.resource = resource;
        b.properties = properties;
        b.mechanism = mechanism;
        b.maxMessageSize = maxMessageSize;
        b.maxMetadataSize = maxMetadataSize;
        b.maxMetadataProperties = maxMetadataProperties;
        b.maxFramesPerMessage = maxFramesPerMessage;
        b.messagesPerTurn = messagesPerTurn;
        b.inboundBudget = inboundBudget;
        b.handshakeTimeout = handshakeTimeout;
        b.heartbeat = heartbeat;
        b.version = version;
        b.zmtp20Fallback = zmtp20Fallback;
        b.readyWithGreeting = readyWithGreeting;
        b.zapDomain = zapDomain;
        b.authenticationTimeout = authenticationTimeout;
        b.authenticationWaits = authenticationWaits;
        return b;
    }

    public SocketType socketType() {
        return socketType;
    }

    /** Our routing identity (empty: the peer generates one). */
    public byte[] identity() {
        return identity.clone();
    }

    public String resource() {
        return resource;
    }

    /** Application (X-) properties sent in READY. */
    public ZmtpMetadata properties() {
        return properties;
    }

    public Mechanism mechanism() {
        return mechanism;
    }

    /** The largest message accepted, in bytes plus {@link #FRAME_COST} per frame after the first. */
    public long maxMessageSize() {
        return maxMessageSize;
    }

    /** The largest handshake command body (READY, INITIATE and their metadata), in bytes. */
    public int maxMetadataSize() {
        return maxMetadataSize;
    }

    /** The most properties a peer may announce in its handshake. */
    public int maxMetadataProperties() {
        return maxMetadataProperties;
    }

    /** The most frames one received message may have. */
    public int maxFramesPerMessage() {
        return maxFramesPerMessage;
    }

    /** Messages one connection decodes per turn of its event loop (0: no limit). */
    public int messagesPerTurn() {
        return messagesPerTurn;
    }

    /** The inbound byte budget this connection shares with the other connections of its socket, or null. */
    public InboundBudget inboundBudget() {
        return inboundBudget;
    }

    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    public HeartbeatPolicy heartbeat() {
        return heartbeat;
    }

    /**
     * Whether a peer that announces ZMTP 2.0 (revision 1: libzmq 3.x, JeroMQ 0.3) is spoken to
     * in ZMTP 2.0 instead of refused; only with the NULL mechanism (off by default).
     */
    public boolean zmtp20Fallback() {
        return zmtp20Fallback;
    }

    /** Whether plain NULL sends its READY with the rest of its greeting (see {@link Builder#readyWithGreeting}). */
    public boolean readyWithGreeting() {
        return readyWithGreeting;
    }

    /**
     * The ZAP domain (libzmq's ZMQ_ZAP_DOMAIN): sent to the authenticator with each request; with
     * the NULL mechanism, a non-empty domain is what turns authentication on. Empty by default.
     */
    public String zapDomain() {
        return zapDomain;
    }

    /** How long a handshake waits for an authenticator's answer before refusing with status 300. */
    public Duration authenticationTimeout() {
        return authenticationTimeout;
    }

    /** The bound of handshakes waiting for an authenticator at once, shared as the builder was told. */
    public AuthenticationWaits authenticationWaits() {
        return authenticationWaits;
    }

    /** The version we announce (3.1 unless told to behave as a 3.0 peer). */
    public ZmtpVersion version() {
        return version;
    }

    /** Everything we announce in READY: Socket-Type, Identity, Resource and the X- properties. */
    public ZmtpMetadata localMetadata() {
        return localMetadata;
    }

    /**
     * Our greeting after its first part, and plain NULL's READY frame: the same bytes on every
     * connection made with these options, so they are encoded once, not per connection (a
     * restarted server meets its peers all at once, in a JVM that still interprets this code).
     * Encoded at the first connection, not here, so that a mechanism whose name does not fit
     * fails that connection, as it always did. Any loop may race to encode them: each gets equal
     * bytes, and the final fields of {@link HandshakeBytes} publish them whole.
     */
    HandshakeBytes handshakeBytes() {
        HandshakeBytes h = handshakeBytes;
        if (h == null) {
            h = new HandshakeBytes(this);
            handshakeBytes = h;
        }
        return h;
    }

    /** See {@link #handshakeBytes()}. */
    static final class HandshakeBytes {
        /** Minor version, mechanism, as-server and filler: the 53 bytes after the first part. */
        final byte[] greetingRest;
        /** The whole READY command frame of plain NULL (no cipher): header, name and our metadata. */
        final byte[] nullReady;

        private HandshakeBytes(ZmtpOptions o) {
            ByteBuf rest = Unpooled.buffer(ZmtpWire.GREETING_SIZE);
            ByteBuf metadata = Unpooled.buffer(o.localMetadata.encodedSize());
            ByteBuf frame = null;
            try {
                ZmtpWire.writeGreetingRest(rest, o.version.minor(), o.mechanism.name(), o.mechanism.asServer());
                greetingRest = ByteBufUtil.getBytes(rest);
                o.localMetadata.encode(metadata);
                frame = Unpooled.buffer(ZmtpWire.commandFrameSize(ZmtpWire.READY, metadata.readableBytes()));
                ZmtpWire.writeCommand(frame, ZmtpWire.READY, metadata);
                nullReady = ByteBufUtil.getBytes(frame);
            } finally {
                rest.release();
                metadata.release();
                if (frame != null) {
                    frame.release();
                }
            }
        }
    }

    @Override
    public String toString() {
        return "ZmtpOptions{" + socketType + ", " + mechanism.name() + ", " + version
                + ", maxMessageSize=" + maxMessageSize + ", " + heartbeat + "}";
    }

    public static final class Builder {
        private SocketType socketType;
        private byte[] identity = new byte[0];
        private String resource;
        private ZmtpMetadata properties = ZmtpMetadata.EMPTY;
        private Mechanism mechanism = NullMechanism.INSTANCE;
        private long maxMessageSize = DEFAULT_MAX_MESSAGE_SIZE;
        private int maxMetadataSize = DEFAULT_MAX_METADATA_SIZE;
        private int maxMetadataProperties = DEFAULT_MAX_METADATA_PROPERTIES;
        private int maxFramesPerMessage = DEFAULT_MAX_FRAMES_PER_MESSAGE;
        private int messagesPerTurn = DEFAULT_MESSAGES_PER_TURN;
        private InboundBudget inboundBudget;
        private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;
        private HeartbeatPolicy heartbeat = HeartbeatPolicy.OFF;
        private ZmtpVersion version = ZmtpVersion.V3_1;
        private boolean zmtp20Fallback;
        private boolean readyWithGreeting;
        private String zapDomain = "";
        private Duration authenticationTimeout = DEFAULT_AUTHENTICATION_TIMEOUT;
        private AuthenticationWaits authenticationWaits;

        private Builder() {
        }

        public Builder socketType(SocketType type) {
            this.socketType = Objects.requireNonNull(type);
            return this;
        }

        /**
         * Our routing identity, 0-255 bytes, not starting with a zero byte (libzmq reserves those
         * for generated ids). Sent only by REQ, DEALER and ROUTER.
         */
        public Builder identity(byte[] id) {
            if (id.length > 255) {
                throw new IllegalArgumentException("identity longer than 255 bytes");
            }
            if (id.length > 0 && id[0] == 0) {
                throw new IllegalArgumentException("identity must not start with a zero byte");
            }
            this.identity = id.clone();
            return this;
        }

        public Builder identity(String id) {
            return identity(id.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }

        /** The ZMTP 3.1 Resource property (several services on one port). */
        public Builder resource(String r) {
            this.resource = r;
            return this;
        }

        /** Application properties; names must start with "X-". */
        public Builder properties(ZmtpMetadata props) {
            for (String n : props.names()) {
                if (!n.regionMatches(true, 0, "X-", 0, 2)) {
                    throw new IllegalArgumentException("application property names start with X-: " + n);
                }
            }
            this.properties = props;
            return this;
        }

        public Builder mechanism(Mechanism m) {
            this.mechanism = Objects.requireNonNull(m);
            return this;
        }

        /**
         * The largest message accepted: its bytes plus {@link #FRAME_COST} per frame after the first. A negative
         * value (libzmq's -1, unlimited) and anything above {@link #MAX_MESSAGE_SIZE_LIMIT} mean
         * {@link #MAX_MESSAGE_SIZE_LIMIT}.
         */
        public Builder maxMessageSize(long bytes) {
            if (bytes == 0) {
                throw new IllegalArgumentException("maxMessageSize must not be 0 (negative means the largest)");
            }
            this.maxMessageSize = bytes < 0 ? MAX_MESSAGE_SIZE_LIMIT : Math.min(bytes, MAX_MESSAGE_SIZE_LIMIT);
            return this;
        }

        /** The most frames one received message may have (at least 1). */
        public Builder maxFramesPerMessage(int frames) {
            if (frames < 1) {
                throw new IllegalArgumentException("maxFramesPerMessage must be at least 1");
            }
            this.maxFramesPerMessage = frames;
            return this;
        }

        /**
         * How many messages one connection decodes in a turn of its event loop before it lets the
         * loop's other connections have theirs (default {@value #DEFAULT_MESSAGES_PER_TURN}; 0: no
         * limit). A peer that streams faster than the loop handles its messages would otherwise
         * have everything it managed to send decoded in one go, and every other connection of the
         * loop (a broker's other clients and workers) would wait for that. When a connection has
         * decoded this many, it stops reading and the rest of what it read waits for its next
         * turn, after the loop has polled its other connections again; a burst larger than this
         * costs one extra loop turn per this many messages. When more than 32 connections of a
         * loop wait for their turn at once, they share a round of 32 times this many messages,
         * at least 8 each, so a round stays about as long however many peers flood the loop.
         */
        public Builder messagesPerTurn(int messages) {
            if (messages < 0) {
                throw new IllegalArgumentException("messagesPerTurn must not be negative");
            }
            this.messagesPerTurn = messages;
            return this;
        }

        /** The most properties a peer may announce in READY or INITIATE (at least 8). */
        public Builder maxMetadataProperties(int properties) {
            if (properties < 8) {
                throw new IllegalArgumentException("maxMetadataProperties must be at least 8");
            }
            this.maxMetadataProperties = properties;
            return this;
        }

        /**
         * The budget of bytes held in unfinished messages that this connection shares with
         * others (a socket gives all its connections one); null for none.
         */
        public Builder inboundBudget(InboundBudget budget) {
            this.inboundBudget = budget;
            return this;
        }

        public Builder maxMetadataSize(int bytes) {
            if (bytes < 256) {
                throw new IllegalArgumentException("maxMetadataSize must be at least 256");
            }
            this.maxMetadataSize = bytes;
            return this;
        }

        public Builder handshakeTimeout(Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("handshakeTimeout must be positive");
            }
            this.handshakeTimeout = d;
            return this;
        }

        public Builder heartbeat(HeartbeatPolicy h) {
            this.heartbeat = Objects.requireNonNull(h);
            return this;
        }

        /** Announce ZMTP 3.0 instead of 3.1 (to behave as an older peer; mostly for tests). */
        public Builder version(ZmtpVersion v) {
            if (Objects.requireNonNull(v).isZmtp20()) {
                throw new IllegalArgumentException("ZMTP 2.0 is never announced; see zmtp20Fallback");
            }
            this.version = v;
            return this;
        }

        /**
         * Speak ZMTP 2.0 (15/ZMTP: libzmq 3.x, JeroMQ 0.3.x, netty-zmtp's 2.0 mode) with a peer
         * whose greeting announces it, instead of closing the connection; off by default. It
         * applies only while the mechanism is NULL: ZMTP 2.0 has no security at all, so with PLAIN
         * or CURVE a peer announcing 2.0 is still refused (a man in the middle could otherwise
         * strip the security by rewriting one greeting byte). A 2.0 connection has no
         * heartbeats, no metadata beyond the peer's socket type and identity, and no ERROR.
         */
        public Builder zmtp20Fallback(boolean on) {
            this.zmtp20Fallback = on;
            return this;
        }

        /**
         * With plain NULL, send READY together with the rest of the greeting instead of after the
         * peer's greeting: one write fewer per handshake, which a server meeting thousands of
         * connections at once feels. Off by default, as libzmq does it: a libzmq peer that refuses
         * our READY (a socket type it cannot talk to) closes before it sends its own READY, so
         * this side does not learn why. Sockets turn it on for the connections they accept, and
         * leave it off where they connect: there the peer's READY is what tells a socket-type
         * mismatch apart from a lost connection, and a mismatch stops reconnecting.
         */
        public Builder readyWithGreeting(boolean on) {
            this.readyWithGreeting = on;
            return this;
        }

        /** The ZAP domain (ZMQ_ZAP_DOMAIN), at most 255 bytes of UTF-8; empty for none. */
        public Builder zapDomain(String domain) {
            if (domain.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255) {
                throw new IllegalArgumentException("a ZAP domain is at most 255 bytes");
            }
            this.zapDomain = domain;
            return this;
        }

        /**
         * How long a handshake waits for an authenticator's answer (default 10 s): on expiry the
         * client is refused with status 300, closed without ERROR, and retries later.
         */
        public Builder authenticationTimeout(Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("authenticationTimeout must be positive");
            }
            this.authenticationTimeout = d;
            return this;
        }

        /**
         * The handshakes waiting for an authenticator at once that these options' connections
         * share (a socket gives all its connections one); null (the default) makes one of
         * {@value AuthenticationWaits#DEFAULT_MAX} for the options built.
         */
        public Builder authenticationWaits(AuthenticationWaits waits) {
            this.authenticationWaits = waits;
            return this;
        }

        public ZmtpOptions build() {
            return new ZmtpOptions(this);
        }
    }
}
