package io.zmtp.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.bouncycastle.crypto.engines.Salsa20Engine;
import org.bouncycastle.crypto.macs.Poly1305;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.math.ec.rfc7748.X25519;
import org.bouncycastle.util.Pack;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * NaCl's {@code crypto_box} (Curve25519, XSalsa20, Poly1305) as CurveZMQ uses it, assembled from
 * BouncyCastle's primitives:
 * <ul>
 * <li>{@link #beforenm}: X25519 agreement, then HSalsa20 of the shared point with a zero nonce
 *     (built on BouncyCastle's Salsa20 core), the key every box between two key pairs uses;</li>
 * <li>{@link #seal}/{@link #open}: {@code crypto_secretbox} (also {@code crypto_box_afternm}):
 *     XSalsa20 with the key and 24-byte nonce; the first 32 bytes of its key stream are the
 *     one-time Poly1305 key, the rest encrypts. A box is the 16-byte tag then the ciphertext, as on
 *     CurveZMQ's wire (NaCl's zero padding is not carried).</li>
 * </ul>
 *
 * <p>The cryptographic cores are BouncyCastle's (the Salsa20 core, X25519, Poly1305); this class
 * only runs XSalsa20's counter over the core and XORs its key stream with the data eight bytes at
 * a time. BouncyCastle's {@code XSalsa20Engine} does the same a byte at a time, which measured
 * about 40 % of a 100-byte box's cost (benchmarks/RESULTS.md, "CURVE per message").
 *
 * <p>An instance holds the derived key, key stream and MAC of the box in hand, reused from box to
 * box, and is used by one connection on its event loop; it is not thread-safe. The static methods
 * are.
 */
final class CryptoBox {
    static final int KEY_BYTES = 32;
    static final int NONCE_BYTES = 24;
    static final int MAC_BYTES = 16;

    private static final int[] HSALSA_WORDS = {0, 5, 10, 15, 6, 7, 8, 9};

    /** {@link #seal(byte[], byte[], int, ByteBuf, ByteBuf)} without a byte before the body. */
    static final int NO_FIRST = -1;

    /** Salsa20's constants, "expand 32-byte k". */
    private static final int[] SIGMA = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    /** Key stream made at a time (four Salsa20 blocks), and the largest piece XORed with it. */
    private static final int STREAM = 256;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** Salsa20's input: constants, the derived key, the nonce's last 8 bytes, the block counter. */
    private final int[] input = new int[16];
    private final int[] output = new int[16];
    /** Key stream as little-endian longs (byte i is bits 8(i%8).. of long i/8). */
    private final long[] keyStream = new long[STREAM / 8];
    /** Byte positions in the key stream; a piece always starts at a multiple of 8. */
    private int keyStreamPos;
    private int keyStreamEnd;
    /** Bytes on their way between the buffers and the cipher. */
    private final byte[] piece = new byte[STREAM];
    /** The key and nonce prefix {@link #input}'s derived key belongs to. */
    private final byte[] lastKey = new byte[32];
    private final byte[] lastPrefix = new byte[16];
    private boolean keyed;
    private final Poly1305 mac = new Poly1305();
    /** The one-time Poly1305 key of the current box; BouncyCastle's KeyParameter keeps this array, not a copy. */
    private final KeyParameter polyKeyParameter = new KeyParameter(new byte[32]);
    private final byte[] polyKey = polyKeyParameter.getKey();
    private final byte[] tag = new byte[MAC_BYTES];

    // ------------------------------------------------------------------ keys

    /**
     * {@code crypto_box_beforenm}: the key of every box between the holder of {@code secretKey} and
     * the holder of the secret of {@code publicKey}, in either direction.
     *
     * @return false when the agreement is the all-zero point (a low-order public key), which NaCl
     *         implementations refuse; {@code out} is then zeroed
     */
    static boolean beforenm(byte[] out, byte[] publicKey, byte[] secretKey) {
        byte[] shared = new byte[32];
        try {
            if (!X25519.calculateAgreement(secretKey, 0, publicKey, 0, shared, 0)) {
                Arrays.fill(out, 0, 32, (byte) 0);
                return false;
            }
            hsalsa20(out, shared, new byte[16]);
            return true;
        } finally {
            Arrays.fill(shared, (byte) 0);
        }
    }

    /** The public key of a Curve25519 secret key ({@code crypto_scalarmult_base}). */
    static byte[] publicKey(byte[] secretKey) {
        byte[] pub = new byte[32];
        X25519.scalarMultBase(secretKey, 0, pub, 0);
        return pub;
    }

    /**
     * HSalsa20: the Salsa20 core applied to the key and a 16-byte input, keeping words 0, 5, 10,
     * 15, 6, 7, 8 and 9 of the permuted state (before the final addition).
     */
    static void hsalsa20(byte[] out, byte[] key, byte[] in16) {
        int[] state = new int[16];
        int[] x = new int[16];
        keyWords(state, key);
        Pack.littleEndianToInt(in16, 0, state, 6, 4);
        // salsaCore returns permutation(state) + state; HSalsa20 wants the permutation alone.
        Salsa20Engine.salsaCore(20, state, x);
        for (int i = 0; i < 8; i++) {
            Pack.intToLittleEndian(x[HSALSA_WORDS[i]] - state[HSALSA_WORDS[i]], out, 4 * i);
        }
        Arrays.fill(state, 0);
        Arrays.fill(x, 0);
    }

    /** Puts Salsa20's constants and a 32-byte key in their words of a Salsa20 input. */
    private static void keyWords(int[] state, byte[] key) {
        state[0] = SIGMA[0];
        state[5] = SIGMA[1];
        state[10] = SIGMA[2];
        state[15] = SIGMA[3];
        Pack.littleEndianToInt(key, 0, state, 1, 4);
        Pack.littleEndianToInt(key, 16, state, 11, 4);
    }

    // ------------------------------------------------------------------ arrays

    /**
     * Seals {@code len} bytes of {@code m} into {@code c} at {@code cOff}: tag, then ciphertext
     * ({@code len + 16} bytes). {@code m} and {@code c} must not overlap.
     */
    void seal(byte[] key, byte[] nonce, byte[] m, int mOff, int len, byte[] c, int cOff) {
        seal(key, nonce, NO_FIRST, Unpooled.wrappedBuffer(m, mOff, len),
                Unpooled.wrappedBuffer(c, cOff, len + MAC_BYTES).clear());
    }

    /**
     * Opens the box of {@code boxLen} bytes at {@code c[cOff]} into {@code m} at {@code mOff}
     * ({@code boxLen - 16} bytes), after checking its tag.
     *
     * @return false (and nothing written) when the box is shorter than a tag or fails authentication
     */
    boolean open(byte[] key, byte[] nonce, byte[] c, int cOff, int boxLen, byte[] m, int mOff) {
        if (boxLen < MAC_BYTES) {
            return false;
        }
        return open(key, nonce, Unpooled.wrappedBuffer(c), cOff, boxLen,
                Unpooled.wrappedBuffer(m, mOff, boxLen - MAC_BYTES).clear());
    }

    // ------------------------------------------------------------------ buffers

    /**
     * Appends to {@code out} the box of one byte {@code first} followed by the readable bytes of
     * {@code body} (whose indexes do not change): tag, then ciphertext. The ciphertext is written
     * straight into {@code out}, a piece of at most {@value #STREAM} bytes at a time; nothing is
     * allocated.
     *
     * @param first the byte before the body, or {@link #NO_FIRST} for none
     */
    void seal(byte[] key, byte[] nonce, int first, ByteBuf body, ByteBuf out) {
        seal(key, nonce, first, body, body.readerIndex(), body.readableBytes(), out);
    }

    /** The same for the {@code length} bytes of {@code src} at {@code index}. */
    void seal(byte[] key, byte[] nonce, int first, ByteBuf src, int index, int length, ByteBuf out) {
        int n = 0;                               // bytes already in the piece: the first byte, if any
        if (first != NO_FIRST) {
            piece[n++] = (byte) first;
        }
        out.ensureWritable(MAC_BYTES + n + length);
        start(key, nonce, n + length);
        int tagIndex = out.writerIndex();
        out.writerIndex(tagIndex + MAC_BYTES);
        int from = index;
        int end = index + length;
        do {
            int take = Math.min(room(end - from + n) - n, end - from);
            src.getBytes(from, piece, n, take);
            from += take;
            n += take;
            xorKeyStream(n);
            mac.update(piece, 0, n);
            out.writeBytes(piece, 0, n);
            n = 0;
        } while (from < end);
        mac.doFinal(tag, 0);
        out.setBytes(tagIndex, tag);
        finish();
    }

    /**
     * Opens the box of {@code length} bytes of {@code src} at {@code index} (indexes untouched),
     * appending the plaintext to {@code out}. The tag is checked before anything is decrypted.
     *
     * @return false (and nothing appended) when the box is shorter than a tag or fails authentication
     */
    boolean open(byte[] key, byte[] nonce, ByteBuf src, int index, int length, ByteBuf out) {
        if (length < MAC_BYTES) {
            return false;
        }
        int end = index + length;
        start(key, nonce, length - MAC_BYTES);
        for (int from = index + MAC_BYTES; from < end; ) {
            int n = Math.min(STREAM, end - from);
            src.getBytes(from, piece, 0, n);
            mac.update(piece, 0, n);
            from += n;
        }
        mac.doFinal(tag, 0);
        src.getBytes(index, piece, 0, MAC_BYTES);
        if (!equal(tag, 0, piece, 0, MAC_BYTES)) {
            finish();
            return false;
        }
        out.ensureWritable(length - MAC_BYTES);
        for (int from = index + MAC_BYTES; from < end; ) {
            int n = Math.min(room(end - from), end - from);
            src.getBytes(from, piece, 0, n);
            xorKeyStream(n);
            out.writeBytes(piece, 0, n);
            from += n;
        }
        finish();
        // The handshakes open their boxes this way and wipe what they opened (a cookie holds the
        // server's transient secret key): the piece's copy goes too.
        Arrays.fill(piece, 0, Math.min(length - MAC_BYTES, STREAM), (byte) 0);
        return true;
    }

    /**
     * Opens the box of {@code length} bytes of {@code buf} at {@code index} where it lies, in one
     * pass: its tag stays, its ciphertext is replaced by the plaintext ({@code length - 16} bytes
     * from {@code index + 16}). Nothing is copied out and nothing allocated.
     *
     * @return false when the box is shorter than a tag or fails authentication; the box's bytes
     *         are then neither ciphertext nor plaintext, and the caller must discard them
     */
    boolean openInPlace(byte[] key, byte[] nonce, ByteBuf buf, int index, int length) {
        if (length < MAC_BYTES) {
            return false;
        }
        int end = index + length;
        start(key, nonce, length - MAC_BYTES);
        for (int from = index + MAC_BYTES; from < end; ) {
            int n = Math.min(room(end - from), end - from);
            buf.getBytes(from, piece, 0, n);
            mac.update(piece, 0, n);
            xorKeyStream(n);
            buf.setBytes(from, piece, 0, n);
            from += n;
        }
        mac.doFinal(tag, 0);
        buf.getBytes(index, piece, 0, MAC_BYTES);
        boolean authentic = equal(tag, 0, piece, 0, MAC_BYTES);
        finish();
        return authentic;
    }

    /** Overwrites the key material: the derived key, the key stream, the last piece. */
    void wipe() {
        Arrays.fill(input, 0);
        Arrays.fill(lastKey, (byte) 0);
        keyed = false;
        Arrays.fill(polyKey, (byte) 0);
        finish();
        Arrays.fill(piece, (byte) 0);
    }

    // ------------------------------------------------------------------ internals

    /**
     * Sets the Salsa20 input for one box and keys the MAC with the first 32 bytes of its key stream.
     *
     * <p>XSalsa20 first derives a Salsa20 key from the key and the nonce's first 16 bytes
     * (HSalsa20, one Salsa20 core), then runs Salsa20 with that key and the nonce's last 8 bytes.
     * A CURVE connection's MESSAGE boxes all share their key and their nonce's first 16 bytes
     * ({@code "CurveZMQMESSAGEC"} or {@code ...S}) and differ only in the 8-byte counter, so when
     * both are those of the previous box the derived key is kept: one Salsa20 core less per
     * message (of four for a 100-byte one).
     *
     * @param length the bytes the box encrypts, so no more key stream is made than they need
     */
    private void start(byte[] key, byte[] nonce, int length) {
        if (!keyed || !Arrays.equals(lastKey, 0, 32, key, 0, 32) || !Arrays.equals(lastPrefix, 0, 16, nonce, 0, 16)) {
            byte[] derived = new byte[32];
            hsalsa20(derived, key, nonce);
            keyWords(input, derived);
            Arrays.fill(derived, (byte) 0);
            System.arraycopy(key, 0, lastKey, 0, 32);
            System.arraycopy(nonce, 0, lastPrefix, 0, 16);
            keyed = true;
        }
        input[6] = Pack.littleEndianToInt(nonce, 16);
        input[7] = Pack.littleEndianToInt(nonce, 20);
        input[8] = 0;                            // the block counter
        input[9] = 0;
        keyStreamEnd = 0;
        generate(32 + length);
        for (int i = 0; i < 4; i++) {
            LONGS.set(polyKey, 8 * i, keyStream[i]);
        }
        mac.init(polyKeyParameter);              // Poly1305 reads the key; nothing is allocated
        for (int i = 0; i < 4; i++) {
            LONGS.set(polyKey, 8 * i, 0L);
        }
        keyStreamPos = 32;
    }

    /**
     * How many of the {@code wanted} next bytes the key stream at hand covers, making more (as
     * much as {@code wanted} needs, up to {@value #STREAM} bytes) when it is used up.
     */
    private int room(int wanted) {
        if (keyStreamPos == keyStreamEnd) {
            generate(wanted);
        }
        return Math.min(wanted, keyStreamEnd - keyStreamPos);
    }

    /** Fills the key stream with the next blocks, enough for {@code bytes} or {@value #STREAM}. */
    private void generate(int bytes) {
        int blocks = Math.min(STREAM / 64, (bytes + 63) >>> 6);
        for (int b = 0; b < blocks; b++) {
            Salsa20Engine.salsaCore(20, input, output);
            for (int i = 0; i < 8; i++) {
                keyStream[8 * b + i] = (output[2 * i] & 0xFFFFFFFFL) | ((long) output[2 * i + 1] << 32);
            }
            if (++input[8] == 0) {
                input[9]++;
            }
        }
        keyStreamPos = 0;
        keyStreamEnd = 64 * blocks;
    }

    /**
     * XORs the first {@code n} bytes of the piece with the key stream, eight at a time. The key
     * stream position is a multiple of 8 here: a box's first piece starts at 32, every later one
     * at 0 (a piece ends where the key stream ends, or is the box's last).
     */
    private void xorKeyStream(int n) {
        int k = keyStreamPos >>> 3;
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            LONGS.set(piece, i, (long) LONGS.get(piece, i) ^ keyStream[k++]);
        }
        if (i < n) {
            long last = keyStream[k];
            for (; i < n; i++, last >>>= 8) {
                piece[i] ^= (byte) last;
            }
        }
        keyStreamPos += n;
    }

    /**
     * Forgets the box's key stream. The piece holds ciphertext after sealing, and after opening in
     * place a copy of what the caller's buffer holds anyway (a MESSAGE's plaintext), so it stays;
     * {@link #open} wipes it, and {@link #wipe} when the box is done with.
     */
    private void finish() {
        Arrays.fill(output, 0);
        Arrays.fill(keyStream, 0, (keyStreamEnd + 7) >>> 3, 0L);
        keyStreamPos = keyStreamEnd = 0;
    }

    /** Compares without an early exit (tags must not leak how much of them matched). */
    static boolean equal(byte[] a, int aOff, byte[] b, int bOff, int len) {
        int diff = 0;
        for (int i = 0; i < len; i++) {
            diff |= a[aOff + i] ^ b[bOff + i];
        }
        return diff == 0;
    }
}
