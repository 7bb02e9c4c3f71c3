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

    /**
     * A handler that gives {@code receiver} each message as byte-array {@link io.zmtp.wire.Frames}
     * (each frame copied once) and releases the message itself: the garbage-collected form, for a
     * receiver that should not count references. Reply with {@code socket.send(frames.toMessage())}.
     */
    static MessageHandler ofFrames(java.util.function.Consumer<io.zmtp.wire.Frames> receiver) {
        return message -> receiver.accept(io.zmtp.wire.Frames.takeFrom(message));
    }
}
