package io.zmtp.patterns.kit;

import io.zmtp.socket.SocketEvent;

import java.util.Objects;

/**
 * A component closed itself because its socket stopped reconnecting to its peer (a
 * {@link SocketEvent.Type#RECONNECT_STOPPED} event: a {@code ReconnectStop} case the user chose,
 * such as a refused connect, or a peer's ERROR, refused credentials or socket types that cannot
 * talk, which always stop). A worker keeps its socket for its life, so without its peer it has
 * nothing left to do: its {@link LoopComponent#terminated()} fails with this exception, the only
 * report of it. The message is what a command prints:
 * {@code stopped reconnecting to ENDPOINT: REASON}.
 */
public final class ReconnectStoppedException extends RuntimeException {
    private final String endpoint;
    private final String reason;

    /**
     * @param endpoint the endpoint as the user wrote it
     * @param reason why it stopped, as the socket's event says
     */
    public ReconnectStoppedException(String endpoint, String reason) {
        super(message(endpoint, reason));
        this.endpoint = Objects.requireNonNull(endpoint);
        this.reason = reason;
    }

    /** The exception for a {@link SocketEvent.Type#RECONNECT_STOPPED} event. */
    public static ReconnectStoppedException of(SocketEvent stopped) {
        if (stopped.type() != SocketEvent.Type.RECONNECT_STOPPED) {
            throw new IllegalArgumentException("not a RECONNECT_STOPPED event: " + stopped);
        }
        return new ReconnectStoppedException(stopped.endpoint(), stopped.reason());
    }

    /**
     * The one line that says an endpoint stopped reconnecting, {@code stopped reconnecting to
     * ENDPOINT: REASON}: this exception's message, and what {@code zmtp cat} prints.
     */
    public static String message(String endpoint, String reason) {
        return "stopped reconnecting to " + endpoint + (reason == null ? "" : ": " + reason);
    }

    /** The endpoint the socket stopped reconnecting to, as the user wrote it. */
    public String endpoint() {
        return endpoint;
    }

    /** Why it stopped (the socket event's reason), or null. */
    public String reason() {
        return reason;
    }
}
