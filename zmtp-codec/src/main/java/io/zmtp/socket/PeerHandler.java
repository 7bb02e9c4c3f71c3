package io.zmtp.socket;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.HandshakeCompleted;
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

    private final ZmtpSocket socket;
    private final String endpoint;
    private final ConnectEndpoint owner;
    private ChannelPipe pipe;
    private String failure;
    private ConnectionFailed failedEvent;
    /** The socket closed this peer for breaking a limit: nothing more it sends is read. */
    private boolean refused;

    PeerHandler(ZmtpSocket socket, String endpoint, ConnectEndpoint owner) {
        this.socket = socket;
        this.endpoint = endpoint;
        this.owner = owner;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isRegistered() && ctx.channel().eventLoop() != socket.eventLoop()) {
            throw new IllegalStateException("a socket's channels must be registered on its event loop");
        }
    }

    @Override
    public void channelRegistered(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().eventLoop() != socket.eventLoop()) {
            ctx.close();
            throw new IllegalStateException("a socket's channels must be registered on its event loop");
        }
        super.channelRegistered(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof HandshakeCompleted) {
            HandshakeCompleted hc = (HandshakeCompleted) evt;
            if (owner != null) {
                owner.handshakeSucceeded();
            }
            if (socket.isClosing()) {
                socket.monitor.event(SocketEvent.Type.HANDSHAKE_SUCCEEDED, endpoint, remote(ctx), null, null);
                ctx.close();
                return;
            }
            pipe = new ChannelPipe(socket, ctx, hc.writer(), hc.peerMetadata(), hc.version(), endpoint);
            if (owner != null) {
                pipe.connectRoutingId = owner.routingId();
            }
            socket.attach(pipe);
            // After attaching, so the event carries the routing id a ROUTER gave the peer.
            socket.monitor.peerEvent(SocketEvent.Type.HANDSHAKE_SUCCEEDED, endpoint, remote(ctx), null, null,
                    pipe.routingId());
        } else if (evt instanceof ConnectionFailed) {
            ConnectionFailed f = (ConnectionFailed) evt;
            failure = f.reason();
            failedEvent = f;
            if (f.beforeHandshake()) {
                socket.monitor.peerEvent(SocketEvent.Type.HANDSHAKE_FAILED, endpoint, remote(ctx), f.reason(), f.kind(), null);
            }
            if (owner != null) {
                owner.connectionFailed(f);
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
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (pipe == null || !pipe.attached || refused) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof ZmtpMessage) {
            socket.counters.received((ZmtpMessage) msg);
            socket.received(pipe, (ZmtpMessage) msg);
        } else if (msg instanceof ZmtpSubscription) {
            socket.subscriptionReceived(pipe, (ZmtpSubscription) msg);
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
            socket.detach(p);
            socket.monitor.peerEvent(SocketEvent.Type.DISCONNECTED, endpoint, remote(ctx),
                    failure != null ? failure : "connection closed", failedEvent != null ? failedEvent.kind() : null, id);
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (failure == null) {
            failure = FrameText.escape(cause.getMessage() != null ? cause.getMessage() : cause.toString());
        }
        if (cause instanceof java.io.IOException) {
            peerLog.debug("{} {}: {}", socket, ctx.channel(), FrameText.escape(cause.toString()));
        } else {
            // The message may carry peer bytes; the stack trace goes to DEBUG only.
            peerLog.warn("{} {}: unexpected error, closing the connection: {}", socket, ctx.channel(),
                    FrameText.escape(cause.toString()));
            if (log.isDebugEnabled()) {
                log.debug("{} {}: unexpected error", socket, ctx.channel(), cause);
            }
        }
        ctx.close();
    }

    /** Closes the connection because the peer broke a limit of the socket, with {@code reason}. */
    void refuse(String reason) {
        if (refused) {
            return;
        }
        refused = true;
        if (failure == null) {
            failure = reason;
        }
        ChannelHandlerContext ctx = pipe != null ? pipe.context() : null;
        peerLog.warn("{} closing {}: {}", socket, ctx == null ? endpoint : ctx.channel(), reason);
        if (ctx != null) {
            ctx.close();
        }
    }

    /** The failure the codec reported before closing, or null. */
    ConnectionFailed failedEvent() {
        return failedEvent;
    }

    private static String remote(ChannelHandlerContext ctx) {
        return ctx.channel().remoteAddress() == null ? null : ctx.channel().remoteAddress().toString();
    }
}
