package io.zmtp.socket;

import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpSubscription;

/**
 * What a peer's connection tells its socket: a {@link Pipe} came (its handshake completed) or
 * went, it brought a message or a subscription, or it has room again below its send high-water
 * mark. The connections' handlers and the pipes call these on the socket's event loop; the socket
 * ({@link ZmtpSocket}) implements them once, handing each to its type and to the paths that wait.
 */
interface PipeEvents {
    /** A peer completed its handshake: it joins the socket (or is closed, if the socket is closing). */
    void attach(Pipe pipe);

    /** A peer's connection closed. */
    void detach(Pipe pipe);

    /** A message from a peer (ownership passes); counted by the caller. */
    void received(Pipe pipe, ZmtpMessage msg);

    /** A SUBSCRIBE or CANCEL from a peer (ownership passes). */
    void subscriptionReceived(Pipe pipe, ZmtpSubscription sub);

    /** A pipe that was full has room again. */
    void roomAvailable(Pipe pipe);
}
