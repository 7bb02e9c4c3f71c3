package io.zmtp.security;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The system's libsodium, when it can be had: its {@code crypto_secretbox} (XSalsa20-Poly1305,
 * the box CurveZMQ's MESSAGE commands use) called through JNA on memory addresses. For large
 * boxes it is faster than {@link CryptoBox} over BouncyCastle (libsodium's Salsa20 uses SIMD
 * instructions), a 1 KiB frame sealed and opened about 2.3 times; for small ones the call itself
 * costs what it saves, so {@link LibsodiumBox} takes only frames of at least {@link #FROM} bytes.
 *
 * <p>Optional: used when JNA is on the class path (it is an optional dependency of zmtp-codec),
 * a libsodium library loads, and the system property {@value #PROPERTY} is not {@code false}.
 * Otherwise every box is {@link CryptoBox}'s, which is the same box byte for byte.
 */
final class Libsodium {
    private static final Logger LOG = LoggerFactory.getLogger(Libsodium.class);

    /** {@code false} turns libsodium off; anything else (or nothing) uses it when it loads. */
    static final String PROPERTY = "zmtp.curve.libsodium";
    /** The smallest frame body that goes through libsodium, in bytes. */
    static final String FROM_PROPERTY = "zmtp.curve.libsodiumFrom";
    /**
     * Where libsodium 1.0.18 overtook BouncyCastle 1.87 on a 2-core EPYC: level at about 128 bytes,
     * a frame sealed and opened in 22 % less time at 256 and 45 % less at 512
     * ({@code CurveFrameCipherBenchmark}; benchmarks/RESULTS.md, "Fifth step: libsodium for frames
     * of 256 bytes and more").
     */
    static final int DEFAULT_FROM = 256;
    static final int FROM = Math.max(0, Integer.getInteger(FROM_PROPERTY, DEFAULT_FROM));

    /** Names to load it by: the development link, then the sonames of Debian's releases. */
    private static final String[] NAMES = {"sodium", "libsodium.so.23", "libsodium.so.26"};

    private static final String UNAVAILABLE_BECAUSE;

    static {
        String why = null;
        if ("false".equalsIgnoreCase(System.getProperty(PROPERTY, ""))) {
            why = PROPERTY + "=false";
        } else {
            try {
                why = register();
            } catch (LinkageError e) {
                // JNA not on the class path, or its own native part does not load here
                why = "JNA is not available (" + e + ")";
            }
        }
        UNAVAILABLE_BECAUSE = why;
        if (why == null) {
            LOG.debug("CURVE boxes of {} bytes and more use libsodium", FROM);
        } else {
            LOG.debug("CURVE boxes use BouncyCastle only: {}", why);
        }
    }

    private Libsodium() {
    }

    /** Binds the natives below to the first library that loads; null when it did, else why not. */
    private static String register() {
        String last = "no libsodium found";
        for (String name : NAMES) {
            NativeLibrary lib;
            try {
                lib = NativeLibrary.getInstance(name);
            } catch (UnsatisfiedLinkError e) {
                last = "libsodium did not load (" + e.getMessage() + ")";
                continue;
            }
            Native.register(Libsodium.class, lib);
            return sodium_init() >= 0 ? null : "sodium_init failed";
        }
        return last;
    }

    /** Whether the natives are bound and libsodium initialised. */
    static boolean available() {
        return UNAVAILABLE_BECAUSE == null;
    }

    /** Why libsodium is not used, or null when it is. */
    static String unavailableBecause() {
        return UNAVAILABLE_BECAUSE;
    }

    private static native int sodium_init();

    /**
     * {@code crypto_secretbox_detached}: seals {@code mlen} bytes at {@code m} into {@code c} (which
     * may be {@code m}: in place) and the 16-byte tag at {@code mac}, with the 24-byte nonce at
     * {@code n} and the 32-byte key at {@code k}. Returns 0.
     */
    static native int crypto_secretbox_detached(long c, long mac, long m, long mlen, long n, long k);

    /**
     * {@code crypto_secretbox_open_detached}: checks the tag at {@code mac} over the {@code clen}
     * bytes at {@code c}, and only when it matches decrypts them into {@code m} (which may be
     * {@code c}). Returns 0, or -1 for a forged box, with nothing written.
     */
    static native int crypto_secretbox_open_detached(long m, long c, long mac, long clen, long n, long k);
}
