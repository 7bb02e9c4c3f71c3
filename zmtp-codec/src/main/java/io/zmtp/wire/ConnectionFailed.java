package io.zmtp.wire;

/**
 * User event fired by {@link ZmtpCodec} just before it closes a connection for a reason of its
 * own, and when the peer closes the connection during the security handshake (kind
 * {@link Kind#HANDSHAKE}: a libzmq CURVE server does so to a client with the wrong server key).
 * Any other disconnect fires only channelInactive. An immutable value.
 *
 * @param kind what went wrong
 * @param reason why, in words, for the log and the monitor event
 * @param beforeHandshake true when the handshake had not completed: a "handshake failed" monitor event
 * @param fatal true when reconnecting with the same settings cannot succeed (the socket types
 *        cannot talk), in addition to the kinds that are always fatal ({@link #suppressesReconnect})
 */
public record ConnectionFailed(Kind kind, String reason, boolean beforeHandshake, boolean fatal) {

    /** Why the connection is being closed. */
    public enum Kind {
        /**
         * The greeting or handshake was malformed, the peers cannot talk (version, mechanism, role,
         * socket type), or the peer hung up during the handshake.
         */
        HANDSHAKE,
        /** The handshake took longer than the handshake timeout. */
        HANDSHAKE_TIMEOUT,
        /** We refused the peer's credentials (a PLAIN or CURVE server). */
        AUTHENTICATION,
        /** The peer sent ZMTP ERROR. */
        PEER_ERROR,
        /** A malformed frame or command after the handshake (an oversized command included). */
        PROTOCOL,
        /**
         * A message larger than {@code maxMessageSize} (or than the socket's whole inbound
         * budget): the connection is closed and the message lost; the peer reconnects.
         */
        MESSAGE_TOO_LARGE,
        /** No traffic within the heartbeat timeout after our PING, or within the peer's TTL. */
        HEARTBEAT_TIMEOUT
    }

    /** A failure that is fatal only if its kind is. */
    public ConnectionFailed(Kind kind, String reason, boolean beforeHandshake) {
        this(kind, reason, beforeHandshake, false);
    }

    /**
     * Whether reconnecting with the same settings is pointless: the peer sent ERROR, credentials
     * were refused, or the socket types cannot talk (23/ZMTP: an ERROR is fatal and must not
     * cause a reconnect loop).
     */
    public boolean suppressesReconnect() {
        return fatal || kind == Kind.PEER_ERROR || kind == Kind.AUTHENTICATION;
    }

    @Override
    public String toString() {
        return "ConnectionFailed{" + kind + ": " + reason + "}";
    }
}
