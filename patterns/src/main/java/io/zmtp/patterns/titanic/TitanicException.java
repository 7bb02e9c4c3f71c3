package io.zmtp.patterns.titanic;

/**
 * A Titanic call that did not succeed: the server answered 400 (do not retry) or 500 (retry
 * later), its answer was malformed, or no answer came from the broker (the cause).
 */
public final class TitanicException extends RuntimeException {
    private final TitanicStatus status;

    public TitanicException(String message, TitanicStatus status) {
        super(message);
        this.status = status;
    }

    public TitanicException(String message, TitanicStatus status, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    /** The status the server answered, or null when there was no (valid) answer. */
    public TitanicStatus status() {
        return status;
    }

    /** Whether the same call may succeed later: 500, or no answer at all; never 400. */
    public boolean retryable() {
        return status != TitanicStatus.UNKNOWN;
    }
}
