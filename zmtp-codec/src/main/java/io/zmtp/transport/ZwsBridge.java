package io.zmtp.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.PromiseNotifier;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.ZmtpCodec;
import io.zmtp.wire.ZmtpMetadata;
import io.zmtp.wire.ZmtpOptions;
import io.zmtp.wire.ZmtpWire;

import java.nio.charset.StandardCharsets;
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
 */
public final class ZwsBridge extends ChannelDuplexHandler {
    private static final PeerFailureLog log = PeerFailureLog.get(ZwsBridge.class);

    /** The WebSocket subprotocol without a mechanism. */
    public static final String RAW_SUBPROTOCOL = "ZWS2.0";
    /** Bodies up to this size are copied with their headers into one buffer per read. */
    static final int COPY_THRESHOLD = 1024;
    private static final int IN_BATCH = 8192;
    private static final int OUT_BATCH = 8192;
    private static final int ZWS_MORE = 0x01;
    private static final int ZWS_COMMAND = 0x02;

    private final ZmtpOptions options;

    /** Set once the WebSocket handshake has chosen the subprotocol. */
    private boolean upgraded;
    private boolean raw;
    private boolean failed;
    /** Frames that arrived before the codec could be given the peer's greeting. */
    private List<WebSocketFrame> held;

    // inbound
    private ByteBuf inBatch;
    private boolean peerRoutingIdSeen;

    // outbound: where we are in the codec's byte stream
    private int greetingLeft = ZmtpWire.GREETING_SIZE;
    private final byte[] header = new byte[9];
    private int headerHave;
    private int headerNeed;          // 0 while no header is being read
    private int frameFlags;          // ZMTP flags of the frame being cut
    private long bodyLeft;
    private final List<ByteBuf> bodyParts = new ArrayList<>(2);
    private boolean ourRoutingIdSent;
    private final List<ChannelPromise> waiting = new ArrayList<>(2);
    private final List<Object> out = new ArrayList<>(8);
    /** WebSocket messages encoded by this write, not yet handed on. */
    private ByteBuf outBatch;
    /** Whether we are the WebSocket client, who must mask what it sends. */
    private boolean mask;

    public ZwsBridge(ZmtpOptions options) {
        this.options = options;
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
            mask = true;
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
        } else if (!subprotocol.equals("ZWS2.0/" + ours)) {
            fail(ctx, "the WebSocket peer chose subprotocol " + FrameText.escape(subprotocol)
                    + ", we speak " + subprotocols(options));
            return;
        }
        upgraded = true;
        if (greetingLeft == ZmtpWire.GREETING_SIZE) {
            // The codec has not started yet: one added to an already open connection starts (sends
            // its greeting, starts its handshake timer) from a task queued when it was added, and
            // must have done so before it reads the peer's greeting. Frames that arrive meanwhile wait.
            held = new ArrayList<>(2);
            ctx.executor().execute(() -> {
                List<WebSocketFrame> frames = held;
                held = null;
                try {
                    if (!failed && ctx.channel().isActive()) {
                        firePeerGreeting(ctx);
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
            firePeerGreeting(ctx);
        }
    }

    private void firePeerGreeting(ChannelHandlerContext ctx) {
        String ours = options.mechanism().name();
        ByteBuf g = ctx.alloc().buffer(ZmtpWire.GREETING_SIZE);
        ZmtpWire.writeGreetingStart(g);
        boolean peerAsServer = !ours.equals("NULL") && !options.mechanism().asServer();
        ZmtpWire.writeGreetingRest(g, 0, ours, peerAsServer);
        ctx.fireChannelRead(g);
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
            int zws = content.readUnsignedByte();
            if (raw && !peerRoutingIdSeen) {
                peerRoutingIdSeen = true;
                fireRoutingIdAsReady(ctx, content);
                return;
            }
            int flags = (zws & ZWS_MORE) | ((zws & ZWS_COMMAND) != 0 ? ZmtpWire.FLAG_COMMAND : 0);
            int size = content.readableBytes();
            if (size <= COPY_THRESHOLD) {
                ByteBuf b = inRoom(ctx, ZmtpWire.headerSize(size) + size);
                ZmtpWire.writeFrameHeader(b, flags, size);
                b.writeBytes(content, content.readerIndex(), size);
            } else {
                fireInBatch(ctx);
                ByteBuf h = ctx.alloc().buffer(9);
                ZmtpWire.writeFrameHeader(h, flags, size);
                CompositeByteBuf c = ctx.alloc().compositeBuffer(2);
                c.addComponent(true, h);
                c.addComponent(true, content.retainedSlice());
                ctx.fireChannelRead(c);
            }
        } finally {
            frame.release();
        }
    }

    /** The raw subprotocol's first message: the peer's routing id, told to the codec as READY. */
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
            ByteBuf b = inRoom(ctx, ZmtpWire.commandFrameSize(ZmtpWire.READY, props.readableBytes()));
            ZmtpWire.writeCommand(b, ZmtpWire.READY, props);
        } finally {
            props.release();
        }
    }

