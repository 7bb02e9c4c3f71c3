package io.zmtp.security;

import io.netty.buffer.ByteBuf;
import org.bouncycastle.crypto.engines.Salsa20Engine;
import org.bouncycastle.crypto.engines.XSalsa20Engine;
import org.bouncycastle.crypto.macs.Poly1305;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;
import org.bouncycastle.math.ec.rfc7748.X25519;
import org.bouncycastle.util.Pack;

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
 * <p>An instance holds one reusable cipher engine and MAC and is used by one connection on its
 * event loop; it is not thread-safe. The static methods are.
 */
final class CryptoBox {
    static final int KEY_BYTES = 32;
    static final int NONCE_BYTES = 24;
    static final int MAC_BYTES = 16;

    private static final int[] HSALSA_WORDS = {0, 5, 10, 15, 6, 7, 8, 9};

    /** How many bytes of a buffer are processed at a time when it has no accessible array. */
    private static final int CHUNK = 4096;

    private final Engine engine = new Engine();
    private final Poly1305 mac = new Poly1305();
    /** The one-time Poly1305 key of the current box; BouncyCastle's KeyParameter keeps this array, not a copy. */
    private final KeyParameter polyKeyParameter = new KeyParameter(new byte[32]);
    private final byte[] polyKey = polyKeyParameter.getKey();
    private final byte[] tag = new byte[MAC_BYTES];
    private byte[] chunk;

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
        state[0] = 0x61707865;
        state[5] = 0x3320646e;
        state[10] = 0x79622d32;
        state[15] = 0x6b206574;
        Pack.littleEndianToInt(key, 0, state, 1, 4);
        Pack.littleEndianToInt(key, 16, state, 11, 4);
        Pack.littleEndianToInt(in16, 0, state, 6, 4);
        // salsaCore returns permutation(state) + state; HSalsa20 wants the permutation alone.
        Salsa20Engine.salsaCore(20, state, x);
        for (int i = 0; i < 8; i++) {
            Pack.intToLittleEndian(x[HSALSA_WORDS[i]] - state[HSALSA_WORDS[i]], out, 4 * i);
        }
        Arrays.fill(state, 0);
        Arrays.fill(x, 0);
    }

    // ------------------------------------------------------------------ arrays

    /**
     * Seals {@code len} bytes of {@code m} into {@code c} at {@code cOff}: tag, then ciphertext
     * ({@code len + 16} bytes). {@code m} and {@code c} must not overlap.
     */
    void seal(byte[] key, byte[] nonce, byte[] m, int mOff, int len, byte[] c, int cOff) {
        start(key, nonce);
        engine.processBytes(m, mOff, len, c, cOff + MAC_BYTES);
        mac.update(c, cOff + MAC_BYTES, len);
        mac.doFinal(c, cOff);
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
        start(key, nonce);
        mac.update(c, cOff + MAC_BYTES, boxLen - MAC_BYTES);
        mac.doFinal(tag, 0);
        if (!equal(tag, 0, c, cOff, MAC_BYTES)) {
            return false;
        }
        engine.processBytes(c, cOff + MAC_BYTES, boxLen - MAC_BYTES, m, mOff);
        return true;
    }

    // ------------------------------------------------------------------ buffers

    /**
     * Appends to {@code out} the box of one byte {@code first} followed by the readable bytes of
     * {@code body} (whose indexes do not change): tag, then ciphertext. The ciphertext is written
     * straight into {@code out}; nothing is allocated beyond a per-instance chunk buffer.
     */
    void seal(byte[] key, byte[] nonce, int first, ByteBuf body, ByteBuf out) {
        int len = body.readableBytes();
        out.ensureWritable(MAC_BYTES + 1 + len);
        start(key, nonce);
        int tagIndex = out.writerIndex();
        out.writerIndex(tagIndex + MAC_BYTES);
        byte[] buf = chunk();
        buf[0] = (byte) first;
        int filled = 1;
        int from = body.readerIndex();
        int end = from + len;
        for (;;) {
            int n = Math.min(CHUNK - filled, end - from);
            body.getBytes(from, buf, filled, n);
            from += n;
            int total = filled + n;
            engine.processBytes(buf, 0, total, buf, 0);
            mac.update(buf, 0, total);
            out.writeBytes(buf, 0, total);
            filled = 0;
            if (from == end) {
                break;
            }
        }
        mac.doFinal(tag, 0);
        out.setBytes(tagIndex, tag);
        Arrays.fill(buf, (byte) 0);
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
        start(key, nonce);
        byte[] buf = chunk();
        int from = index + MAC_BYTES;
        int end = index + length;
        while (from < end) {
            int n = Math.min(CHUNK, end - from);
            src.getBytes(from, buf, 0, n);
            mac.update(buf, 0, n);
            from += n;
        }
        mac.doFinal(tag, 0);
        src.getBytes(index, buf, 0, MAC_BYTES);
        if (!equal(tag, 0, buf, 0, MAC_BYTES)) {
            return false;
        }
        out.ensureWritable(length - MAC_BYTES);
        from = index + MAC_BYTES;
        while (from < end) {
            int n = Math.min(CHUNK, end - from);
            src.getBytes(from, buf, 0, n);
            engine.processBytes(buf, 0, n, buf, 0);
            out.writeBytes(buf, 0, n);
            from += n;
        }
        Arrays.fill(buf, (byte) 0);
        return true;
    }

    /** Overwrites the engine's key material. */
    void wipe() {
        engine.rekey(new byte[32], new byte[24]);
        engine.forget();
        Arrays.fill(polyKey, (byte) 0);
        if (chunk != null) {
            Arrays.fill(chunk, (byte) 0);
        }
    }

    // ------------------------------------------------------------------ internals

    private byte[] chunk() {
        if (chunk == null) {
            chunk = new byte[CHUNK];
        }
        return chunk;
    }

    /** Keys the stream cipher for one box and the MAC with the first 32 bytes of its key stream. */
    private void start(byte[] key, byte[] nonce) {
        engine.rekey(key, nonce);
        Arrays.fill(polyKey, (byte) 0);
        engine.processBytes(polyKey, 0, 32, polyKey, 0);
        mac.init(polyKeyParameter);              // Poly1305 reads the key; nothing is allocated
        Arrays.fill(polyKey, (byte) 0);
    }

    /** Compares without an early exit (tags must not leak how much of them matched). */
    static boolean equal(byte[] a, int aOff, byte[] b, int bOff, int len) {
        int diff = 0;
        for (int i = 0; i < len; i++) {
            diff |= a[aOff + i] ^ b[bOff + i];
        }
        return diff == 0;
    }

    /**
     * BouncyCastle's XSalsa20, re-keyed per box without going through {@code init} (which builds
     * parameter objects and runs the service-constraint check every time).
     *
     * <p>XSalsa20 first derives a Salsa20 key from the key and the nonce's first 16 bytes
     * (HSalsa20, one Salsa20 core), then runs Salsa20 with that key and the nonce's last 8 bytes.
     * A CURVE connection's MESSAGE boxes all share their key and their nonce's first 16 bytes
     * ({@code "CurveZMQMESSAGEC"} or {@code ...S}) and differ only in the 8-byte counter, so when
     * both are those of the previous box the derived key is kept and only the counter words are
     * set: one Salsa20 core less per message (of four for a 100-byte one).
     */
    private static final class Engine extends XSalsa20Engine {
        private final byte[] lastKey = new byte[32];
        private final byte[] lastPrefix = new byte[16];
        private boolean keyed;

        Engine() {
            init(true, new ParametersWithIV(new KeyParameter(new byte[32]), new byte[24]));
        }

        void rekey(byte[] key, byte[] nonce) {
            if (keyed && Arrays.equals(lastKey, 0, 32, key, 0, 32) && Arrays.equals(lastPrefix, 0, 16, nonce, 0, 16)) {
                engineState[6] = Pack.littleEndianToInt(nonce, 16);
                engineState[7] = Pack.littleEndianToInt(nonce, 20);
                reset();                         // block counter 0, no key stream buffered
                return;
            }
            setKey(key, nonce);
            reset();
            System.arraycopy(key, 0, lastKey, 0, 32);
            System.arraycopy(nonce, 0, lastPrefix, 0, 16);
            keyed = true;
        }

        /** Forgets the key copy kept for the next box. */
        void forget() {
            keyed = false;
            Arrays.fill(lastKey, (byte) 0);
        }
    }
}
