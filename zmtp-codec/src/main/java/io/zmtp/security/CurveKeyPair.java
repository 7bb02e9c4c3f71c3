package io.zmtp.security;

import org.bouncycastle.math.ec.rfc7748.X25519;

import java.security.SecureRandom;
import java.util.Arrays;

/**
 * A long-term CURVE key pair: a Curve25519 public key and its secret key, 32 bytes each (40 Z85
 * characters), interchangeable with libzmq's {@code zmq_curve_keypair} and {@code zmq_curve_public}.
 *
 * <p>The secret key never appears in {@link #toString}; {@link #secretKey} hands out a copy.
 * To store keys, see {@link CurveCertificate}.
 */
public final class CurveKeyPair {
    /** Key size in bytes. */
    public static final int KEY_BYTES = 32;

    static final SecureRandom DEFAULT_RANDOM = new SecureRandom();

    private final byte[] publicKey;
    private final byte[] secretKey;

    private CurveKeyPair(byte[] publicKey, byte[] secretKey) {
        this.publicKey = publicKey;
        this.secretKey = secretKey;
    }

    /** A new random key pair. */
    public static CurveKeyPair generate() {
        return generate(DEFAULT_RANDOM);
    }

    /** A new key pair from {@code random}. */
    public static CurveKeyPair generate(SecureRandom random) {
        byte[] secret = new byte[KEY_BYTES];
        X25519.generatePrivateKey(random, secret);
        return new CurveKeyPair(CryptoBox.publicKey(secret), secret);
    }

    /** The key pair of a 32-byte secret key (its public key is derived from it). */
    public static CurveKeyPair fromSecretKey(byte[] secretKey) {
        checkKey(secretKey, "secret key");
        byte[] secret = secretKey.clone();
        return new CurveKeyPair(CryptoBox.publicKey(secret), secret);
    }

    /** The key pair of a secret key in Z85 (40 characters). */
    public static CurveKeyPair fromSecretKey(String secretKeyZ85) {
        byte[] secret = decodeKey(secretKeyZ85, "secret key");
        try {
            return fromSecretKey(secret);
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
    }

    /**
     * A key pair from both halves.
     *
     * @throws IllegalArgumentException when {@code publicKey} is not the public key of {@code secretKey}
     */
    public static CurveKeyPair of(byte[] publicKey, byte[] secretKey) {
        checkKey(publicKey, "public key");
        CurveKeyPair pair = fromSecretKey(secretKey);
        if (!Arrays.equals(pair.publicKey, publicKey)) {
            throw new IllegalArgumentException("the public key does not belong to the secret key");
        }
        return pair;
    }

    /** A copy of the public key. */
    public byte[] publicKey() {
        return publicKey.clone();
    }

    public String publicKeyZ85() {
        return Z85.encode(publicKey);
    }

    /** A copy of the secret key: keep it out of logs. */
    public byte[] secretKey() {
        return secretKey.clone();
    }

    /** The secret key in Z85: keep it out of logs. */
    public String secretKeyZ85() {
        return Z85.encode(secretKey);
    }

    /** The arrays themselves, for this package (not to be modified). */
    byte[] publicKeyBytes() {
        return publicKey;
    }

    byte[] secretKeyBytes() {
        return secretKey;
    }

    /** Decodes a 32-byte key given as 40 Z85 characters. */
    static byte[] decodeKey(String z85, String what) {
        if (z85 == null || z85.length() != 40) {
            throw new IllegalArgumentException("a CURVE " + what + " is 40 Z85 characters");
        }
        try {
            return Z85.decode(z85);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the CURVE " + what + " is not valid Z85: " + e.getMessage());
        }
    }

    static void checkKey(byte[] key, String what) {
        if (key == null || key.length != KEY_BYTES) {
            throw new IllegalArgumentException("a CURVE " + what + " is " + KEY_BYTES + " bytes");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CurveKeyPair && Arrays.equals(((CurveKeyPair) o).publicKey, publicKey);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(publicKey);
    }

    /** Shows the public key only. */
    @Override
    public String toString() {
        return "CurveKeyPair{public=" + publicKeyZ85() + "}";
    }
}
