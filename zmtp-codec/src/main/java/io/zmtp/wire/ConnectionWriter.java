package io.zmtp.wire;

import io.netty.channel.ChannelHandlerContext;

/**
 * Writes into one connection's {@link ZmtpCodec} directly, without a trip through the pipeline:
 * the fast path of the handler that owns the connection (the socket layer's pipe). It comes with
 * the connection's {@link HandshakeCompleted} event ({@link HandshakeCompleted#writer()}); only
 * the codec makes one.
 *
 * <p>Event loop only. A write is what {@code ctx.write(msg, ctx.voidPromise())} from the handler
 * right after the codec would be, wherever the owning handler sits: handlers between the codec
 * and it do not see these writes (they still see everything read and every event).
 */
public final class ConnectionWriter {
    private final ZmtpCodec codec;
    private final ChannelHandlerContext ctx;

    ConnectionWriter(ZmtpCodec codec, ChannelHandlerContext ctx) {
        this.codec = codec;
        this.ctx = ctx;
    }

    /**
     * Encodes {@code msg} (a {@link ZmtpMessage}, {@link ZmtpSubscription} or {@link ZmtpCommand},
     * whose reference it takes) into the connection's current batch.
     */
    public void write(Object msg) {
        codec.write(ctx, msg, ctx.voidPromise());
    }

    /** Sends the batch, like {@code ctx.flush()}. */
    public void flush() {
        codec.flush(ctx);
    }
}
