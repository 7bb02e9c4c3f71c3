package io.zmtp.socket;

import io.zmtp.wire.SocketType;

/**
 * SCATTER (RFC 49): round-robin out to its GATHERs with room; never receives: a PUSH whose
 * messages are single frames, and which CONFLATE leaves alone, as in libzmq. The single-frame
 * rule is the eight thread-safe types' one ({@link SendPath#checkFrameCount}).
 */
public final class ScatterSocket extends PushSocket {
    ScatterSocket(Setup setup) {
        super(setup, SocketType.SCATTER);
    }

    /** CONFLATE does not apply to this type, as in libzmq. */
    @Override
    boolean conflates() {
        return false;
    }
}
