package io.zmtp.socket;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.HandshakeCompleted;
import io.zmtp.wire.PeerAddressText;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpSubscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joins one Netty channel to a socket: put it in the pipeline right after a
 * {@link io.zmtp.wire.ZmtpCodec}. Once the codec's handshake completes, the channel becomes a
 * {@link Pipe} of the socket: its messages go through the socket's type logic (routing,
 * fair queuing, subscriptions) and the socket may send to it.
 *
 * <p>The channel must be registered on the socket's event loop (one thread per socket).
 * Get one from {@link ZmtpSocket#newPeerHandler()} to attach channels of your own.
 */
public final class PeerHandler extends ChannelDuplexHandler {
    private static final Logger log = LoggerFactory.getLogger(PeerHandler.class);
    private static final PeerFailureLog peerLog = PeerFailureLog.get(PeerHandler.class);

    /**
     * The endpoint that made or accepted this connection, as the connection's handler reports to
     * it: the handshake's outcome, which decides when and whether a connected endpoint reconnects
     * and how many handshakes a bound one has under way.
     */
    interface Origin {
        /** The handshake of {@code ch} succeeded (for STREAM, which has none: the connection is up). */
        void handshakeSucceeded(Channel ch);

        /** The codec is closing {@code ch} for a reason of its own. */
        void connectionFailed(Channel ch, ConnectionFailed f);

        /** ROUTER: the routing id given to this connect (ZMQ_CONNECT_ROUTING_ID), or null. */
        byte[] routingId();
    }

    private final SocketCore core;
    private final String endpoint;
    private final Origin origin;
    private ChannelPipe pipe;
    private String failure;
    private ConnectionFailed failedEvent;

    PeerHandler(SocketCore core, String endpoint, Origin origin) {
        this.core = core;
        this.endpoint = endpoint;
        this.origin = origin;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isRegistered() && ctx.channel().eventLoop() != core.loop()) {
            throw new IllegalStateException("a socket's channels must be registered on its event loop");
        }
    }

    @Override
    public void channelRegistered(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().eventLoop() != core.loop()) {
            ctx.close();
            throw new IllegalStateException("a socket's channels must be registered on its event loop");
        }
        super.channelRegistered(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof HandshakeCompleted hc) {
            if (origin != null) {
                origin.handshakeSucceeded(ctx.channel());
            }
            if (core.isClosing()) {
                core.monitor().event(SocketEvent.Type.HANDSHAKE_SUCCEEDED, endpoint, remote(ctx), null, null);
                ctx.close();
                return;
            }
            pipe = new ChannelPipe(core, ctx, hc.writer(), hc.peerMetadata(), hc.version(), endpoint);
            if (origin != null) {
                pipe.connectRoutingId = origin.routingId();
            }
            core.events().attach(pipe);
            // After attaching, so the event carries the routing id a ROUTER gave the peer.
            core.monitor().peerEvent(SocketEvent.Type.HANDSHAKE_SUCCEEDED, endpoint, remote(ctx), null, null,
                    pipe.routingId());
        } else if (evt instanceof ConnectionFailed f) {
            failure = f.reason();
            failedEvent = f;
            if (f.beforeHandshake()) {
                core.monitor().peerEvent(SocketEvent.Type.HANDSHAKE_FAILED, endpoint, remote(ctx), f.reason(), f.kind(), null);
            }
            if (origin != null) {
                origin.connectionFailed(ctx.channel(), f);
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (pipe != null) {
            pipe.heardAt = System.nanoTime(); // once per read, not per message: for eviction by idleness
        }
        super.channelReadComplete(ctx);
        core.flushes().readEnded();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ChannelPipe p = pipe;
        if (p == null || !p.attached || p.refusal() != null) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof ZmtpMessage m) {
            core.counters().received(m);
            core.events().received(p, m);
        } else if (msg instanceof ZmtpSubscription sub) {
            core.events().subscriptionReceived(p, sub);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (pipe != null && ctx.channel().isWritable()) {
            pipe.onWritable();
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (pipe != null) {
            ChannelPipe p = pipe;
            pipe = null;
            RoutingId id = p.routingId(); // detaching clears it
            p.releaseBacklog();
            core.events().detach(p);
            String reason = failure != null ? failure : p.refusal() != null ? p.refusal() : "connection closed";
            core.monitor().peerEvent(SocketEvent.Type.DISCONNECTED, endpoint, remote(ctx), reason,
                    failedEvent != null ? failedEvent.kind() : null, id);
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (failure == null) {
            failure = FrameText.escape(cause.getMessage() != null ? cause.getMessage() : cause.toString());
        }
        if (cause instanceof java.io.IOException) {
            peerLog.debug("{} {}: {}", core, ctx.channel(), FrameText.escape(cause.toString()));
        } else {
            // The message may carry peer bytes; the stack trace goes to DEBUG only.
            peerLog.warn("{} {}: unexpected error, closing the connection: {}", core, ctx.channel(),
                    FrameText.escape(cause.toString()));
            if (log.isDebugEnabled()) {
                log.debug("{} {}: unexpected error", core, ctx.channel(), cause);
            }
        }
        ctx.close();
    }

    static String remote(ChannelHandlerContext ctx) {
        return PeerAddressText.of(ctx.channel());
    }
}
