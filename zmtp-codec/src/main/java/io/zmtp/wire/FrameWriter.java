package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.PromiseNotifier;

import java.util.ArrayList;
import java.util.List;

/**
 * Encodes frames for one connection into batches. Headers and small bodies are copied into one
 * pooled batch buffer; a body larger than {@link #COPY_THRESHOLD} is written as its own buffer
 * (a retained duplicate: no copy), so the channel writes header and body with one gathering write.
 * Nothing reaches the channel until a batch fills or {@link #flush} is called: one flush per batch.
 *
 * <p>A message's write promise completes once the write that carries its last byte completes.
 */
final class FrameWriter {
    /** Bodies up to this size are copied into the batch buffer; larger ones are gathered. */
    static final int COPY_THRESHOLD = 1024;
    static final int BATCH_SIZE = 8192;

    private final ChannelHandlerContext ctx;
    private FrameCipher cipher;
    private ByteBuf batch;
    private final List<ChannelPromise> waiting = new ArrayList<>(4);
    /**
     * Set while the codec reads a handshake: a flush then only notes that one is owed, and
     * {@link #releaseFlushes} makes it once. A handshake answers what one read brought (the rest
     * of our greeting, then READY, or a mechanism's command) with several writes; flushed one by
     * one they cost a system call each, held they leave together.
     */
    private boolean held;
    private boolean flushOwed;

