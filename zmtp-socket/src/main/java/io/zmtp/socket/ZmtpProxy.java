package io.zmtp.socket;

import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards messages between two sockets in both directions, as zmq_proxy: ROUTER-DEALER for a
 * request-reply broker, XSUB-XPUB for a pub-sub forwarder (subscriptions flow back up),
 * PULL-PUSH for a pipeline. Both sockets must share one event loop, so forwarding takes no lock
 * and no thread hop. When the receiving side is at its high-water mark, reading from the
 * sending side pauses until it has room (back-pressure end to end).
 */
public final class ZmtpProxy {
    private static final Logger log = LoggerFactory.getLogger(ZmtpProxy.class);

    private ZmtpProxy() {
    }

    /** Starts forwarding; it lasts until either socket closes. */
    public static void start(ZmtpSocket frontend, ZmtpSocket backend) {
        if (frontend.eventLoop() != backend.eventLoop()) {
            throw new IllegalArgumentException("a proxy's sockets must share an event loop");
        }
        frontend.onMessage(m -> forward(frontend, backend, m));
        backend.onMessage(m -> forward(backend, frontend, m));
    }

    private static void forward(ZmtpSocket from, ZmtpSocket to, ZmtpMessage m) {
        if (to.isClosing()) {
            m.release();
            return;
        }
        try {
            if (to.trySend(m)) {
                return;
            }
        } catch (RuntimeException e) {
            log.debug("proxy {} -> {} dropped a message: {}", from, to, e.getMessage());
            m.release();
            return;
        }
        from.pauseReceiving();
        to.send(m).addListener(f -> from.resumeReceiving());
    }
}
