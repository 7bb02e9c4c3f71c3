package io.zmtp.socket;

/** A ROUTER with the mandatory option was asked to send to a routing id it does not know. */
public final class UnroutableMessageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UnroutableMessageException(String message) {
        super(message, null, false, false);
    }
}
