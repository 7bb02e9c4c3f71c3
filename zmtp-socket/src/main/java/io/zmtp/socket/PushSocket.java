package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

/** PUSH: round-robin out over PULL peers with room; never receives. */
public final class PushSocket extends ZmtpSocket {
    private final LoadBalancer out = new LoadBalancer();

    PushSocket(Setup setup) {
        super(setup, SocketType.PUSH);
    }

    /** CONFLATE applies to this type, as in libzmq. */
    @Override
    boolean conflates() {
        return true;
    }

    @Override
    SendResult route(ZmtpMessage msg) {
        Pipe p = out.select();
        if (p == null) {
            return SendResult.WOULD_BLOCK;
        }
        p.write(msg);
        return SendResult.SENT;
    }

    @Override
    boolean pipeAttached(Pipe pipe) {
        out.attach(pipe);
        return true;
    }

    @Override
    void pipeDetached(Pipe pipe) {
        out.detach(pipe);
    }

    @Override
    void received(Pipe pipe, ZmtpMessage msg) {
        msg.release();
    }
}
