package io.zmtp.wire;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.PendingWriteQueue;
import io.netty.util.ReferenceCountUtil;

import java.util.function.BiConsumer;

/**
 * The messages, subscriptions and commands written to a connection before its handshake
 * completed: held in the order they were made (Netty's {@link PendingWriteQueue}, made by the
 * first), encoded once the connection is ready, or failed with the reason it closed. Event loop
 * only.
 */
final class WritesBeforeReady {
    private PendingWriteQueue queue;

    void add(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (queue == null) {
            queue = new PendingWriteQueue(ctx);
        }
        queue.add(msg, promise);
    }

    /**
     * Hands each held write to {@code encode} (which releases it), in order; a failure meanwhile
     * ({@link #failAll}) fails the rest. Returns whether anything was held.
     */
    boolean writeAll(BiConsumer<Object, ChannelPromise> encode) {
        if (queue == null) {
            return false;
        }
        Object msg;
        while (queue != null && (msg = queue.current()) != null) {
            // The queue's remove() releases its message: the retain is what encode releases.
            ReferenceCountUtil.retain(msg);
            encode.accept(msg, queue.remove());
        }
        queue = null;
        return true;
    }

    /** Fails every held write with {@code cause} and releases it (the connection closed). */
    void failAll(java.util.function.Supplier<? extends Throwable> cause) {
        if (queue == null) {
            return;
        }
        PendingWriteQueue q = queue;
        queue = null;
        q.removeAndFailAll(cause.get());
    }
}