    FrameWriter(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    void cipher(FrameCipher c) {
        this.cipher = c;
    }

    /** Encodes every frame of {@code msg} (which the caller still owns and releases). */
    void writeMessage(ZmtpMessage msg, ChannelPromise promise) {
        int n = msg.size();
        if (n == 0) {
            throw new IllegalArgumentException("a message has at least one frame");
        }
        int i = 0;
        LazyFrame lazy = msg.lazyFirst();
        if (lazy != null && cipher == null) {
            // A routing id still held by reference: its bytes go into the batch, no buffer made.
            byte[] b = lazy.bytes();
            ByteBuf out = room(ZmtpWire.headerSize(b.length) + b.length);
            ZmtpWire.writeFrameHeader(out, n > 1 ? ZmtpWire.FLAG_MORE : 0, b.length);
            out.writeBytes(b);
            i = 1;
        }
        for (; i < n; i++) {
            int flags = i < n - 1 ? ZmtpWire.FLAG_MORE : 0;
            long span = msg.span(i);
            int size = ZmtpMessage.spanLength(span);
            if (span != 0 && cipher != null) {
                // A frame still held as a span of the buffer it was read from: sealed from there.
                cipher.encrypt(flags, msg.backing(), ZmtpMessage.spanIndex(span), size, room(cipher.wireSize(size)));
            } else if (span != 0 && size <= COPY_THRESHOLD) {
                // ... or copied from there.
                ByteBuf out = room(ZmtpWire.headerSize(size) + size);
                ZmtpWire.writeFrameHeader(out, flags, size);
                out.writeBytes(msg.backing(), ZmtpMessage.spanIndex(span), size);
            } else {
                writeFrame(flags, msg.frame(i));
            }
        }
        endWrite(promise);
    }

    /** A RADIO message's group frame (RFC 48), MORE set: the body frame follows. */
    void writeGroupFrame(byte[] group) {
        writeFrame(ZmtpWire.FLAG_MORE, Unpooled.wrappedBuffer(group));
    }

    /** Encodes one frame; {@code flags} is MORE and/or COMMAND. The body's indexes are untouched. */
    void writeFrame(int flags, ByteBuf body) {
        int size = body.readableBytes();
        if (cipher != null) {
            cipher.encrypt(flags, body, room(cipher.wireSize(size)));
            return;
        }
        if (size <= COPY_THRESHOLD) {
            ByteBuf out = room(ZmtpWire.headerSize(size) + size);
            ZmtpWire.writeFrameHeader(out, flags, size);
            out.writeBytes(body, body.readerIndex(), size);
        } else {
            ZmtpWire.writeFrameHeader(room(9), flags, size);
            emitBatch();
            ctx.write(body.retainedDuplicate(), ctx.voidPromise());
        }
    }

    /** Encodes a command frame (through the cipher once there is one). */
    void writeCommand(String name, ByteBuf data) {
        if (cipher != null) {
            int dataSize = data == null ? 0 : data.readableBytes();
            ByteBuf body = ctx.alloc().buffer(1 + name.length() + dataSize);
            try {
                body.writeByte(name.length());
                body.writeCharSequence(name, java.nio.charset.StandardCharsets.US_ASCII);
                if (dataSize > 0) {
                    body.writeBytes(data, data.readerIndex(), dataSize);
                }
                writeFrame(ZmtpWire.FLAG_COMMAND, body);
            } finally {
                body.release();
            }
            return;
        }
        int dataSize = data == null ? 0 : data.readableBytes();
        ZmtpWire.writeCommand(room(ZmtpWire.commandFrameSize(name, dataSize)), name, data);
    }

    /**
     * Encodes a subscription in the form the peer's version expects: a 3.1 peer gets a
     * SUBSCRIBE or CANCEL command, a 3.0 (or 2.0) peer a message of byte 1 or 0 and the topic.
     */
    void writeSubscription(ZmtpSubscription sub, ZmtpVersion version) {
        if (sub.isGroup()) {
            // RFC 48 has only the command form (a DISH speaks ZMTP 3.1)
            writeCommand(sub.isSubscribe() ? ZmtpWire.JOIN : ZmtpWire.LEAVE, sub.topic());
            return;
        }
        if (version.hasCommands31()) {
            writeCommand(sub.isSubscribe() ? ZmtpWire.SUBSCRIBE : ZmtpWire.CANCEL, sub.topic());
            return;
        }
        ByteBuf body = ctx.alloc().buffer(1 + sub.topic().readableBytes());
        try {
            body.writeByte(sub.isSubscribe() ? 1 : 0);
            body.writeBytes(sub.topic(), sub.topic().readerIndex(), sub.topic().readableBytes());
            writeFrame(0, body);
        } finally {
            body.release();
        }
    }

    /** Writes bytes as they are (the greeting). */
    void writeRaw(ByteBuf bytes) {
        room(bytes.readableBytes()).writeBytes(bytes, bytes.readerIndex(), bytes.readableBytes());
    }

    /** Writes bytes as they are: the greeting and frames encoded once for every connection. */
    void writeRaw(byte[] bytes) {
        room(bytes.length).writeBytes(bytes);
    }

    /** Passes an object the codec does not encode down the pipeline, after what is batched. */
    void writeOther(Object msg, ChannelPromise promise) {
        emitBatch();
        ctx.write(msg, promise);
    }

    /** Marks the end of one logical write whose promise completes with the bytes written so far. */
    void endWrite(ChannelPromise promise) {
        if (!promise.isVoid()) {
            waiting.add(promise);
        }
    }

    /** Hands the current batch to the channel and flushes (once the read ends, while held). */
    void flush() {
        if (held) {
            flushOwed = true;
            return;
        }
        emitBatch();
        ctx.flush();
    }

    /** Flushes now, even while flushes are held: for bytes that must leave apart from what follows. */
    void flushNow() {
        emitBatch();
        ctx.flush();
    }

    /** From now until {@link #releaseFlushes}, flushes wait (the codec reads a handshake). */
    void holdFlushes() {
        held = true;
    }

    /** Makes the flush the held ones owed, if any. */
    void releaseFlushes() {
        held = false;
        if (flushOwed) {
            flushOwed = false;
            flush();
        }
    }

    /** Flushes, then runs {@code then} once everything written so far has left (or failed). */
    void flushThen(io.netty.channel.ChannelFutureListener then) {
        ChannelPromise p = ctx.newPromise();
        p.addListener(then);
        endWrite(p);
        flush();
    }

    /** Drops what is batched but not yet handed over, failing its promises with what {@code cause} makes. */
    void discard(java.util.function.Supplier<? extends Throwable> cause) {
        held = false;
        flushOwed = false;
        if (batch != null) {
            batch.release();
            batch = null;
        }
        if (!waiting.isEmpty()) {
            Throwable t = cause.get();
            for (ChannelPromise p : waiting) {
                p.tryFailure(t);
            }
            waiting.clear();
        }
    }

    private ByteBuf room(int bytes) {
        if (batch != null && batch.writableBytes() < bytes) {
            emitBatch();
        }
        if (batch == null) {
            batch = ctx.alloc().directBuffer(Math.max(BATCH_SIZE, bytes));
        }
        return batch;
    }

    private void emitBatch() {
        ByteBuf b = batch;
        batch = null;
        if (b == null) {
            if (waiting.isEmpty()) {
                return;
            }
            b = Unpooled.EMPTY_BUFFER;
        } else if (!b.isReadable() && waiting.isEmpty()) {
            b.release();
            return;
        }
        ctx.write(b, takeWaiting());
    }

    private ChannelPromise takeWaiting() {
        int n = waiting.size();
        if (n == 0) {
            return ctx.voidPromise();
        }
        if (n == 1) {
            ChannelPromise p = waiting.get(0);
            waiting.clear();
            return p;
        }
        ChannelPromise all = ctx.newPromise();
        all.addListener(new PromiseNotifier<>(waiting.toArray(new ChannelPromise[0])));
        waiting.clear();
        return all;
    }
}
