package io.zmtp.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;
import io.zmtp.wire.HandshakeCompleted;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpMetadata;
import io.zmtp.wire.ZmtpVersion;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * RADIO/DISH messages as udp:// datagrams (zmq_udp(7)), in place of the ZMTP codec on a datagram
 * channel: one datagram per message, 1 byte of group length, the group, then the body. There is
 * no greeting and no JOIN: once the channel is open it reports a completed "handshake" with the
 * peer type it stands for (the DISH at the far end for a RADIO, the RADIOs for a DISH), so the
 * socket takes it as one peer like any connection.
 *
 * <p>A RADIO's side writes each message to {@code target}; a message whose datagram would pass
 * {@link #MAX_DATAGRAM} bytes is dropped, and so are JOIN and LEAVE (a datagram carries none).
 * A DISH's side reads datagrams of up to {@link #MAX_DATAGRAM} bytes; one that is empty, larger,
 * has an empty group, or a group length past its end is dropped: each drop is logged (debug) and
 * reported to {@code dropped}, and the channel goes on.
 */
public final class DatagramCodec extends ChannelDuplexHandler {
    private static final PeerFailureLog peerLog = PeerFailureLog.get(DatagramCodec.class);

    /** The largest datagram sent or received: libzmq's MAX_UDP_MSG. */
    public static final int MAX_DATAGRAM = 8192;

    private final ZmtpMetadata peer;
    private final InetSocketAddress target;
    private final Runnable dropped;
    private boolean announced;

    /**
     * @param peerType the type of the sockets at the other end (DISH for a RADIO's channel, RADIO for a DISH's)
     * @param target where a RADIO's datagrams go (resolved); null on a DISH's channel
     * @param dropped hears of each datagram dropped, on the channel's event loop
     */
    public DatagramCodec(SocketType peerType, InetSocketAddress target, Runnable dropped) {
        this.peer = ZmtpMetadata.EMPTY.with(ZmtpMetadata.SOCKET_TYPE, peerType.name());
        this.target = target;
        this.dropped = dropped;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            ctx.executor().execute(() -> announce(ctx));
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        announce(ctx);
        super.channelActive(ctx);
    }

    private void announce(ChannelHandlerContext ctx) {
        if (!announced && ctx.channel().isActive()) {
            announced = true;
            ctx.fireUserEventTriggered(new HandshakeCompleted(ZmtpVersion.V3_1, "NULL", peer));
        }
    }

    // ---------------------------------------------------------------- a DISH's datagrams in

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof DatagramPacket packet)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            ZmtpMessage m = decode(packet.content());
            if (m != null) {
                ctx.fireChannelRead(m.properties(peer));
            } else if (peerLog.isDebugEnabled()) {
                peerLog.debug("{} dropped a datagram of {} bytes from {}: {}", ctx.channel(),
                        packet.content().readableBytes(), packet.sender(), why(packet.content()));
            }
        } finally {
            packet.release();
        }
    }

    /** The message in a datagram, or null when it is malformed (and {@code dropped} has heard). */
    private ZmtpMessage decode(ByteBuf d) {
        if (why(d) != null) {
            dropped.run();
            return null;
        }
        int at = d.readerIndex();
        int groupLength = d.getUnsignedByte(at);
        int bodyLength = d.readableBytes() - 1 - groupLength;
        String group = d.toString(at + 1, groupLength, StandardCharsets.UTF_8);
        ByteBuf body = bodyLength == 0 ? Unpooled.EMPTY_BUFFER : d.retainedSlice(at + 1 + groupLength, bodyLength);
        ZmtpMessage m = ZmtpMessage.of(body);
        try {
            return m.group(group);
        } catch (IllegalArgumentException e) {
            // bytes that are not UTF-8 may decode to more than 255 bytes' worth: not a group we can name
            m.release();
            dropped.run();
            return null;
        }
    }

    /** Why a datagram is malformed, or null when it is well formed. */
    static String why(ByteBuf d) {
        int n = d.readableBytes();
        if (n == 0) {
            return "empty";
        }
        if (n > MAX_DATAGRAM) {
            return "larger than " + MAX_DATAGRAM + " bytes";
        }
        int groupLength = d.getUnsignedByte(d.readerIndex());
        if (groupLength == 0) {
            return "empty group";
        }
        if (1 + groupLength > n) {
            return "group length " + groupLength + " past the end";
        }
        return null;
    }

    /** An I/O error on a datagram socket (an ICMP error, say) loses datagrams, not the socket. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof java.io.IOException) {
            peerLog.debug("{} {}", ctx.channel(), cause.toString());
            return;
        }
        ctx.fireExceptionCaught(cause);
    }

    // ---------------------------------------------------------------- a RADIO's messages out

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ZmtpMessage m)) {
            // JOIN/LEAVE (a DISH's side): no datagram carries them
            ReferenceCountUtil.release(msg);
            promise.trySuccess();
            return;
        }
        try {
            if (target == null || m.group() == null) {
                promise.trySuccess();
                return;
            }
            byte[] group = m.group().getBytes(StandardCharsets.UTF_8);
            ByteBuf body = m.frame(0);
            int size = 1 + group.length + body.readableBytes();
            if (size > MAX_DATAGRAM) {
                dropped.run();
                peerLog.debug("{} dropped a message of {} bytes: a datagram holds at most {}", ctx.channel(), size,
                        MAX_DATAGRAM);
                promise.trySuccess();
                return;
            }
            ByteBuf d = ctx.alloc().directBuffer(size);
            d.writeByte(group.length).writeBytes(group).writeBytes(body, body.readerIndex(), body.readableBytes());
            // A datagram that cannot go (no route, say) is lost as UDP loses it, without
            // failing the channel: the pipe writes with the void promise, which would.
            ctx.write(new DatagramPacket(d, target)).addListener(f -> {
                if (!f.isSuccess()) {
                    dropped.run();
                    peerLog.debug("{} could not send a datagram to {}: {}", ctx.channel(), target, f.cause().toString());
                }
            });
            promise.trySuccess();
        } finally {
            m.release();
        }
    }
}
