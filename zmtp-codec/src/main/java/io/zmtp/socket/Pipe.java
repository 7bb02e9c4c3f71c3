package io.zmtp.socket;

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
    final ZmtpSocket socket;
    private final ZmtpMetadata peerMetadata;
    private final ZmtpVersion version;
    private final String endpoint;

    /** Set by a ROUTER: the id messages to this peer are routed by. */
    RoutingTable.Key routingKey;
    /** Set by distribution: the last send this pipe was picked for (to send each message once). */
    long matchEpoch;
    /** Whether the socket counts this pipe among its peers. */
    boolean attached;
    /** Whether the pipe waits in the socket's flush list. */
    boolean dirty;
    /** Per-type bookkeeping of the socket (PUB: this subscriber's prefixes). */
    Object socketData;

    protected Pipe(ZmtpSocket socket, ZmtpMetadata peerMetadata, ZmtpVersion version, String endpoint) {
        this.socket = socket;
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

    /** Whether a message can be written without passing the send high-water mark. */
    abstract boolean hasRoom();

    /** Writes a ZmtpMessage or ZmtpSubscription (ownership passes), queueing it if the transport is busy. */
    abstract void write(Object msg);

    /** Pushes written messages out (called once per batch by the socket). */
    abstract void flush();

    /** Pauses or resumes reading from this peer (receive high-water mark). */
    abstract void setReading(boolean on);

    /** Closes the connection to this peer; the socket hears of it through {@link ZmtpSocket#detach}. */
    abstract void close();

    /** Flushes what is queued, then closes; {@code done} runs once the peer is closed. */
    abstract void closeAfterFlush(Runnable done);

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + endpoint + " " + peerMetadata.socketType() + "]";
    }
}
