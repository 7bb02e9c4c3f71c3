package io.zmtp.patterns.kit;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link RetryingRequester} retries: each try waits {@code timeout} for the reply; after
 * {@code tries} tries without one the request fails. The guide's Lazy Pirate and Majordomo
 * clients: 2500 ms, 3 tries ({@link #DEFAULT}).
 *
 * @param timeout how long one try waits for the reply (REQUEST_TIMEOUT), positive
 * @param tries how many times a request is sent before it fails (REQUEST_RETRIES), at least 1
 * @param maxWaiting requests that may wait behind those in flight before new ones are refused
 * @param resendOnDisconnect whether a lost connection during a try opens a new socket and
 *        resends at once, within the same try (no try is used up, the try's timeout keeps
 *        running); off: the try simply times out
 * @param window how many requests may be in flight at once (1: the guide's one at a time, any
 *        socket type; more needs a socket that does not enforce send/receive turns, a DEALER, and
 *        replies that name what they answer: see {@link ReplyJudge.Verdict#done(Object, Object)})
 */
public record RetryPolicy(Duration timeout, int tries, int maxWaiting, boolean resendOnDisconnect, int window) {
    /** 2500 ms, 3 tries, 1000 waiting, no resend on disconnect, one in flight. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(Duration.ofMillis(2500), 3, 1000, false);

    /** One request in flight at a time. */
    public RetryPolicy(Duration timeout, int tries, int maxWaiting, boolean resendOnDisconnect) {
        this(timeout, tries, maxWaiting, resendOnDisconnect, 1);
    }

    public RetryPolicy {
        Objects.requireNonNull(timeout);
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive");
        }
        if (tries < 1) {
            throw new IllegalArgumentException("tries must be at least 1");
        }
        if (maxWaiting < 1) {
            throw new IllegalArgumentException("maxWaiting must be at least 1");
        }
        if (window < 1) {
            throw new IllegalArgumentException("window must be at least 1");
        }
    }

    public RetryPolicy withTimeout(Duration d) {
        return new RetryPolicy(d, tries, maxWaiting, resendOnDisconnect, window);
    }

    public RetryPolicy withTries(int n) {
        return new RetryPolicy(timeout, n, maxWaiting, resendOnDisconnect, window);
    }

    public RetryPolicy withMaxWaiting(int n) {
        return new RetryPolicy(timeout, tries, n, resendOnDisconnect, window);
    }

    public RetryPolicy withResendOnDisconnect(boolean on) {
        return new RetryPolicy(timeout, tries, maxWaiting, on, window);
    }

    public RetryPolicy withWindow(int n) {
        return new RetryPolicy(timeout, tries, maxWaiting, resendOnDisconnect, n);
    }
}
