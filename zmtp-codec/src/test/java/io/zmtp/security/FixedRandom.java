package io.zmtp.security;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A predictable "secure" random for tests: the same seed gives the same transient keys and
 * nonces. Records what it handed out, in order.
 */
final class FixedRandom extends SecureRandom {
    private static final long serialVersionUID = 1L;

    private final transient Random random;
    final transient List<byte[]> handedOut = new ArrayList<>();

    FixedRandom(long seed) {
        this.random = new Random(seed);
    }

    @Override
    public synchronized void nextBytes(byte[] bytes) {
        random.nextBytes(bytes);
        handedOut.add(bytes.clone());
    }
}
