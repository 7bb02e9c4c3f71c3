package io.zmtp.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.zmtp.wire.ZmtpMetadata;
import io.zmtp.wire.ZmtpOptions;
import io.zmtp.wire.ZmtpWire;

/**
 * The inbound half of {@link ZwsBridge}: what a ZWS 2.0 peer sends, as the byte stream of a ZMTP
 * peer for the codec. First the greeting such a peer would have sent (ZWS has none); then each
 * ZWS frame, one binary WebSocket message of a flags byte (MORE 0x01, COMMAND 0x02) and the body,
 * becomes a ZMTP frame: flags moved to ZMTP's bits, a length header. Bodies up to
 * {@link ZwsBridge#COPY_THRESHOLD} are copied with their headers into one buffer per read; a larger
 * one is passed as a slice of Netty's read buffer behind its header (no copy). On the subprotocol
 * without a mechanism the peer's first message is its routing id, told to the codec as the READY
 * it waits for. Event loop only.
 */
final class ZwsInbound {
    private static final int BATCH = 8192;

    private final ZmtpOptions options;
    /** Frames of small bodies, with their headers, not yet handed to the codec. */
    private ByteBuf batch;
    private boolean peerRoutingIdSeen;

    ZwsInbound(ZmtpOptions options) {
        this.options = options;
    }

    /** Hands the codec the greeting a ZMTP peer would have sent: ZMTP 3.0, our mechanism, its other side. */
    void firePeerGreeting(ChannelHandlerContext ctx) {
        String ours = options.mechanism().name();
        ByteBuf g = ctx.alloc().buffer(ZmtpWire.GREETING_SIZE);
        ZmtpWire.writeGreetingStart(g);
        boolean peerAsServer = !ours.equals("NULL") && !options.mechanism().asServer();
        ZmtpWire.writeGreetingRest(g, 0, ours, peerAsServer);
        ctx.fireChannelRead(g);
    }

    /**
     * One ZWS frame, {@code content} being the WebSocket message's payload (not empty; the caller
     * keeps its reference). {@code raw}: the subprotocol has no mechanism.
     */
    void frame(ChannelHandlerContext ctx, ByteBuf content, boolean raw) {
        int zws = content.readUnsignedByte();
        if (raw && !peerRoutingIdSeen) {
            peerRoutingIdSeen = true;
            fireRoutingIdAsReady(ctx, content);
            return;
        }
        int flags = (zws & Zws.MORE) | ((zws & Zws.COMMAND) != 0 ? ZmtpWire.FLAG_COMMAND : 0);
        int size = content.readableBytes();
        if (size <= Zws.COPY_THRESHOLD) {
            ByteBuf b = room(ctx, ZmtpWire.headerSize(size) + size);
            ZmtpWire.writeFrameHeader(b, flags, size);
            b.writeBytes(content, content.readerIndex(), size);
        } else {
            fireBatch(ctx);
            ByteBuf h = ctx.alloc().buffer(9);
            ZmtpWire.writeFrameHeader(h, flags, size);
            CompositeByteBuf c = ctx.alloc().compositeBuffer(2);
            c.addComponent(true, h);
            c.addComponent(true, content.retainedSlice());
            ctx.fireChannelRead(c);
        }
    }

    /**
     * The raw subprotocol's first message, the peer's routing id, told to the codec as READY: with
     * a Socket-Type that pairs with ours (the peer does not say its own, and libzmq does not check
     * it either), and the routing id as Identity when it is a valid one.
     */
    private void fireRoutingIdAsReady(ChannelHandlerContext ctx, ByteBuf routingId) {
        ZmtpMetadata.Builder m = ZmtpMetadata.builder();
        m.put(ZmtpMetadata.SOCKET_TYPE, options.socketType().assumedPeer().wireName());
        int n = routingId.readableBytes();
        if (n > 0 && n <= 255 && routingId.getByte(routingId.readerIndex()) != 0) {
            byte[] id = new byte[n];
            routingId.getBytes(routingId.readerIndex(), id);
            m.put(ZmtpMetadata.IDENTITY, id);
        }
        ZmtpMetadata md = m.build();
        ByteBuf props = ctx.alloc().buffer(md.encodedSize());
        md.encode(props);
        try {
            ByteBuf b = room(ctx, ZmtpWire.commandFrameSize(ZmtpWire.READY, props.readableBytes()));
            ZmtpWire.writeCommand(b, ZmtpWire.READY, props);
        } finally {
            props.release();
        }
    }

    private ByteBuf room(ChannelHandlerContext ctx, int bytes) {
        if (batch != null && batch.writableBytes() < bytes) {
            fireBatch(ctx);
        }
        if (batch == null) {
            batch = ctx.alloc().buffer(Math.max(BATCH, bytes));
        }
        return batch;
    }

    /** Hands the codec what is batched (the end of a read, or before a large body). */
    void fireBatch(ChannelHandlerContext ctx) {
        ByteBuf b = batch;
        batch = null;
        if (b != null) {
            ctx.fireChannelRead(b);
        }
    }

    void release() {
        if (batch != null) {
            batch.release();
            batch = null;
        }
    }
}
