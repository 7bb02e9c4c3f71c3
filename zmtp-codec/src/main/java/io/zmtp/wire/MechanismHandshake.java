package io.zmtp.wire;


/**
 * The mechanism's side of one connection's handshake. All calls happen on the connection's event
 * loop. The handshake sends commands and ends through its {@link HandshakeSession}.
 *
 * <p>An ERROR command from the peer is handled by the codec (it is fatal whatever the mechanism)
 * and never reaches {@link #onCommand}.
 */
public interface MechanismHandshake {

    /** Called once, after the greetings: the client or a symmetric mechanism sends its first command. */
    void start() throws ZmtpProtocolException;

    /**
     * A handshake command from the peer. The command is released by the caller after this returns;
     * retain what must outlive the call.
     *
     * @throws ZmtpProtocolException on a malformed or unexpected command: the connection closes,
     *         with ZMTP ERROR when the exception carries an error reason
     */
    void onCommand(ZmtpCommand command) throws ZmtpProtocolException;

    /** The connection closed (during or after the handshake): forget secrets and release buffers. */
    default void close() {
    }
}
