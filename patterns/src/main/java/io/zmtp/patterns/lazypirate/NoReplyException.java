package io.zmtp.patterns.lazypirate;

import java.time.Duration;

/** A Lazy Pirate request got no reply after its last try: the server seems to be offline. */
public final class NoReplyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String endpoint;
    private final int tries;
    private final Duration timeout;

    public NoReplyException(String endpoint, int tries, Duration timeout) {
        super("no reply from " + endpoint + " after " + tries + (tries == 1 ? " try" : " tries") + " of "
                + timeout.toMillis() + " ms: the server seems to be offline");
        this.endpoint = endpoint;
        this.tries = tries;
        this.timeout = timeout;
    }

    public String endpoint() {
        return endpoint;
    }

    /** How many times the request was sent. */
    public int tries() {
        return tries;
    }

    /** How long each try waited. */
    public Duration timeout() {
        return timeout;
    }
}
