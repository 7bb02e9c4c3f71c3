package io.zmtp.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.bouncycastle.crypto.engines.Salsa20Engine;
import org.bouncycastle.crypto.macs.Poly1305;
import org.bouncycastle.crypto.params.KeyParameter;
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
 * One CURVE MESSAGE box alone, as a connection seals and opens them: a flags byte and a
 * {@code size}-byte body sealed into a direct buffer, and a sealed box opened where it lies, with
 * one connection's key and nonce prefix (the derived key kept) and a new short nonce each time. In
 * the library's package ({@code CryptoBox} is package-private):
 * {@code java -jar benchmarks/target/benchmarks.jar CryptoBoxBenchmark}. {@link #seal} and
 * {@link #open} use methods every version of {@code CryptoBox} has, so they compare versions.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
public class CryptoBoxBenchmark {
    @Param({"100", "1024"})
    int size;

    private final CryptoBox box = new CryptoBox();
    private final byte[] key = new byte[CryptoBox.KEY_BYTES];
    private final byte[] nonce = CurveLayout.nonce(CurveLayout.MESSAGE_C_NONCE, 0);
    private final byte[] openNonce = nonce.clone();
    private ByteBuf body;
    private ByteBuf sealed;
    private ByteBuf sealedCopy;
    private ByteBuf opened;
    private long counter;
    /** {@link #primitives}' own: BouncyCastle's Salsa20 input and output, MAC, flags byte and body. */
    private final int[] salsaInput = new int[16];
    private final int[] salsaOutput = new int[16];
    private final Poly1305 poly = new Poly1305();
    private final KeyParameter polyKey = new KeyParameter(new byte[32]);
    private final byte[] tag = new byte[16];
    private byte[] plain;

    @Setup(Level.Trial)
    public void setUp() {
        key[0] = 7;
        body = PooledByteBufAllocator.DEFAULT.directBuffer(size).writeZero(size);
        sealed = PooledByteBufAllocator.DEFAULT.directBuffer(size + 64);
        box.seal(key, openNonce, 0, body, sealed);
        sealedCopy = sealed.copy();
        opened = PooledByteBufAllocator.DEFAULT.directBuffer(size + 64);
        plain = new byte[1 + size];
    }

    @Benchmark
    public ByteBuf seal() {
        CurveLayout.putLong(nonce, 16, ++counter);
        sealed.clear();
        box.seal(key, nonce, 0, body, sealed);
        return sealed;
    }

    /** Opens the same box into another buffer (as for handshake commands; every version of {@code CryptoBox} has it). */
    @Benchmark
    public boolean open() {
        opened.clear();
        return box.open(key, openNonce, sealedCopy, 0, sealedCopy.readableBytes(), opened);
    }

    /** Opens the same box where it lies, as a MESSAGE is (copied back first: opening in place overwrites it). */
    @Benchmark
    public boolean openInPlace() {
        opened.clear().writeBytes(sealedCopy, 0, sealedCopy.readableBytes());
        return box.openInPlace(key, openNonce, opened, 0, sealedCopy.readableBytes());
    }

    /**
     * The floor under {@link #seal} and {@link #openInPlace}: BouncyCastle's primitives alone, as
     * much of them as one box of this size needs (a Salsa20 core per 64 bytes of key stream, the
     * one-time key's 32 included; Poly1305 keyed, over the flags byte and body, finished). What
     * {@code CryptoBox} costs above this is its own.
     */
    @Benchmark
    public byte[] primitives() {
        int cores = (32 + 1 + size + 63) / 64;
        for (int b = 0; b < cores; b++) {
            salsaInput[8] = b;
            Salsa20Engine.salsaCore(20, salsaInput, salsaOutput);
        }
        poly.init(polyKey);
        poly.update(plain, 0, plain.length);
        poly.doFinal(tag, 0);
        return tag;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        body.release();
        sealed.release();
        sealedCopy.release();
        opened.release();
    }
}
