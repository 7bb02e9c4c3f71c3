package io.zmtp.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.HandshakeCompleted;
import io.zmtp.wire.ZmtpCodec;
import io.zmtp.wire.ZmtpOptions;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A {@link ZmtpCodec} on an {@link EmbeddedChannel}, with everything it emits recorded. */
public final class CodecHarness implements AutoCloseable {
    public final EmbeddedChannel channel;
    public final List<Object> received = new ArrayList<>();
    public final List<Object> events = new ArrayList<>();

    public CodecHarness(ZmtpOptions options) {
        channel = new EmbeddedChannel(new ZmtpCodec(options), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                received.add(msg);
            }

            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                events.add(evt);
            }
        });
    }

    /** Feeds bytes as one read. */
    public CodecHarness feed(byte[] bytes) {
        if (channel.isOpen()) {
            channel.writeInbound(Unpooled.copiedBuffer(bytes));
        }
        return this;
    }

    /** Feeds bytes as one read per chunk boundary given. */
    public CodecHarness feedSplit(byte[] bytes, int... cuts) {
        int from = 0;
        for (int cut : cuts) {
            feed(java.util.Arrays.copyOfRange(bytes, from, cut));
            from = cut;
        }
        return feed(java.util.Arrays.copyOfRange(bytes, from, bytes.length));
    }

    /** All bytes the codec has written since the last call. */
    public byte[] written() {
        if (channel.isOpen()) {
            channel.flushOutbound();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Object o;
        while ((o = channel.readOutbound()) != null) {
            ByteBuf b = (ByteBuf) o;
            byte[] a = new byte[b.readableBytes()];
            b.readBytes(a);
            b.release();
            out.write(a, 0, a.length);
        }
        return out.toByteArray();
    }

    public HandshakeCompleted handshake() {
        for (Object e : events) {
            if (e instanceof HandshakeCompleted) {
                return (HandshakeCompleted) e;
            }
        }
        return null;
    }

    public ConnectionFailed failure() {
        for (Object e : events) {
            if (e instanceof ConnectionFailed) {
                return (ConnectionFailed) e;
            }
        }
        return null;
    }

    /** The peer hangs up: the transport closes under the codec (not a close() from the application). */
    public void peerClosed() {
        if (channel.isOpen()) {
            channel.unsafe().close(channel.voidPromise());
            channel.runPendingTasks();
        }
    }

    public void advance(long ms) {
        channel.advanceTimeBy(ms, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        channel.runPendingTasks();
    }

    @Override
    public void close() {
        for (Object o : received) {
            ReferenceCountUtil.release(o);
        }
        received.clear();
        written();
        channel.finishAndReleaseAll();
    }
}
