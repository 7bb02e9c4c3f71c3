package io.zmtp.socket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMetadata;
import io.zmtp.wire.ZmtpVersion;

/**
 * One peer of a socket, after its handshake: a ZMTP connection ({@link ChannelPipe}) or an
 * in-process peer ({@link InprocPipe}). Pipes belong to their socket's event loop; every method
 * is called there. Socket types and their strategies (load balancing, routing, distribution)
 * deal only in pipes, whatever the transport.
 */
public abstract class Pipe {
    private static final PeerFailureLog REFUSALS = PeerFailureLog.get(Pipe.class);

    /** The socket this peer belongs to, as its parts share it. */
    final SocketCore core;
    private final ZmtpMetadata peerMetadata;
    private final ZmtpVersion version;
    private final String endpoint;

    /** Set by a ROUTER: the id messages to this peer are routed by. */
    private RoutingId routingId;
    /** The routing id as a pooled frame, shared by duplicates made when a received id is read. */
    private ByteBuf routingIdFrame;
    /** The routing id as the lazy first frame of each received message (one object per peer). */
    private RoutingId.Frame routingIdInFront;
    /** Whether the socket counts this pipe among its peers. */
    boolean attached;
    /** Whether the pipe waits in the socket's flush list. */
    boolean dirty;
    /*
     * Where the pipe stands in each list of pipes that holds it, so it leaves each in constant
     * time (a socket with thousands of peers otherwise scans them all per peer that leaves, as
     * libzmq's array items avoid too): the socket's peers, the fair queue, the load balancer.
     */
    int peerIndex = -1;
    int fairQueueIndex = -1;
    int loadBalancerIndex = -1;
    /*
     * Per-type state of the socket about this peer lives in typed fields, each owned by one
     * strategy: the routing id above (ROUTER's RoutingTable), the subscriber and the number below
     * (PUB and XPUB's Distributor, SERVER and PEER's NumberedPeers, RADIO's GroupIndex). A type with state of its
     * own about each peer adds a field here.
     */
    /** Set by distribution (PUB, XPUB) at this peer's first SUBSCRIBE: its prefixes and fan-out mark. */
    Subscriber subscriber;
    /** SERVER and PEER ({@link NumberedPeers}): the number messages to this peer are routed by; 0 = none. */
    int serverRoutingId;
    /** Set by a RADIO's {@link GroupIndex} at this peer's first JOIN: the groups it joined. */
    java.util.HashSet<String> joinedGroups;
    /**
     * The routing id given to the connect that made this pipe, or null: a ROUTER's
     * (ZMQ_CONNECT_ROUTING_ID), or a PEER's number kept for the endpoint (4 bytes, big-endian).
     */
    byte[] connectRoutingId;
    /**
     * When (System.nanoTime) the peer was last heard: set at the end of each read, and when the
     * pipe is made. A bound endpoint at its connection limit evicts the peer heard longest ago.
     */
    long heardAt = System.nanoTime();

    Pipe(SocketCore core, ZmtpMetadata peerMetadata, ZmtpVersion version, String endpoint) {
        this.core = core;
        this.peerMetadata = peerMetadata;
        this.version = version;
        this.endpoint = endpoint;
    }

    /** What the peer announced (Socket-Type, Identity, User-Id, X- properties...). */
    public ZmtpMetadata peerMetadata() {
        return peerMetadata;
    }

    public SocketType peerType() {
        return peerMetadata.socketType();
    }

    public ZmtpVersion version() {
        return version;
    }

    /** The endpoint this peer came through (bound or connected), or a description. */
    public String endpoint() {
        return endpoint;
    }

    /**
     * Whether this peer is a udp:// datagram channel rather than a connection: no JOIN or LEAVE
     * travels over it, so a RADIO sends it every message and a DISH filters what it brings.
     */
    boolean isDatagram() {
        return false;
    }

    /** Whether a message can be written without passing the send high-water mark. */
    abstract boolean hasRoom();

    /** Writes a ZmtpMessage or ZmtpSubscription (ownership passes), queueing it if the transport is busy. */
    abstract void write(Object msg);

    /** Pushes written messages out (called once per batch by the socket). */
    abstract void flush();

    /** Pauses or resumes reading from this peer (receive high-water mark). */
    abstract void setReading(boolean on);

    /** Closes the connection to this peer; the socket hears of it through {@link PipeEvents#detach}. */
    abstract void close();

    /**
     * Closes the connection because the peer broke one of the socket's limits: {@code reason}
     * (our words, no peer-supplied text) goes to the log and to the DISCONNECTED event, and
     * nothing more is read from the peer.
     */
    void refuse(String reason) {
        REFUSALS.warn("{} closing {}: {}", core, this, reason);
        close();
    }

    /** Flushes what is queued, then closes; {@code done} runs once the peer is closed. */
    abstract void closeAfterFlush(Runnable done);

    /** The id a ROUTER routes to this peer by, or null. */
    final RoutingId routingId() {
        return routingId;
    }

    final void setRoutingId(RoutingId id) {
        clearRoutingId();
        routingId = id;
        // Read as a buffer on this loop while the id is still ours: a duplicate of the pooled one.
        routingIdInFront = new RoutingId.Frame(id,
                () -> core.loop().inEventLoop() && routingId == id ? newRoutingIdFrame() : null);
    }

    /** Forgets the routing id and releases its pooled frame. */
    final void clearRoutingId() {
        routingId = null;
        routingIdInFront = null;
        if (routingIdFrame != null) {
            routingIdFrame.release();
            routingIdFrame = null;
        }
    }

    /** The routing id as a message's lazy first frame (no buffer until it is read), or null. */
    final RoutingId.Frame routingIdInFront() {
        return routingIdInFront;
    }

    /** A frame holding the routing id: a retained duplicate of one pooled buffer (no copy, no garbage). */
    final ByteBuf newRoutingIdFrame() {
        if (routingIdFrame == null) {
            byte[] b = routingId.array();
            routingIdFrame = PooledByteBufAllocator.DEFAULT.directBuffer(b.length).writeBytes(b);
        }
        return routingIdFrame.retainedDuplicate();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + endpoint + " " + peerMetadata.socketType() + "]";
    }

    /**
     * This peer as a subscriber of a PUB or XPUB ({@link Distributor}): its prefixes, what they
     * add up to, and the last send it was picked for (so that a message goes to it once however
     * many of its prefixes match). Kept on the pipe from its first SUBSCRIBE until it leaves.
     */
    static final class Subscriber {
        final Pipe pipe;
        final java.util.HashSet<RoutingId> prefixes = new java.util.HashSet<>();
        long bytes;
        long matchEpoch;

        Subscriber(Pipe pipe) {
            this.pipe = pipe;
        }
    }
}
