package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;

import java.net.SocketAddress;

/**
 * The handshake of a ZMTP 2.0 connection (the fallback, {@link ZmtpOptions#zmtp20Fallback()}),
 * in place of a {@link HandshakeDriver}: once the greeting named the peer's socket type, each
 * side sends its identity as one short final frame, and that is all. The peer's metadata is made
 * from its type, its identity and its address, as a 3.x handshake would have announced them.
 */
final class Zmtp20Handshake {
    private final ZmtpOptions options;
    private final ChannelHandlerContext ctx;
    private final FrameWriter writer;
    private final SocketType peerType;

    Zmtp20Handshake(ZmtpOptions options, ChannelHandlerContext ctx, FrameWriter writer, SocketType peerType) {
        this.options = options;
        this.ctx = ctx;
        this.writer = writer;
        this.peerType = peerType;
    }

    /** Our identity as one short final frame, right after the greeting. */
    void start() {
        byte[] id = options.socketType().sendsIdentity() ? options.identity() : new byte[0];
        ByteBuf frame = id.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(id);
        try {
            writer.writeFrame(0, frame);
        } finally {
            frame.release();
        }
        writer.flush();
    }

    /**
     * Reads the peer's identity frame (one short final frame, at most 255 bytes), which ends the
     * handshake: the peer's metadata, or null while the frame has not all arrived.
     */
    ZmtpMetadata read(ByteBuf in) throws ZmtpProtocolException {
        if (in.readableBytes() < 2) {
            return null;
        }
        int flags = in.getUnsignedByte(in.readerIndex());
        if (flags != 0) {
            throw new ZmtpProtocolException("ZMTP 2.0 peer's identity frame has flags 0x" + Integer.toHexString(flags)
                    + " (one short final frame expected)");
        }
        int length = in.getUnsignedByte(in.readerIndex() + 1);
        if (in.readableBytes() < 2 + length) {
            return null;
        }
        in.skipBytes(2);
        byte[] identity = new byte[length];
        in.readBytes(identity);
        ZmtpMetadata.Builder b = ZmtpMetadata.builder()
                .put(ZmtpMetadata.SOCKET_TYPE, peerType.wireName())
                .put(ZmtpMetadata.IDENTITY, identity);
        SocketAddress remote = ctx.channel().remoteAddress();
        if (remote != null) {
            b.put(ZmtpMetadata.PEER_ADDRESS, remote.toString());
        }
        return b.build();
    }
}
