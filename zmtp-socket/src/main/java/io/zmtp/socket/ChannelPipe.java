package io.zmtp.socket;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;
import io.zmtp.wire.ConnectionWriter;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpMetadata;
import io.zmtp.wire.ZmtpVersion;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * A peer reached over a Netty channel whose pipeline holds a {@link io.zmtp.wire.ZmtpCodec}
 * (or, for STREAM, no codec: then what is written is the raw bytes, {@link StreamPeerHandler}).
 * Messages go straight into the channel while it is writable; when Netty's write buffer is full
 * they wait in a backlog of at most the send high-water mark, and drain as the channel drains.
 */
final class ChannelPipe extends Pipe {
    private final ChannelHandlerContext ctx;
    /**
     * Writes into the codec directly (handed over with the handshake), wherever our handler sits;
     * null only when the HandshakeCompleted event was made by someone other than the codec.
     */
    private final ConnectionWriter direct;
    private final ArrayDeque<Object> backlog = new ArrayDeque<>();
    private final int sendHwm;
    /** CONFLATE: the backlog keeps only the last message (subscriptions are all kept). */
    private final boolean conflating;
    /** closeAfterFlush is waiting for the backlog to drain. */
    private boolean lingering;
    /** Why the socket closed this peer for breaking one of its limits, or null. */
    private String refusal;

    ChannelPipe(SocketCore core, ChannelHandlerContext ctx, ConnectionWriter direct, ZmtpMetadata peer, ZmtpVersion version,
                String endpoint) {
        super(core, peer, version, endpoint);
        this.ctx = ctx;
        this.direct = direct;
        this.sendHwm = core.options().sendHwm();
        this.conflating = core.conflating();
    }

    private void writeToChannel(Object msg) {
        if (direct != null) {
            direct.write(msg);
        } else {
            ctx.write(msg, ctx.voidPromise());
        }
    }

    Channel channel() {
        return ctx.channel();
    }

    @Override
    boolean isDatagram() {
        return ctx.channel() instanceof io.netty.channel.socket.DatagramChannel;
    }

    @Override
    boolean hasRoom() {
        return conflating || backlog.size() < sendHwm;
    }

    /** Whether the channel takes writes now: as the codec last heard, through the direct writer. */
    private boolean writable() {
        return direct != null ? direct.isWritable() : ctx.channel().isWritable();
    }

    @Override
    void write(Object msg) {
        if (backlog.isEmpty() && writable()) {
            core.counters().writing(msg);
            writeToChannel(msg);
            if (writable()) {
                core.flushes().markDirty(this);
            } else {
                // A batch has reached Netty's high water mark: push it out now rather than
                // piling the rest of this batch into the backlog.
                flush();
            }
        } else if (ctx.channel().isActive()) {
            if (conflating && msg instanceof ZmtpMessage) {
                // keep only the last message not yet in the channel
                for (Iterator<Object> it = backlog.iterator(); it.hasNext(); ) {
                    Object queued = it.next();
                    if (queued instanceof ZmtpMessage) {
                        it.remove();
                        ReferenceCountUtil.release(queued);
                    }
                }
            }
            backlog.add(msg);
            core.counters().backlog(1);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    /** The channel drained below Netty's low water mark: move the backlog into it. */
    void onWritable() {
        if (backlog.isEmpty()) {
            return;
        }
        boolean wasFull = !hasRoom();
        Object m;
        while (writable() && (m = backlog.poll()) != null) {
            core.counters().backlog(-1);
            core.counters().writing(m);
            writeToChannel(m);
        }
        core.flushes().markDirty(this);
        if (lingering && backlog.isEmpty()) {
            // closeAfterFlush waited for the backlog: now everything is in the channel.
            lingering = false;
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
        if (wasFull && hasRoom()) {
            core.events().roomAvailable(this);
        }
    }

    @Override
    void flush() {
        if (direct != null) {
            direct.flush();
        } else {
            ctx.flush();
        }
    }

    @Override
    void setReading(boolean on) {
        // Through the gate the codec shares: reading stays paused while either wants it paused.
        io.zmtp.wire.ReadGate.set(ctx.channel(), io.zmtp.wire.ReadGate.SOCKET, !on);
    }

    void releaseBacklog() {
        Object m;
        while ((m = backlog.poll()) != null) {
            core.counters().backlog(-1);
            ReferenceCountUtil.release(m);
        }
    }

    @Override
    void close() {
        releaseBacklog();
        ctx.close();
    }

    /**
     * Closes the connection because the peer broke a limit of the socket: the reason goes to the
     * log and, through {@link #refusal()}, to the DISCONNECTED event; nothing more it sends is
     * handed on.
     */
    @Override
    void refuse(String reason) {
        if (refusal != null) {
            return;
        }
        refusal = reason;
        releaseBacklog();
        super.refuse(reason);
    }

    /** Why the socket closed this peer for breaking a limit, or null. */
    String refusal() {
        return refusal;
    }

    @Override
    void closeAfterFlush(Runnable done) {
        ctx.channel().closeFuture().addListener(f -> done.run());
        if (!ctx.channel().isActive()) {
            releaseBacklog();
            return;
        }
        if (backlog.isEmpty()) {
            // An empty buffer written after everything else completes once all before it is written.
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        } else {
            lingering = true;
            ctx.flush();
        }
    }

}
