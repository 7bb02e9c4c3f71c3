package io.zmtp.socket;

import io.zmtp.wire.SocketType;

/**
 * GATHER (RFC 49): fair-queued in from its SCATTERs; cannot send: a PULL whose messages are
 * single frames, and which CONFLATE leaves alone, as in libzmq. A multipart message from a peer
 * is dropped and counted ({@link ReceivePath#dropsMultipart}).
 */
public final class GatherSocket extends PullSocket {
    GatherSocket(Setup setup) {
        super(setup, SocketType.GATHER);
    }

    /** CONFLATE does not apply to this type, as in libzmq. */
    @Override
    boolean conflates() {
        return false;
    }
}
