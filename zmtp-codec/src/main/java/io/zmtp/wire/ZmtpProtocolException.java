package io.zmtp.wire;

/**
 * A peer broke the protocol: a malformed greeting, frame, command or handshake. The connection
 * it arrived on is closed; no other connection is affected.
 */
public class ZmtpProtocolException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String errorReason;
    private final boolean fatal;

    /** A violation that closes the connection without sending ZMTP ERROR. */
    public ZmtpProtocolException(String message) {
        this(message, null);
    }

    /**
     * A violation answered with a ZMTP ERROR command carrying {@code errorReason}
     * (at most 255 ASCII characters) before the connection closes.
     */
    public ZmtpProtocolException(String message, String errorReason) {
        this(message, errorReason, false);
    }

    /**
     * As {@link #ZmtpProtocolException(String, String)}; {@code fatal} says that reconnecting
     * with the same settings cannot succeed (the socket types cannot talk).
     */
    public ZmtpProtocolException(String message, String errorReason, boolean fatal) {
        super(message, null, false, false);
        this.errorReason = errorReason;
        this.fatal = fatal;
    }

    /** Whether reconnecting with the same settings is pointless. */
    public boolean isFatal() {
        return fatal;
    }

    /** The reason to send in a ZMTP ERROR command, or null to close without one. */
    public String errorReason() {
        return errorReason;
    }
}
