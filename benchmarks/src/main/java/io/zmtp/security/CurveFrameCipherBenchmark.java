package io.zmtp.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.zmtp.wire.ZmtpProtocolException;
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
 * One CURVE MESSAGE frame sealed, and sealed then opened in place, by {@link CurveFrameCipher}
 * with and without libsodium ({@link Libsodium}): where libsodium starts to pay, which is what
 * {@link Libsodium#DEFAULT_FROM} is set by. With {@code libsodium=true} the frame goes through
 * libsodium whatever its size ({@code -Dzmtp.curve.libsodiumFrom=0} in the fork).
 * {@code java -jar benchmarks/target/benchmarks.jar CurveFrameCipherBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsPrepend = {"-Dio.netty.leakDetection.level=disabled", "-Dzmtp.curve.libsodiumFrom=0"})
public class CurveFrameCipherBenchmark {
    @Param({"100", "256", "512", "1024"})
    int size;

    @Param({"true", "false"})
    boolean libsodium;

    private CurveFrameCipher sender;
    private CurveFrameCipher receiver;
    private ByteBuf body;
    private ByteBuf frame;

    @Setup(Level.Trial)
    public void setUp() {
        if (libsodium && !Libsodium.available()) {
            throw new IllegalStateException("libsodium unavailable: " + Libsodium.unavailableBecause());
        }
        byte[] key = new byte[CryptoBox.KEY_BYTES];
        key[0] = 7;
        sender = new CurveFrameCipher(PooledByteBufAllocator.DEFAULT, new CryptoBox(), key, true, 1, 0, libsodium);
        receiver = new CurveFrameCipher(PooledByteBufAllocator.DEFAULT, new CryptoBox(), key, false, 1, 0, libsodium);
        body = PooledByteBufAllocator.DEFAULT.directBuffer(size).writeZero(size);
        frame = PooledByteBufAllocator.DEFAULT.directBuffer(sender.wireSize(size));
    }

    @Benchmark
    public ByteBuf seal() {
        frame.clear();
        sender.encrypt(0, body, frame);
        return frame;
    }

    /** Sealed, then opened where it lies (the receiver takes each nonce the sender gives). */
    @Benchmark
    public int sealAndOpen() throws ZmtpProtocolException {
        frame.clear();
        sender.encrypt(0, body, frame);
        int header = size + CurveFrameCipher.OVERHEAD < 256 ? 2 : 9;
        return receiver.openInPlace(frame, header + 8, frame.writerIndex() - header - 8);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        sender.close();
        receiver.close();
        body.release();
        frame.release();
    }
}
