package io.zmtp.benchmarks.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.zmtp.wire.Frames;
import io.zmtp.wire.ZmtpMessage;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The copy the byte-array form of {@link io.zmtp.socket.BlockingSocket} makes, alone (no socket):
 * per message, on a user thread, what a send and a receive cost beyond the zero-copy path.
 * <ul>
 *   <li>{@code sendWrap}: {@code ZmtpMessage.of(array)} and its release (the zero-copy send wraps);</li>
 *   <li>{@code sendCopy}: {@code Frames.of(array).toMessage()} and its release (what
 *       {@code send(byte[])} does: one copy into a pooled buffer);</li>
 *   <li>{@code receiveCopy}: {@code Frames.copyOf(received)} (what {@code recv()} does: one copy
 *       into a new array); the zero-copy receive reads the frame where it is and costs nothing
 *       here.</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
public class FrameCopyBenchmark {
    @Param({"16", "1024", "65536"})
    int size;

    private byte[] payload;
    private ZmtpMessage received;

    @Setup(Level.Trial)
    public void setUp() {
        payload = new byte[size];
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(size);
        b.writeBytes(payload);
        received = ZmtpMessage.of(b);
    }

    @Benchmark
    public int sendWrap() {
        ZmtpMessage m = ZmtpMessage.of(payload);
        int n = m.size();
        m.release();
        return n;
    }

    @Benchmark
    public int sendCopy() {
        ZmtpMessage m = Frames.of(payload).toMessage();
        int n = m.size();
        m.release();
        return n;
    }

    @Benchmark
    public Frames receiveCopy() {
        return Frames.copyOf(received);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        received.release();
    }
}
