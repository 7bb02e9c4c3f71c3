package io.zmtp.socket;

import io.zmtp.wire.ZmtpMessage;

/**
 * Receives a socket's messages on the socket's event loop. The handler owns each message and
 * must release it (or pass it on, to a send for instance). It must not block: it runs on the
 * thread that serves all of the socket's connections.
 */
@FunctionalInterface
public interface MessageHandler {
    void onMessage(ZmtpMessage message);
}
