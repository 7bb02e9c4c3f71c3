package io.zmtp.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.util.ReferenceCountUtil;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.ZmtpCodec;
import io.zmtp.wire.ZmtpOptions;

import java.util.ArrayList;
import java.util.List;

/**
 * ZWS 2.0 (ZMTP on WebSocket, as libzmq's ws:// transport speaks it) between Netty's WebSocket
 * codec and an unchanged {@link ZmtpCodec}. It sits after the WebSocket protocol handler and
 * before the codec, and translates both ways:
 * <ul>
 *   <li>ZWS has no greeting: the mechanism is the WebSocket subprotocol ({@code ZWS2.0/NULL},
 *   {@code ZWS2.0/PLAIN}, {@code ZWS2.0/CURVE}). Once the WebSocket handshake is done the bridge
 *   hands the codec the greeting the peer would have sent (ZMTP 3.0, the agreed mechanism, the
 *   other side of it as server), and drops the codec's own greeting on the way out. ZMTP 3.0,
 *   because libzmq's ws:// carries subscriptions as messages, not SUBSCRIBE commands, and has
 *   no ZMTP heartbeats.</li>
 *   <li>A ZWS frame is one binary WebSocket message: a flags byte (MORE 0x01, COMMAND 0x02) and
 *   the body; its length is the WebSocket message's. Inbound, each is given to the codec as a
 *   ZMTP frame (flags moved to ZMTP's bits, a length header); bodies up to 1 KiB are copied with
 *   their headers into one buffer per read, larger ones are passed as a slice of Netty's read
 *   buffer behind a header (no copy). Outbound, the codec's byte stream is cut into its frames
 *   again (a frame whose header and body lie in one buffer becomes a slice of it, its last length
 *   byte overwritten by the ZWS flags) and the bridge writes the WebSocket messages itself:
 *   headers and payloads up to 1 KiB into one buffer per write, as the codec batches tcp://
 *   frames; a larger payload after it as it is (no copy), except that a client masks, and so
 *   copies, everything it sends (RFC 6455). Netty's WebSocket encoder passes these buffers on;
 *   it still encodes the protocol handler's own pongs and closes.</li>
 *   <li>Subprotocol {@code ZWS2.0} alone (jszmq and libzmq's fallback) has no mechanism and no
 *   commands at all: each side's first message is its routing id. The bridge turns the codec's
 *   READY into our routing id frame and the peer's routing id frame into the READY the codec
 *   waits for. That READY names a Socket-Type that pairs with ours, since the peer does not say
 *   its own (libzmq does not check either), and the routing id as Identity when it is a valid
 *   one. Other commands are not sent on such a connection.</li>
 * </ul>
 * An HTTP request that reaches the bridge before the upgrade (another path, or not an upgrade:
 * the WebSocket handler passes those on) is answered 404 and the connection closed.
 * WebSocket fragments (continuation frames), text frames and empty binary frames are refused
 * (the connection is closed with a logged reason), as libzmq refuses them. Pings and closes are
 * Netty's protocol handler's job.
 *
 * <p>The bridge itself is the handler: the upgrade (subprotocol, the greeting it stands for, the
 * frames held until the codec has started), what is refused, and the connection's failure. Each
 * direction is a class of its own: {@code ZwsInbound} (WebSocket messages to the codec's byte
 * stream) and {@code ZwsOutbound} (the codec's byte stream to WebSocket messages).
 */
public final class ZwsBridge extends ChannelDuplexHandler {
    private static final PeerFailureLog log = PeerFailureLog.get(ZwsBridge.class);

    /** The WebSocket subprotocol without a mechanism. */
    public static final String RAW_SUBPROTOCOL = "ZWS2.0";

    private final ZmtpOptions options;
    private final ZwsInbound inbound;
    private final ZwsOutbound outbound;

    /** Set once the WebSocket handshake has chosen the subprotocol. */
    private boolean upgraded;
    /** The subprotocol has no mechanism: routing ids in place of the handshake. */
    private boolean raw;
    private boolean failed;
    /** Frames that arrived before the codec could be given the peer's greeting. */
    private List<WebSocketFrame> held;
    /**
     * What the codec wrote before the WebSocket handshake chose the subprotocol (a codec that
     * starts with the connection sends its greeting, and READY with it under plain NULL, at
     * once): cut into ZWS frames once the subprotocol says how, never sent before the upgrade.
     */
    private List<ByteBuf> early;
    private List<ChannelPromise> earlyPromises;

    public ZwsBridge(ZmtpOptions options) {
        this.options = options;
        this.inbound = new ZwsInbound(options);
        this.outbound = new ZwsOutbound(options);
    }

    /** The subprotocols that offer {@code options}' mechanism, best first (a client asks for these). */
    public static String subprotocols(ZmtpOptions options) {
        String m = options.mechanism().name();
        return m.equals("NULL") ? "ZWS2.0/NULL," + RAW_SUBPROTOCOL : "ZWS2.0/" + m;
    }

