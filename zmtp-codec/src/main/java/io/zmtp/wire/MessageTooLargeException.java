package io.zmtp.wire;

/**
 * A peer sent a message larger than the connection takes: past {@link ZmtpOptions#maxMessageSize()},
 * or past the socket's whole inbound budget. The connection is closed (its
 * {@link ConnectionFailed.Kind#MESSAGE_TOO_LARGE} failure says so to the socket, which counts it),
 * and the message is lost: the peer reconnects and goes on with its next ones.
 */
public final class MessageTooLargeException extends ZmtpProtocolException {
    private static final long serialVersionUID = 1L;

    public MessageTooLargeException(String message) {
        super(message);
    }
}
