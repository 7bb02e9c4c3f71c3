package io.zmtp.wire;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The commands a peer sends, where the {@link FrameReader} delivers them (from the wire or from
 * inside a CURVE MESSAGE box). ERROR ends the connection at any time. During the handshake the
 * others are the {@link HandshakeDriver}'s. Afterwards PING is answered by the
 * {@link ZmtpHeartbeat}, PONG is only a sign of life, SUBSCRIBE and CANCEL (and a RADIO's JOIN
 * and LEAVE) become {@link ZmtpSubscription}s in the decoder's output, a second READY is a
 * protocol error, and an unknown command is ignored (23/ZMTP). Commands that produce no output still count against the
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
            case ZmtpWire.JOIN:
            case ZmtpWire.LEAVE:
                out.add(groupCommand(ZmtpWire.JOIN.equals(name), data));
                break;
            case ZmtpWire.READY:
                throw new ZmtpProtocolException("READY after the handshake");
            default:
                connection.commandHandled();
                peerLog.debug("{} ignoring unknown command {}", connection.context().channel(), FrameText.escape(name));
        }
    }

    /**
     * JOIN or LEAVE (RFC 48): only a RADIO takes them, from its DISH peers; anywhere else they are
     * a protocol error that closes this connection (libzmq would ignore them; our contract is
     * stricter, since only a broken or hostile peer sends them there). The group is the rest of
     * the body, 1-255 bytes.
     */
    private ZmtpSubscription groupCommand(boolean join, ByteBuf data) throws ZmtpProtocolException {
        SocketType ours = connection.options().socketType();
        if (ours != SocketType.RADIO) {
            throw new ZmtpProtocolException((join ? ZmtpWire.JOIN : ZmtpWire.LEAVE) + " sent to a " + ours
                    + " socket (only a RADIO takes JOIN and LEAVE)");
        }
        int len = data.readableBytes();
        if (len < 1 || len > ZmtpWire.MAX_GROUP_LENGTH) {
            throw new ZmtpProtocolException((join ? ZmtpWire.JOIN : ZmtpWire.LEAVE) + " with a group of " + len
                    + " bytes (1-" + ZmtpWire.MAX_GROUP_LENGTH + " allowed)");
        }
        return ZmtpSubscription.group(join, data.readRetainedSlice(len));
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
