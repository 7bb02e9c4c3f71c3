package io.zmtp.socket;

import io.zmtp.wire.ConnectionFailed;
import java.time.Duration;

/**
 * Something that happened to one of a socket's endpoints or connections, for monitors
 * (as libzmq's zmq_socket_monitor events).
 */
public final class SocketEvent {

    public enum Type {
        /** A bind succeeded; {@link #endpoint()} is the resolved endpoint. */
        LISTENING,
        /** A bind failed; {@link #reason()} says why. */
        BIND_FAILED,
        /** A bound endpoint accepted a connection. */
        ACCEPTED,
        /**
         * A bound endpoint closed a connection as soon as it was accepted, because the endpoint
         * or the peer's address holds its maximum of connections; {@link #reason()} says which.
         */
        REFUSED,
        /** An outgoing connection was established (before the handshake). */
        CONNECTED,
        /** An outgoing connection attempt failed; a reconnect follows. */
        CONNECT_FAILED,
        /** A connection's ZMTP handshake completed; {@link #peer()} names the peer. */
        HANDSHAKE_SUCCEEDED,
        /** A connection's handshake failed; {@link #reason()} says why. */
        HANDSHAKE_FAILED,
        /** A connection closed after its handshake; {@link #reason()} says why when known. */
        DISCONNECTED,
        /** A reconnect is scheduled after {@link #delay()}. */
        RECONNECT_SCHEDULED,
        /** Reconnecting to an endpoint stopped (the peer sent ERROR, or refused our credentials). */
        RECONNECT_STOPPED,
        /** A bound endpoint stopped listening. */
        UNBOUND,
        /** The socket closed. */
        CLOSED
    }

    private final Type type;
    private final String endpoint;
    private final String peer;
    private final String reason;
    private final Duration delay;
    private final ConnectionFailed.Kind failure;
    private final RoutingId routingId;

    SocketEvent(Type type, String endpoint, String peer, String reason, Duration delay) {
        this(type, endpoint, peer, reason, delay, null, null);
    }

    SocketEvent(Type type, String endpoint, String peer, String reason, Duration delay,
                ConnectionFailed.Kind failure, RoutingId routingId) {
        this.type = type;
        this.endpoint = endpoint;
        this.peer = peer;
        this.reason = reason;
        this.delay = delay;
        this.failure = failure;
        this.routingId = routingId;
    }

    public Type type() {
        return type;
    }

    /** The endpoint (bound or connected) the event concerns, or null. */
    public String endpoint() {
        return endpoint;
    }

    /** The remote address of the connection, or null. */
    public String peer() {
        return peer;
    }

    /** Why a connection failed or closed, or null. */
    public String reason() {
        return reason;
    }

    /**
     * What the codec found wrong, when it ended the connection (HANDSHAKE_FAILED, or DISCONNECTED
     * after a protocol error, an ERROR from the peer or a heartbeat timeout); null when the peer
     * hung up, the socket closed the connection, or for other events. {@link #reason()} has the
     * words.
     */
    public ConnectionFailed.Kind failure() {
        return failure;
    }

    /**
     * The peer's routing id on a socket that keeps them (ROUTER: the Identity it announced or the
     * id generated for it), for HANDSHAKE_SUCCEEDED (set once the peer is attached) and
     * DISCONNECTED; null otherwise. What a ROUTER application needs to forget a peer that left.
     */
    public RoutingId routingId() {
        return routingId;
    }

    /** The reconnect delay of RECONNECT_SCHEDULED, or null. */
    public Duration delay() {
        return delay;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(type.name());
        if (endpoint != null) {
            sb.append(' ').append(endpoint);
        }
        if (peer != null) {
            sb.append(" peer=").append(peer);
        }
        if (delay != null) {
            sb.append(" in ").append(delay.toMillis()).append(" ms");
        }
        if (routingId != null) {
            sb.append(" id=").append(routingId);
        }
        if (reason != null) {
            sb.append(": ").append(reason);
        }
        return sb.toString();
    }
}
