package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

/** DEALER: round-robin out over peers with room, fair-queued in; messages pass unchanged. */
public final class DealerSocket extends ZmtpSocket {
    private final LoadBalancer out = new LoadBalancer();

    DealerSocket(Setup setup) {
        super(setup, SocketType.DEALER);
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
        receiveFrom(pipe);
        probeRouter(pipe);
        return true;
    }

    @Override
    void pipeDetached(Pipe pipe) {
        out.detach(pipe);
        stopReceivingFrom(pipe);
    }

    @Override
    void received(Pipe pipe, ZmtpMessage msg) {
        deliver(msg);
    }
}
