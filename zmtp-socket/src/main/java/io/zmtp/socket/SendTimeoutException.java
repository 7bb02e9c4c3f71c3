package io.zmtp.socket;

/** A send waited at the high-water mark for longer than the socket's send timeout. */
public final class SendTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SendTimeoutException(String message) {
        super(message, null, false, false);
    }
}
