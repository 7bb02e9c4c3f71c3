package io.zmtp.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.PromiseNotifier;
import io.zmtp.wire.ZmtpOptions;
import io.zmtp.wire.ZmtpWire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The outbound half of {@link ZwsBridge}: what the codec writes, a ZMTP byte stream, as ZWS 2.0.
 * The greeting is dropped (ZWS has none); the rest is cut into its frames again (a frame whose
 * header and body lie in one buffer becomes a slice of it, its last length byte overwritten by the
 * ZWS flags), and each frame is written as one binary WebSocket message: headers and payloads up
 * to {@link ZwsBridge#COPY_THRESHOLD} into one buffer per write, as the codec batches tcp://
 * frames; a larger payload after it as it is (no copy), except that a client masks, and so
 * copies, everything it sends (RFC 6455). Netty's WebSocket encoder passes these buffers on. The
 * promises of the codec's writes complete when the last message their bytes went into is written.
 * On the subprotocol without a mechanism, the codec's READY becomes our routing id and other
 * commands are not sent. Event loop only.
 */
final class ZwsOutbound {
    private static final int BATCH = 8192;

    private final ZmtpOptions options;
    /** The subprotocol has no mechanism (set once the WebSocket handshake chose it). */
    boolean raw;
    /** Whether we are the WebSocket client, who must mask what it sends. */
    boolean mask;

    // where we are in the codec's byte stream
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

    ZwsOutbound(ZmtpOptions options) {
        this.options = options;
    }

    /** Whether the codec has written anything yet (its greeting comes first, once it has started). */
    boolean codecStarted() {
        return greetingLeft != ZmtpWire.GREETING_SIZE;
    }

    /** What the codec wrote ({@code in}, taken): its frames go out as WebSocket messages. */
    void write(ChannelHandlerContext ctx, ByteBuf in, ChannelPromise promise) {
        try {
            cut(ctx, in);
            emitOutBatch();
        } catch (RuntimeException e) {
            release();
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
            int zws = (frameFlags & ZmtpWire.FLAG_MORE) | ((frameFlags & ZmtpWire.FLAG_COMMAND) != 0 ? Zws.COMMAND : 0);
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
        int zws = (frameFlags & ZmtpWire.FLAG_MORE) | ((frameFlags & ZmtpWire.FLAG_COMMAND) != 0 ? Zws.COMMAND : 0);
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
     * and, up to {@link ZwsBridge#COPY_THRESHOLD}, its payload go into the batch buffer, so a batch of
     * small frames leaves as one buffer, as on tcp://; a larger payload follows the batch as it
     * is (no copy). A client masks its payload as RFC 6455 requires, which copies it.
     */
    private void encodeFrame(ChannelHandlerContext ctx, ByteBuf content) {
        int n = content.readableBytes();
        int header = 2 + (n <= 125 ? 0 : n <= 0xFFFF ? 2 : 8) + (mask ? 4 : 0);
        boolean copy = mask || n <= Zws.COPY_THRESHOLD + 1;
        ByteBuf b = room(ctx, header + (copy ? n : 0));
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

    private ByteBuf room(ChannelHandlerContext ctx, int bytes) {
        if (outBatch != null && outBatch.writableBytes() < bytes) {
            emitOutBatch();
        }
        if (outBatch == null) {
            outBatch = ctx.alloc().directBuffer(Math.max(BATCH, bytes));
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

    void release() {
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
}
