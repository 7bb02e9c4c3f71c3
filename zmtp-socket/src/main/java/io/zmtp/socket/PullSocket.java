package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

/**
 * PULL: fair-queued in from PUSH peers; cannot send. GATHER is this type with single-frame
 * messages ({@link GatherSocket}).
 */
public class PullSocket extends ZmtpSocket {

    PullSocket(Setup setup) {
        this(setup, SocketType.PULL);
    }

    /** PULL or its single-frame cousin GATHER. */
    PullSocket(Setup setup, SocketType type) {
        super(setup, type);
    }

    /** CONFLATE applies to this type, as in libzmq (not to GATHER). */
    @Override
    boolean conflates() {
        return true;
    }

    @Override
    final SendResult route(ZmtpMessage msg) {
        throw new UnsupportedOperationException("a " + type() + " socket cannot send");
    }

    @Override
    final boolean pipeAttached(Pipe pipe) {
        receiveFrom(pipe);
        return true;
    }

    @Override
    final void pipeDetached(Pipe pipe) {
        stopReceivingFrom(pipe);
    }

    @Override
    final void received(Pipe pipe, ZmtpMessage msg) {
        deliver(msg);
    }
}
