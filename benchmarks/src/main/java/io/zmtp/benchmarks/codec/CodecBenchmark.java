package io.zmtp.benchmarks.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpCodec;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpOptions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Encoding and decoding through {@link ZmtpCodec} alone (no socket, no I/O): messages of 1 and
 * 6 frames of 32 bytes, 100 per invocation, one flush per batch. Run with {@code -prof gc} to see
 * the bytes allocated per message ({@code gc.alloc.rate.norm}); in steady state only pooled
 * buffers should be used. It runs on Netty threads ({@link io.zmtp.benchmarks.NettyThreads}), as
 * the codec does on an event loop.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsPrepend = {"-Dio.netty.leakDetection.level=disabled",
        "-Djmh.executor=CUSTOM", "-Djmh.executor.class=io.zmtp.benchmarks.NettyThreads"})
public class CodecBenchmark {
    static final int BATCH = 100;

    @Param({"1", "6"})
    int frames;

    private EmbeddedChannel encoder;
    private EmbeddedChannel decoder;
    private ByteBuf payload;
    private ByteBuf encodedBatch;
    private Blackhole sink;

    @Setup(Level.Trial)
    public void setUp(Blackhole bh) {
        sink = bh;
        payload = PooledByteBufAllocator.DEFAULT.directBuffer(32).writeZero(32);
        encoder = handshaken(new ChannelInboundHandlerAdapter());
        decoder = handshaken(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                sink.consume(msg);
                ReferenceCountUtil.release(msg);
            }
        });
        // One batch of encoded messages, as a peer would send them, decoded again and again.
        for (int i = 0; i < BATCH; i++) {
            encoder.write(message(), encoder.voidPromise());
        }
        encoder.flush();
        encodedBatch = PooledByteBufAllocator.DEFAULT.directBuffer();
        ByteBuf b;
        while ((b = encoder.readOutbound()) != null) {
            encodedBatch.writeBytes(b);
            b.release();
        }
    }

    /** A codec whose handshake with a ROUTER peer is done. */
    private static EmbeddedChannel handshaken(ChannelInboundHandlerAdapter next) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(PooledByteBufAllocator.DEFAULT);
        // No per-turn limit: an EmbeddedChannel runs no loop turns, and the limit is about sharing
        // a loop between connections, not about what decoding costs.
        ch.pipeline().addLast(new ZmtpCodec(ZmtpOptions.builder(SocketType.DEALER).messagesPerTurn(0).build()), next);
        ByteBuf peer = Unpooled.buffer();
        peer.writeByte(0xFF).writeZero(8).writeByte(0x7F).writeByte(3).writeByte(1);
        peer.writeBytes("NULL".getBytes(StandardCharsets.US_ASCII)).writeZero(16).writeByte(0).writeZero(31);
        byte[] type = "ROUTER".getBytes(StandardCharsets.US_ASCII);
        int body = 1 + 5 + 1 + 11 + 4 + type.length;
        peer.writeByte(0x04).writeByte(body).writeByte(5).writeBytes("READY".getBytes(StandardCharsets.US_ASCII));
        peer.writeByte(11).writeBytes("Socket-Type".getBytes(StandardCharsets.US_ASCII)).writeInt(type.length).writeBytes(type);
        ch.writeInbound(peer);
        ByteBuf out;
        while ((out = ch.readOutbound()) != null) {
            out.release();
        }
        return ch;
    }

    private ZmtpMessage message() {
        ZmtpMessage m = ZmtpMessage.newMessage();
        for (int i = 0; i < frames; i++) {
            m.add(payload.retainedSlice());
        }
        return m;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void encode() {
        for (int i = 0; i < BATCH; i++) {
            encoder.write(message(), encoder.voidPromise());
        }
        encoder.flush();
        ByteBuf b;
        while ((b = encoder.readOutbound()) != null) {
            sink.consume(b);
            b.release();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void decode() {
        // What writeInbound does, without its varargs array (24 B per batch, counted by -prof gc).
        decoder.pipeline().fireChannelRead(encodedBatch.retainedDuplicate()).fireChannelReadComplete();
        decoder.runPendingTasks();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        encoder.finishAndReleaseAll();
        decoder.finishAndReleaseAll();
        encodedBatch.release();
        payload.release();
    }
}
