package io.zmtp.socket;

import io.netty.channel.Channel;
import io.zmtp.transport.Endpoint;
import io.zmtp.wire.ZmtpMessage;

/**
 * The hooks of a socket type that the socket's parts call: the send path routes through it, the
 * send/receive state asks it (REQ and REP alternate), the endpoints let it set up a connection's
 * pipeline and refuse a transport, the close lets it drop what it holds. A socket type implements
 * them as package-private methods of {@link ZmtpSocket}; the socket hands its parts this narrow
 * view of them, so a part never holds the socket.
 */
interface TypeHooks {
    /**
     * Routes an outgoing message by the type's rules. On SENT or DROPPED the message is consumed;
     * on WOULD_BLOCK it is not. Validation errors are thrown before anything is consumed.
     */
    SendResult route(ZmtpMessage msg);

    /** Why the type's state forbids a send now, or null when a send is allowed. */
    String sendRefusal();

    /** The application made a send the state allowed: advance the state (REQ: await the reply). */
    void sendAccepted();

    /** A send accepted by {@link #sendAccepted} never reached a peer: undo what it did. */
    void sendAbandoned();

    /** The application took a received message (REQ: the reply came; REP: a request to answer). */
    void messageTaken();

    /** Why the type cannot use {@code endpoint}'s transport, or null when it can. */
    String transportRefusal(Endpoint endpoint);

    /**
     * Sets up one connection's pipeline: accepted on a bound endpoint, or made by a connected one
     * ({@code origin}, else null): the codec and a {@link PeerHandler}, or STREAM's raw handler.
     */
    void initConnection(Channel ch, boolean accepted, String endpoint, PeerHandler.Origin origin);

    /** The socket is closing: the type drops messages of its own (REP's queued requests). */
    void beforeClose();
}
