package io.zmtp.socket;

import io.netty.channel.EventLoop;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

/** PULL: fair-queued in from PUSH peers; cannot send. */
public final class PullSocket extends ZmtpSocket {

    PullSocket(ZmtpContext context, SocketOptions options, EventLoop loop) {
        super(context, SocketType.PULL, options, loop);
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
