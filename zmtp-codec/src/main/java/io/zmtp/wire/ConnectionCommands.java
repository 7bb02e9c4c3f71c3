package io.zmtp.wire;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The commands a peer sends, where the {@link FrameReader} delivers them (from the wire or from
 * inside a CURVE MESSAGE box). ERROR ends the connection at any time. During the handshake the
 * others are the {@link HandshakeDriver}'s. Afterwards PING is answered by the
 * {@link ZmtpHeartbeat}, PONG is only a sign of life, SUBSCRIBE and CANCEL become
 * {@link ZmtpSubscription}s in the decoder's output, a second READY is a protocol error, and an
 * unknown command is ignored (23/ZMTP). Commands that produce no output still count against the
 * connection's turn ({@link Connection#commandHandled()}), or a flood of them would hold the loop.
 */
final class ConnectionCommands implements FrameReader.Listener {
    private static final PeerFailureLog peerLog = PeerFailureLog.get(ConnectionCommands.class);

    private final Connection connection;

    ConnectionCommands(Connection connection) {
        this.connection = connection;
    }

    @Override
    public void commandRead(String name, ByteBuf data, List<Object> out) throws ZmtpProtocolException {
        if (ZmtpWire.ERROR.equals(name)) {
            onError(data);
        } else if (connection.handshaking()) {
            connection.handshakeCommand(name, data);
        } else {
            onActiveCommand(name, data, out);
        }
    }

    private void onActiveCommand(String name, ByteBuf data, List<Object> out) throws ZmtpProtocolException {
        switch (name) {
            case ZmtpWire.PING:
                connection.commandHandled();
                connection.pingReceived(data);
                break;
            case ZmtpWire.PONG:
                connection.commandHandled();
                break; // any traffic is a sign of life; nothing else to do
            case ZmtpWire.SUBSCRIBE:
            case ZmtpWire.CANCEL:
                out.add(new ZmtpSubscription(ZmtpWire.SUBSCRIBE.equals(name), data.readRetainedSlice(data.readableBytes())));
                break;
            case ZmtpWire.READY:
                throw new ZmtpProtocolException("READY after the handshake");
            default:
                connection.commandHandled();
                peerLog.debug("{} ignoring unknown command {}", connection.context().channel(), FrameText.escape(name));
        }
    }

    /** The peer sent ERROR: its reason (escaped) goes into the failure, and the connection closes. */
    private void onError(ByteBuf data) {
        String reason = "";
        if (data.isReadable()) {
            int len = Math.min(data.readUnsignedByte(), data.readableBytes());
            reason = data.toString(data.readerIndex(), len, StandardCharsets.US_ASCII);
        }
        connection.fail(ConnectionFailed.Kind.PEER_ERROR, "peer sent ERROR \"" + FrameText.escape(reason) + "\"", null,
                false);
    }
}
