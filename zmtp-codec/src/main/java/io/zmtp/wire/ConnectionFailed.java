package io.zmtp.wire;

/**
 * User event fired by {@link ZmtpCodec} just before it closes a connection for a reason of its
 * own, and when the peer closes the connection during the security handshake (kind
 * {@link Kind#HANDSHAKE}: a libzmq CURVE server does so to a client with the wrong server key).
 * Any other disconnect fires only channelInactive.
 */
public final class ConnectionFailed {

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
        /** A malformed or oversized frame or command after the handshake. */
        PROTOCOL,
        /** No traffic within the heartbeat timeout after our PING, or within the peer's TTL. */
        HEARTBEAT_TIMEOUT
    }

    private final Kind kind;
    private final String reason;
    private final boolean beforeHandshake;
    private final boolean fatal;

    public ConnectionFailed(Kind kind, String reason, boolean beforeHandshake) {
        this(kind, reason, beforeHandshake, false);
    }

    /**
     * @param fatal true when reconnecting with the same settings cannot succeed (the socket
     *        types cannot talk), in addition to the kinds that are always fatal
     */
    public ConnectionFailed(Kind kind, String reason, boolean beforeHandshake, boolean fatal) {
        this.kind = kind;
        this.reason = reason;
        this.beforeHandshake = beforeHandshake;
        this.fatal = fatal;
    }

    public Kind kind() {
        return kind;
    }

    public String reason() {
        return reason;
    }

    /** True when the handshake had not completed: a "handshake failed" monitor event. */
    public boolean beforeHandshake() {
        return beforeHandshake;
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
