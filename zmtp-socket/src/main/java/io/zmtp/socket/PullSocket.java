package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

/** PULL: fair-queued in from PUSH peers; cannot send. */
public final class PullSocket extends ZmtpSocket {

    PullSocket(Setup setup) {
        super(setup, SocketType.PULL);
    }

    /** CONFLATE applies to this type, as in libzmq. */
    @Override
    boolean conflates() {
        return true;
    }

    @Override
    SendResult route(ZmtpMessage msg) {
        throw new UnsupportedOperationException("a PULL socket cannot send");
    }

    @Override
    boolean pipeAttached(Pipe pipe) {
        receiveFrom(pipe);
        return true;
    }

    @Override
    void pipeDetached(Pipe pipe) {
        stopReceivingFrom(pipe);
    }

    @Override
    void received(Pipe pipe, ZmtpMessage msg) {
        deliver(msg);
    }
}
