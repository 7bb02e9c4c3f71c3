package io.zmtp.patterns.majordomo;

/** A Majordomo request failed: no reply after every attempt, or the client closed. */
public class MajordomoException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MajordomoException(String message) {
        super(message);
    }

    public MajordomoException(String message, Throwable cause) {
        super(message, cause);
    }
}
