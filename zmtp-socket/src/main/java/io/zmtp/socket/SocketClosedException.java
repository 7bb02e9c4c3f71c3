package io.zmtp.socket;

/** The socket was closed (or is closing) before the operation could complete. */
public final class SocketClosedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public SocketClosedException(String message) {
        super(message);
    }
}
