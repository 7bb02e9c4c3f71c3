package io.zmtp.security;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * The CURVE server's cookie keys K, shared by all connections of one server mechanism (so the
 * server needs no per-client state between WELCOME and INITIATE).
 *
 * <p>A key seals cookies for one {@code lifetime} (60 s by default) after it is made; the next
 * WELCOME after that makes a new one. A key keeps opening cookies for another {@code lifetime}
 * after it stopped sealing, so every cookie stays valid for at least {@code lifetime}; past that a
 * key is never used again, and it is overwritten when the next key is made. Thread-safe: any
 * event loop may call it.
 */
final class CookieKeys {
    static final long DEFAULT_LIFETIME_NANOS = 60_000_000_000L;

    private final SecureRandom random;
    private final LongSupplier nanoClock;
    private final long lifetime;

    private Key current;
    private Key previous;

    /** One cookie key and when it was made. */
    static final class Key {
        final byte[] bytes;
        final long created;

        Key(byte[] bytes, long created) {
            this.bytes = bytes;
            this.created = created;
        }
    }

    CookieKeys(SecureRandom random, LongSupplier nanoClock, long lifetimeNanos) {
        if (lifetimeNanos <= 0) {
            throw new IllegalArgumentException("cookie key lifetime must be positive");
        }
        this.random = random;
        this.nanoClock = nanoClock;
        this.lifetime = lifetimeNanos;
    }

    /** The key to seal a new cookie with, making a new one when the current one is too old. */
    synchronized Key sealingKey() {
        long now = nanoClock.getAsLong();
        if (current == null || now - current.created >= lifetime) {
            Key old = previous;
            previous = current != null && now - current.created < 2 * lifetime ? current : null;
            if (old != null && old != previous) {
                Arrays.fill(old.bytes, (byte) 0);
            }
            if (previous == null && current != null) {
                Arrays.fill(current.bytes, (byte) 0);
            }
            byte[] k = new byte[CryptoBox.KEY_BYTES];
            random.nextBytes(k);
            current = new Key(k, now);
        }
        return current;
    }

    /**
     * The keys a cookie may still be opened with, newest first (one or two; none when every key has
     * expired). The caller copies nothing and must not keep them.
     */
    synchronized Key[] openingKeys() {
        long now = nanoClock.getAsLong();
        Key c = current != null && now - current.created < 2 * lifetime ? current : null;
        Key p = previous != null && now - previous.created < 2 * lifetime ? previous : null;
        if (c == null) {
            return new Key[0];
        }
        return p == null ? new Key[] {c} : new Key[] {c, p};
    }
}
