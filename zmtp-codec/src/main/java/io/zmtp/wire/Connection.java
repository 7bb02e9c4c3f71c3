package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

/**
 * One ZMTP connection as the codec's helpers see it: its settings and channel, where it stands,
 * and the few things a helper may ask of it. {@link ZmtpCodec} is the one implementation; the
 * helpers ({@code HandshakeDriver}, {@code ZmtpHeartbeat}, {@code ConnectionCommands},
 * {@code BudgetReservation}) hold this instead of the codec, so each sees only what its job needs
 * and the codec alone keeps the connection's state. Event loop only.
 */
interface Connection {
    /** The settings the connection was made with. */
    ZmtpOptions options();

    /** The codec's place in the channel's pipeline (its channel, executor and allocator). */
    ChannelHandlerContext context();

    /** The greeting has been read and the security handshake has not ended. */
    boolean handshaking();

    /** The handshake has completed and the connection is open for messages. */
    boolean ready();

    /** The connection is closed or closing. */
    boolean closed();

    /** Frames received so far: a sign of life the heartbeat compares snapshots of. */
    long framesReceived();

    /**
     * A command was handled that produced nothing to hand on (PING, PONG, an unknown one): it
     * counts against the connection's turn as a message does, or a flood of them would hold the
     * loop.
     */
    void commandHandled();

    /** The peer sent PING (after the handshake): the heartbeat owes it a PONG. */
    void pingReceived(ByteBuf data);

    /** A command of the security handshake arrived (ERROR aside): the mechanism's to judge. */
    void handshakeCommand(String name, ByteBuf data) throws ZmtpProtocolException;

    /**
     * The security handshake succeeded with the peer's {@code metadata}: the connection opens for
     * messages, which a {@code frameCipher} (CURVE) then carries, or null.
     */
    void handshakeSucceeded(ZmtpMetadata metadata, FrameCipher frameCipher);

    /**
     * Closes the connection for a reason of ours: logs it, sends ERROR when {@code errorReason} is
     * given, tells the handlers after the codec ({@link ConnectionFailed}) and releases what the
     * connection holds. {@code fatal}: the peer should not reconnect with these settings.
     */
    void fail(ConnectionFailed.Kind kind, String reason, String errorReason, boolean fatal);
}