    // ---------------------------------------------------------------- inbound

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof WebSocketServerProtocolHandler.HandshakeComplete) {
            ctx.fireUserEventTriggered(evt);
            upgrade(ctx, ((WebSocketServerProtocolHandler.HandshakeComplete) evt).selectedSubprotocol());
            return;
        }
        if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
            ctx.fireUserEventTriggered(evt);
            WebSocketClientProtocolHandler h = ctx.pipeline().get(WebSocketClientProtocolHandler.class);
            outbound.mask = true;
            upgrade(ctx, h == null ? null : h.handshaker().actualSubprotocol());
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** The WebSocket handshake is done: hand the codec the greeting a ZMTP peer would have sent. */
    private void upgrade(ChannelHandlerContext ctx, String subprotocol) {
        String ours = options.mechanism().name();
        if (subprotocol == null || subprotocol.isEmpty()) {
            fail(ctx, "the WebSocket peer agreed no ZWS 2.0 subprotocol (we offer " + subprotocols(options) + ")");
            return;
        }
        if (subprotocol.equals(RAW_SUBPROTOCOL) && ours.equals("NULL")) {
            raw = true;
            outbound.raw = true;
        } else if (!subprotocol.equals("ZWS2.0/" + ours)) {
            fail(ctx, "the WebSocket peer chose subprotocol " + FrameText.escape(subprotocol)
                    + ", we speak " + subprotocols(options));
            return;
        }
        upgraded = true;
        if (early != null) {
            List<ByteBuf> bufs = early;
            List<ChannelPromise> promises = earlyPromises;
            early = null;
            earlyPromises = null;
            for (int i = 0; i < bufs.size(); i++) {
                outbound.write(ctx, bufs.get(i), promises.get(i));
            }
            ctx.flush();
        }
        if (!outbound.codecStarted()) {
            // The codec has not started yet: one added to an already open connection starts (sends
            // its greeting, starts its handshake timer) from a task queued when it was added, and
            // must have done so before it reads the peer's greeting. Frames that arrive meanwhile wait.
            held = new ArrayList<>(2);
            ctx.executor().execute(() -> {
                List<WebSocketFrame> frames = held;
                held = null;
                try {
                    if (!failed && ctx.channel().isActive()) {
                        inbound.firePeerGreeting(ctx);
                        for (WebSocketFrame f : frames) {
                            channelRead(ctx, f.retain());
                        }
                        channelReadComplete(ctx);
                    }
                } catch (Exception e) {
                    ctx.fireExceptionCaught(e);
                } finally {
                    for (WebSocketFrame f : frames) {
                        f.release();
                    }
                }
            });
        } else {
            inbound.firePeerGreeting(ctx);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (!(msg instanceof WebSocketFrame)) {
            if (msg instanceof io.netty.handler.codec.http.HttpRequest && !upgraded) {
                // A request the WebSocket handler passed on (another path, not an upgrade): in a
                // pipeline of the application's own, nothing after us would answer it.
                ReferenceCountUtil.release(msg);
                io.netty.handler.codec.http.DefaultFullHttpResponse res = new io.netty.handler.codec.http.DefaultFullHttpResponse(
                        io.netty.handler.codec.http.HttpVersion.HTTP_1_1, io.netty.handler.codec.http.HttpResponseStatus.NOT_FOUND);
                res.headers().set(io.netty.handler.codec.http.HttpHeaderNames.CONTENT_LENGTH, 0);
                res.headers().set(io.netty.handler.codec.http.HttpHeaderNames.CONNECTION, "close");
                failed = true;
                ctx.writeAndFlush(res).addListener(io.netty.channel.ChannelFutureListener.CLOSE);
                return;
            }
            ctx.fireChannelRead(msg);
            return;
        }
        WebSocketFrame frame = (WebSocketFrame) msg;
        if (held != null) {
            held.add(frame);
            return;
        }
        try {
            if (failed) {
                return;
            }
            if (!(frame instanceof BinaryWebSocketFrame) || !frame.isFinalFragment()) {
                fail(ctx, frame instanceof BinaryWebSocketFrame || !frame.isFinalFragment()
                        ? "fragmented WebSocket messages are not ZWS 2.0 frames"
                        : "a " + frame.getClass().getSimpleName() + " is not a ZWS 2.0 frame");
                return;
            }
            ByteBuf content = frame.content();
            if (!content.isReadable()) {
                fail(ctx, "an empty WebSocket message is not a ZWS 2.0 frame");
                return;
            }
            if (!upgraded) {
                fail(ctx, "a WebSocket message before the handshake");
                return;
            }
            inbound.frame(ctx, content, raw);
        } finally {
            frame.release();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        inbound.fireBatch(ctx);
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        inbound.fireBatch(ctx);
        releaseAll();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseAll();
    }

    private void releaseAll() {
        if (early != null) {
            for (int i = 0; i < early.size(); i++) {
                early.get(i).release();
                earlyPromises.get(i).tryFailure(new java.nio.channels.ClosedChannelException());
            }
            early = null;
            earlyPromises = null;
        }
        if (held != null) {
            for (WebSocketFrame f : held) {
                f.release();
            }
            held.clear();
        }
        inbound.release();
        outbound.release();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException
                || cause instanceof io.netty.handler.codec.DecoderException) {
            // A malformed or oversized WebSocket frame (Netty's decoder has answered with a close
            // frame): the peer's fault, not ours.
            fail(ctx, "bad WebSocket frame: " + FrameText.escape(String.valueOf(cause.getMessage())));
            return;
        }
        ctx.fireExceptionCaught(cause);
    }

    private void fail(ChannelHandlerContext ctx, String reason) {
        if (failed) {
            return;
        }
        failed = true;
        log.warn("{} closing: {}", ctx.channel(), reason);
        ctx.close();
    }

    // ---------------------------------------------------------------- outbound

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf && !upgraded && !failed) {
            if (early == null) {
                early = new ArrayList<>(2);
                earlyPromises = new ArrayList<>(2);
            }
            early.add((ByteBuf) msg);
            earlyPromises.add(promise);
        } else if (msg instanceof ByteBuf) {
            outbound.write(ctx, (ByteBuf) msg, promise);
        } else {
            ctx.write(msg, promise);
        }
    }
}
