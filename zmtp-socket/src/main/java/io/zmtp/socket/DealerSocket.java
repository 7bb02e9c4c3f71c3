package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

/**
 * DEALER: round-robin out over peers with room, fair-queued in; messages pass unchanged. CLIENT
 * is this type with single-frame messages ({@link ClientSocket}).
 */
public class DealerSocket extends ZmtpSocket {
    private final LoadBalancer out = new LoadBalancer();

    DealerSocket(Setup setup) {
        this(setup, SocketType.DEALER);
    }

    /** DEALER or its single-frame cousin CLIENT. */
    DealerSocket(Setup setup, SocketType type) {
        super(setup, type);
    }

    /** CONFLATE applies to this type, as in libzmq (not to CLIENT). */
    @Override
    boolean conflates() {
        return true;
    }

    @Override
    final SendResult route(ZmtpMessage msg) {
        Pipe p = out.select();
        if (p == null) {
            return SendResult.WOULD_BLOCK;
        }
        p.write(msg);
        return SendResult.SENT;
    }

    @Override
    final boolean pipeAttached(Pipe pipe) {
        out.attach(pipe);
        receiveFrom(pipe);
        probeRouter(pipe);
        return true;
    }

    @Override
    final void pipeDetached(Pipe pipe) {
        out.detach(pipe);
        stopReceivingFrom(pipe);
    }

    @Override
    final void received(Pipe pipe, ZmtpMessage msg) {
        deliver(msg);
    }
}
