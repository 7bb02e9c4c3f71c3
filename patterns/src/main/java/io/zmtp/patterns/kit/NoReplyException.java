package io.zmtp.patterns.kit;

import java.time.Duration;

/** A request got no reply after its last try: the server seems to be offline. */
public final class NoReplyException extends RuntimeException {
    private final int tries;

    public NoReplyException(String endpoint, int tries, Duration timeout) {
        super("no reply from " + endpoint + " after " + tries + (tries == 1 ? " try" : " tries") + " of "
                + timeout.toMillis() + " ms");
        this.tries = tries;
    }

    /** How many times the request was sent. */
    public int tries() {
        return tries;
    }
}
