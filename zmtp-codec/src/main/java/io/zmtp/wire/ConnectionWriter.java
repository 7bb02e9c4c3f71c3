package io.zmtp.wire;

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
public interface ConnectionWriter {
    /**
     * Encodes {@code msg} (a {@link ZmtpMessage}, {@link ZmtpSubscription} or {@link ZmtpCommand},
     * whose reference it takes) into the connection's current batch.
     */
    void write(Object msg);

    /**
     * Whether the channel takes more writes, as its writability events last said: a field read
     * where {@code Channel.isWritable()} is two calls through interfaces. It may say false a little
     * longer than the channel does (Netty announces writable again from a later task), never true
     * longer: the writability event that follows brings it up to date.
     */
    boolean isWritable();

    /** Sends the batch, like {@code ctx.flush()}. */
    void flush();
}
