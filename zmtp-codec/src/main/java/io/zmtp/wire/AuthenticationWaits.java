package io.zmtp.wire;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The handshakes of one socket that wait at once for an authenticator's answer, and their bound.
 * A directory that answers slowly would otherwise let connections pile up behind it, each holding
 * a descriptor and its handshake state; past the bound a new handshake is refused at once with
 * ZAP status 300 (temporary failure: closed without ERROR, so the client retries later).
 *
 * <p>A socket gives all its connections one; a {@link ZmtpOptions} built without one gets its
 * own, shared by every channel that uses those options. Thread-safe (one atomic counter), since
 * raw options may serve channels of several event loops.
 */
public final class AuthenticationWaits {
    /** 1024 handshakes of one socket waiting for an authenticator at once. */
    public static final int DEFAULT_MAX = 1024;

    private final int max;
    private final AtomicInteger waiting = new AtomicInteger();

    /** A bound of {@code max} waiting handshakes (at least 1). */
    public AuthenticationWaits(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("the bound of waiting authentications must be at least 1");
        }
        this.max = max;
    }

    /** Takes a place for one more waiting handshake; false when all {@link #max()} are taken. */
    boolean tryEnter() {
        for (;;) {
            int n = waiting.get();
            if (n >= max) {
                return false;
            }
            if (waiting.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Gives back a place taken by {@link #tryEnter}. */
    void leave() {
        waiting.decrementAndGet();
    }

    /** Handshakes waiting now. */
    public int waiting() {
        return waiting.get();
    }

    public int max() {
        return max;
    }

    @Override
    public String toString() {
        return "AuthenticationWaits{" + waiting.get() + "/" + max + "}";
    }
}
