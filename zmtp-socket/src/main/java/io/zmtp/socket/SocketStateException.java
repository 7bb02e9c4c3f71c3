package io.zmtp.socket;

/**
 * The socket type's state forbids the operation now, as libzmq's EFSM: a REQ sending a second
 * request before it received the reply to the first, a REP sending when it has no request to
 * answer. Nothing was sent and the socket is unchanged; the caller still decides what to do with
 * the message (a failed {@link ZmtpSocket#send} future has released it).
 */
public final class SocketStateException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public SocketStateException(String message) {
        super(message);
    }
}
