package io.zmtp.socket;

import io.zmtp.wire.SocketType;

/**
 * CLIENT (RFC 41): round-robin out to its SERVERs with room, fair-queued in: a DEALER whose
 * messages are single frames, which CONFLATE and ZMQ_PROBE_ROUTER leave alone, as in libzmq. The
 * single-frame rule is the eight thread-safe types' one ({@link SendPath#checkFrameCount},
 * {@link ReceivePath#dropsMultipart}).
 */
public final class ClientSocket extends DealerSocket {
    ClientSocket(Setup setup) {
        super(setup, SocketType.CLIENT);
    }

    /** CONFLATE does not apply to this type, as in libzmq. */
    @Override
    boolean conflates() {
        return false;
    }
}
