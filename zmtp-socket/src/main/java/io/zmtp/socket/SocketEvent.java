package io.zmtp.socket;

import io.zmtp.wire.ConnectionFailed;
import java.time.Duration;

/**
 * Something that happened to one of a socket's endpoints or connections, for monitors
 * (as libzmq's zmq_socket_monitor events). An immutable value.
 *
 * @param type what happened
 * @param endpoint the endpoint (bound or connected) the event concerns, or null
 * @param peer the remote address of the connection, or null
 * @param reason why a connection failed or closed, or null
 * @param delay the reconnect delay of RECONNECT_SCHEDULED, or null
 * @param failure what the codec found wrong, when it ended the connection (HANDSHAKE_FAILED, or
 *     DISCONNECTED after a protocol error, an ERROR from the peer or a heartbeat timeout); null
 *     when the peer hung up, the socket closed the connection, or for other events; {@code reason}
 *     has the words
 * @param routingId the peer's routing id on a socket that keeps them (ROUTER: the Identity it
 *     announced or the id generated for it), for HANDSHAKE_SUCCEEDED (set once the peer is
 *     attached) and DISCONNECTED; null otherwise. What a ROUTER application needs to forget a
 *     peer that left
 */
public record SocketEvent(Type type, String endpoint, String peer, String reason, Duration delay,
                          ConnectionFailed.Kind failure, RoutingId routingId) {

    public enum Type {
        /** A bind succeeded; {@link #endpoint()} is the resolved endpoint. */
        LISTENING,
        /** A bind failed; {@link #reason()} says why. */
        BIND_FAILED,
        /**
         * A bound endpoint accepted a connection and set it up (admitted it, gave it its pipeline
         * and registered it), after the connection's time in the accept queue
         * ({@link SocketOptions.Builder#acceptQueue}).
         */
        ACCEPTED,
        /**
         * A bound endpoint closed a connection as soon as it was accepted, because the endpoint
         * or the peer's address holds its maximum of connections; {@link #reason()} says which.
         */
        REFUSED,
        /**
         * A bound endpoint closed one of its connections to make room: at its maximum of
         * connections, or when accepting ran out of file descriptors. The oldest connection still
         * in its handshake goes first; at the maximum, when none is, the peer heard from longest
         * ago. {@link #reason()} says which.
         */
        EVICTED,
        /**
         * A bound tcp:// endpoint found the kernel's queue of connections waiting to be accepted
         * full or nearly (nine tenths of its bound): connections arriving while it is full are
         * dropped by the kernel and come back on
         * their peers' retries, a second or more later (what a server restarted under thousands
         * of peers meets). {@link #reason()} gives the queue's length and bound and what queues
         * more ({@link SocketOptions.Builder#listeners}, a larger {@code net.core.somaxconn}).
         * Looked at while accepting, at most every 100 ms per listening socket, over epoll and
         * io_uring (NIO cannot ask; io_uring's kernel-side accepts may have emptied the queue
         * by the time the loop looks, so there it is reported less). Also when the endpoint's
         * own queue of connections accepted and not yet set up reaches its bound
         * ({@link SocketOptions.Builder#acceptQueue}), so new ones wait in the kernel's again.
         */
        QUEUE_FULL,
        /** An outgoing connection was established (before the handshake); {@link #peer()} is the address. */
        CONNECTED,
        /**
         * An outgoing connection attempt failed; a reconnect follows. {@link #peer()} is the
         * address tried (a host name's with the name: {@code db.example/10.0.0.7:5555}), null
         * when the attempt failed before one, as when the name's lookup failed or timed out;
         * {@link #reason()} says why.
         */
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

    public SocketEvent {
        java.util.Objects.requireNonNull(type, "type");
    }

    /** An event about an endpoint or the socket, not about one peer. */
    SocketEvent(Type type, String endpoint, String peer, String reason, Duration delay) {
        this(type, endpoint, peer, reason, delay, null, null);
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
