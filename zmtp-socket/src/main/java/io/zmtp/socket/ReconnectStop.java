package io.zmtp.socket;

/**
 * When a connected endpoint stops reconnecting, beyond the failures that always stop it
 * (ZMQ_RECONNECT_STOP, libzmq 4.3.5's three cases, chosen with
 * {@link SocketOptionsBuilder#reconnectStop}). Whatever is chosen, a peer's ZMTP ERROR, our
 * refusal of the peer's credentials and socket types that cannot talk stop reconnecting by
 * themselves: the same settings cannot succeed, and 23/ZMTP forbids a reconnect loop on ERROR.
 * Each stop is a {@link SocketEvent.Type#RECONNECT_STOPPED} event whose reason says why.
 */
public enum ReconnectStop {
    /**
     * A connect was refused (nothing listens at the address: ZMQ_RECONNECT_STOP_CONN_REFUSED). A
     * connect that timed out or found no route goes on. With a host name of several addresses, a
     * refusal by any one of them stops.
     */
    CONNECTION_REFUSED,
    /**
     * A connection's greeting or security handshake failed, or did not end within the handshake
     * timeout (ZMQ_RECONNECT_STOP_HANDSHAKE_FAILED).
     */
    HANDSHAKE_FAILED,
    /**
     * Reconnecting stops after {@link ZmtpSocket#disconnect} (ZMQ_RECONNECT_STOP_AFTER_DISCONNECT).
     * Here a disconnect always stops the endpoint at once, chosen or not; accepted so that
     * settings carried over from libzmq mean the same.
     */
    AFTER_DISCONNECT
}
