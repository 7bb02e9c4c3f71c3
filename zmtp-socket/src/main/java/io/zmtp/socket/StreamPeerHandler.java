package io.zmtp.socket;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpMetadata;

/**
 * Joins one raw TCP (or ipc) connection to a {@link StreamSocket}: the whole pipeline, since a
 * STREAM peer speaks no ZMTP. The connection becomes a {@link ChannelPipe} as soon as it is
 * open (there is no handshake); each buffer Netty reads is handed on as it is, the data frame of
 * one message (no copy); what the socket writes goes to the channel as raw bytes. Reading
 * pauses through {@link io.zmtp.wire.ReadGate} like any pipe's (the socket's receive high-water
 * mark), and how much one read may hold is bounded by the channel's receive allocator, which the
 * socket sets from {@link SocketOptions#maxMessageSize()}.
 */
final class StreamPeerHandler extends ChannelInboundHandlerAdapter {
    private static final PeerFailureLog peerLog = PeerFailureLog.get(StreamPeerHandler.class);

    private final SocketCore core;
    private final String endpoint;
    private final PeerHandler.Origin origin;
    private ChannelPipe pipe;
    private boolean started;

    StreamPeerHandler(SocketCore core, String endpoint, PeerHandler.Origin origin) {
        this.core = core;
        this.endpoint = endpoint;
        this.origin = origin;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            // An accepted channel is active already; attach once its initializer is done.
            ctx.executor().execute(() -> start(ctx));
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        start(ctx);
        ctx.fireChannelActive();
    }

    private void start(ChannelHandlerContext ctx) {
        if (started || !ctx.channel().isActive()) {
            return;
        }
        started = true;
        if (origin != null) {
            origin.handshakeSucceeded(ctx.channel());
        }
        if (core.isClosing()) {
            ctx.close();
            return;
        }
        pipe = new ChannelPipe(core, ctx, null, ZmtpMetadata.EMPTY, null, endpoint);
        core.events().attach(pipe);
        // No handshake: the event says the raw connection is a peer now, with the id it got.
        core.monitor().peerEvent(SocketEvent.Type.HANDSHAKE_SUCCEEDED, endpoint, PeerHandler.remote(ctx), null, null,
                pipe.routingId());
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (pipe != null) {
            pipe.heardAt = System.nanoTime(); // once per read, not per message: for eviction by idleness
        }
        super.channelReadComplete(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (pipe == null || !pipe.attached || pipe.refusal() != null || !(msg instanceof ByteBuf)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        ByteBuf data = (ByteBuf) msg;
        if (!data.isReadable()) {
            // An empty data frame means a connect or disconnect to the application: never deliver one for data.
            data.release();
            return;
        }
        core.events().received(pipe, ZmtpMessage.newMessage().add(data));
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (pipe != null && ctx.channel().isWritable()) {
            pipe.onWritable();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (pipe != null) {
            ChannelPipe p = pipe;
            pipe = null;
            RoutingId id = p.routingId(); // detaching clears it
            p.releaseBacklog();
            core.events().detach(p);
            core.monitor().peerEvent(SocketEvent.Type.DISCONNECTED, endpoint, PeerHandler.remote(ctx),
                    p.refusal() != null ? p.refusal() : "connection closed", null, id);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof java.io.IOException) {
            peerLog.debug("{} {}: {}", core, ctx.channel(), FrameText.escape(cause.toString()));
        } else {
            peerLog.warn("{} {}: unexpected error, closing the connection: {}", core, ctx.channel(),
                    FrameText.escape(cause.toString()));
        }
        ctx.close();
    }
}
