package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

/**
 * The ZMTP 3.1 heartbeats of one connection (event loop only): our PINGs every
 * {@link HeartbeatPolicy#interval()} and the timeout after each, the TTL a peer's PING asks for,
 * and the one PONG we may owe. A PING is answered by owing a PONG, not writing it: the latest
 * PING's context replaces an earlier one, and the PONG goes out at the end of the read or once the
 * channel is writable again, so a peer that sends PINGs and never reads costs one context.
 *
 * <p>Any received frame is a sign of life: the timers compare snapshots of
 * {@link Connection#framesReceived()} instead of being touched per frame.
 */
final class ZmtpHeartbeat {
    private final Connection connection;
    private final ChannelHandlerContext ctx;
    private final FrameWriter writer;
    private ScheduledFuture<?> pingTimer;
    private ScheduledFuture<?> pingTimeoutTimer;
    private ScheduledFuture<?> ttlTimer;
    private long framesAtPing;
    private long framesAtTtl;
    /** The context of the PONG we owe (the latest PING's), or null. */
    private byte[] pendingPong;

    ZmtpHeartbeat(Connection connection, FrameWriter writer) {
        this.connection = connection;
        this.ctx = connection.context();
        this.writer = writer;
    }

    /** Starts sending PINGs, when the policy asks for them and the peer speaks ZMTP 3.1. */
    void start(ZmtpVersion version) {
        HeartbeatPolicy hb = connection.options().heartbeat();
        if (!hb.enabled() || !version.hasCommands31()) {
            return;
        }
        long ivl = hb.interval().toMillis();
        pingTimer = ctx.executor().scheduleAtFixedRate(this::sendPing, ivl, ivl, TimeUnit.MILLISECONDS);
    }

    private void sendPing() {
        if (!connection.ready()) {
            return;
        }
        HeartbeatPolicy hb = connection.options().heartbeat();
        ByteBuf data = ctx.alloc().buffer(2);
        data.writeShort(hb.ttlDeciseconds());
        writer.writeCommand(ZmtpWire.PING, data);
        data.release();
        writer.flush();
        if (pingTimeoutTimer == null) {
            framesAtPing = connection.framesReceived();
            long ms = hb.timeout().toMillis();
            pingTimeoutTimer = ctx.executor().schedule(() -> {
                pingTimeoutTimer = null;
                if (connection.framesReceived() == framesAtPing && connection.ready()) {
                    connection.fail(ConnectionFailed.Kind.HEARTBEAT_TIMEOUT,
                            "no traffic within " + ms + " ms of our PING", null, false);
                }
            }, ms, TimeUnit.MILLISECONDS);
        }
    }

    /** The peer sent PING: owe it a PONG, and hold it to the TTL it announced. */
    void onPing(ByteBuf data) {
        int ttl = data.readableBytes() >= 2 ? data.readUnsignedShort() : 0;
        int ctxLen = Math.min(ZmtpWire.MAX_PING_CONTEXT, data.readableBytes());
        byte[] context = new byte[ctxLen];
        data.getBytes(data.readerIndex(), context);
        pendingPong = context;
        if (ttl > 0 && ttlTimer == null) {
            framesAtTtl = connection.framesReceived();
            long ms = ttl * 100L;
            ttlTimer = ctx.executor().schedule(() -> {
                ttlTimer = null;
                if (connection.framesReceived() == framesAtTtl && connection.ready()) {
                    connection.fail(ConnectionFailed.Kind.HEARTBEAT_TIMEOUT,
                            "nothing received within the peer's heartbeat TTL of " + ms + " ms", null, false);
                }
            }, ms, TimeUnit.MILLISECONDS);
        }
    }

    /** Whether a PONG is owed and not yet written. */
    boolean owesPong() {
        return pendingPong != null;
    }

    /** Writes the PONG we owe, if any, while the connection is up and the channel can take it. */
    void writePendingPong() {
        byte[] context = pendingPong;
        if (context == null || !connection.ready() || !ctx.channel().isWritable()) {
            return;
        }
        pendingPong = null;
        ByteBuf data = Unpooled.wrappedBuffer(context);
        try {
            writer.writeCommand(ZmtpWire.PONG, data);
        } finally {
            data.release();
        }
        writer.flush();
    }

    /** Cancels the timers and forgets an owed PONG (the connection is closing). */
    void stop() {
        pendingPong = null;
        pingTimer = cancel(pingTimer);
        pingTimeoutTimer = cancel(pingTimeoutTimer);
        ttlTimer = cancel(ttlTimer);
    }

    private static ScheduledFuture<?> cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
        return null;
    }
}