    private ByteBuf inRoom(ChannelHandlerContext ctx, int bytes) {
        if (inBatch != null && inBatch.writableBytes() < bytes) {
            fireInBatch(ctx);
        }
        if (inBatch == null) {
            inBatch = ctx.alloc().buffer(Math.max(IN_BATCH, bytes));
        }
        return inBatch;
    }

    private void fireInBatch(ChannelHandlerContext ctx) {
        ByteBuf b = inBatch;
        inBatch = null;
        if (b != null) {
            ctx.fireChannelRead(b);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        fireInBatch(ctx);
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        fireInBatch(ctx);
        releaseAll();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseAll();
    }

    private void releaseAll() {
        if (held != null) {
            for (WebSocketFrame f : held) {
                f.release();
            }
            held.clear();
        }
        if (inBatch != null) {
            inBatch.release();
            inBatch = null;
        }
        for (ByteBuf b : bodyParts) {
            b.release();
        }
        bodyParts.clear();
        for (Object o : out) {
            ReferenceCountUtil.release(o);
        }
        out.clear();
        if (outBatch != null) {
            outBatch.release();
            outBatch = null;
        }
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
        if (!(msg instanceof ByteBuf)) {
            ctx.write(msg, promise);
            return;
        }
        ByteBuf in = (ByteBuf) msg;
        try {
            cut(ctx, in);
            emitOutBatch();
        } catch (RuntimeException e) {
            releaseAll();
            promise.tryFailure(e);
            return;
        } finally {
            in.release();
        }
        boolean frameOpen = headerNeed != 0 || bodyLeft > 0;
        if (!promise.isVoid()) {
            waiting.add(promise);
        }
        int n = out.size();
        if (n == 0) {
            if (!frameOpen) {
                completeWaiting(null);
            }
            return;
        }
        for (int i = 0; i < n - 1; i++) {
            ctx.write(out.get(i), ctx.voidPromise());
        }
        Object last = out.get(n - 1);
        out.clear();
        if (frameOpen || waiting.isEmpty()) {
            // Nothing to report, or a frame goes on in the next buffer: its promises wait for it.
            ctx.write(last, ctx.voidPromise());
            return;
        }
        ChannelPromise p = ctx.newPromise();
        completeWaiting(p);
        ctx.write(last, p);
    }

    /** Ties the waiting promises to {@code p}, or completes them when there is nothing to wait for. */
    private void completeWaiting(ChannelPromise p) {
        if (waiting.isEmpty()) {
            return;
        }
        if (p == null) {
            for (ChannelPromise w : waiting) {
                w.trySuccess();
            }
        } else {
            p.addListener(new PromiseNotifier<>(waiting.toArray(new ChannelPromise[0])));
        }
        waiting.clear();
    }

    /** Cuts the codec's bytes into ZWS frames (into {@link #out}). */
    private void cut(ChannelHandlerContext ctx, ByteBuf in) {
        while (in.isReadable()) {
            if (greetingLeft > 0) {
                int skip = Math.min(greetingLeft, in.readableBytes());
                in.skipBytes(skip);
                greetingLeft -= skip;
                continue;
            }
            if (bodyLeft > 0) {
                int take = (int) Math.min(bodyLeft, in.readableBytes());
                bodyParts.add(in.readRetainedSlice(take));
                bodyLeft -= take;
                if (bodyLeft == 0) {
                    emitParts(ctx);
                }
                continue;
            }
            // A header: flags, then one length byte or eight.
            int start = in.readerIndex();
            if (headerNeed == 0) {
                int flags = in.readUnsignedByte();
                header[0] = (byte) flags;
                headerHave = 1;
                headerNeed = (flags & ZmtpWire.FLAG_LONG) != 0 ? 9 : 2;
            }
            while (headerHave < headerNeed && in.isReadable()) {
                header[headerHave++] = in.readByte();
            }
            if (headerHave < headerNeed) {
                return;
            }
            boolean headerHere = in.readerIndex() - start == headerNeed;
            long size = 0;
            for (int i = 1; i < headerNeed; i++) {
                size = (size << 8) | (header[i] & 0xFF);
            }
            headerNeed = 0;
            frameFlags = header[0] & 0xFF;
            if (size > Integer.MAX_VALUE - 1) {
                throw new IllegalStateException("frame of " + size + " bytes is too large for a WebSocket message");
            }
            int zws = (frameFlags & ZmtpWire.FLAG_MORE) | ((frameFlags & ZmtpWire.FLAG_COMMAND) != 0 ? ZWS_COMMAND : 0);
            if (headerHere && in.readableBytes() >= size && !in.isReadOnly()) {
                // Header and body in this buffer: the last length byte becomes the ZWS flags byte.
                int flagsAt = in.readerIndex() - 1;
                in.setByte(flagsAt, zws);
                ByteBuf content = in.retainedSlice(flagsAt, (int) size + 1);
                in.skipBytes((int) size);
                emit(ctx, content, size);
            } else if (size == 0) {
                ByteBuf content = ctx.alloc().buffer(1).writeByte(zws);
                emit(ctx, content, 0);
            } else {
                bodyLeft = size;
            }
        }
    }

    private void emitParts(ChannelHandlerContext ctx) {
        int zws = (frameFlags & ZmtpWire.FLAG_MORE) | ((frameFlags & ZmtpWire.FLAG_COMMAND) != 0 ? ZWS_COMMAND : 0);
        CompositeByteBuf c = ctx.alloc().compositeBuffer(1 + bodyParts.size());
        c.addComponent(true, ctx.alloc().buffer(1).writeByte(zws));
        long size = 0;
        for (ByteBuf part : bodyParts) {
            size += part.readableBytes();
            c.addComponent(true, part);
        }
        bodyParts.clear();
        emit(ctx, c, size);
    }

    /** One frame cut out, {@code content} = ZWS flags + body; on the raw subprotocol, commands are replaced or dropped. */
    private void emit(ChannelHandlerContext ctx, ByteBuf content, long size) {
        if (raw && (frameFlags & ZmtpWire.FLAG_COMMAND) != 0) {
            try {
                if (!ourRoutingIdSent && isReady(content)) {
                    ourRoutingIdSent = true;
                    byte[] id = options.identity();
                    ByteBuf r = ctx.alloc().buffer(1 + id.length).writeByte(0).writeBytes(id);
                    encodeFrame(ctx, r);
                }
            } finally {
                content.release();
            }
            return;
        }
        encodeFrame(ctx, content);
    }

    /**
     * Writes one binary WebSocket message whose payload is {@code content} (taken): its header
     * and, up to {@link #COPY_THRESHOLD}, its payload go into the batch buffer, so a batch of
     * small frames leaves as one buffer, as on tcp://; a larger payload follows the batch as it
     * is (no copy). A client masks its payload as RFC 6455 requires, which copies it.
     */
    private void encodeFrame(ChannelHandlerContext ctx, ByteBuf content) {
        int n = content.readableBytes();
        int header = 2 + (n <= 125 ? 0 : n <= 0xFFFF ? 2 : 8) + (mask ? 4 : 0);
        boolean copy = mask || n <= COPY_THRESHOLD + 1;
        ByteBuf b = outRoom(ctx, header + (copy ? n : 0));
        b.writeByte(0x82);                                        // FIN, binary
        int maskBit = mask ? 0x80 : 0;
        if (n <= 125) {
            b.writeByte(maskBit | n);
        } else if (n <= 0xFFFF) {
            b.writeByte(maskBit | 126);
            b.writeShort(n);
        } else {
            b.writeByte(maskBit | 127);
            b.writeLong(n);
        }
        if (!copy) {
            emitOutBatch();
            out.add(content);
            return;
        }
        try {
            int ri = content.readerIndex();
            if (!mask) {
                b.writeBytes(content, ri, n);
                return;
            }
            int key = java.util.concurrent.ThreadLocalRandom.current().nextInt();
            b.writeInt(key);
            int i = 0;
            for (; i + 4 <= n; i += 4) {
                b.writeInt(content.getInt(ri + i) ^ key);
            }
            for (; i < n; i++) {
                b.writeByte(content.getByte(ri + i) ^ (key >>> (24 - 8 * (i & 3))));
            }
        } finally {
            content.release();
        }
    }

    private ByteBuf outRoom(ChannelHandlerContext ctx, int bytes) {
        if (outBatch != null && outBatch.writableBytes() < bytes) {
            emitOutBatch();
        }
        if (outBatch == null) {
            outBatch = ctx.alloc().directBuffer(Math.max(OUT_BATCH, bytes));
        }
        return outBatch;
    }

    private void emitOutBatch() {
        ByteBuf b = outBatch;
        outBatch = null;
        if (b != null) {
            out.add(b);
        }
    }

    private static boolean isReady(ByteBuf content) {
        int i = content.readerIndex() + 1;
        return content.readableBytes() >= 7 && content.getUnsignedByte(i) == 5
                && content.toString(i + 1, 5, StandardCharsets.US_ASCII).equals(ZmtpWire.READY);
    }
}
