package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

/**
 * PUSH: round-robin out over PULL peers with room; never receives. SCATTER is this type with
 * single-frame messages ({@link ScatterSocket}).
 */
public class PushSocket extends ZmtpSocket {
    private final LoadBalancer out = new LoadBalancer();

    PushSocket(Setup setup) {
        this(setup, SocketType.PUSH);
    }

    /** PUSH or its single-frame cousin SCATTER. */
    PushSocket(Setup setup, SocketType type) {
        super(setup, type);
    }

    /** CONFLATE applies to this type, as in libzmq (not to SCATTER). */
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
        return true;
    }

    @Override
    final void pipeDetached(Pipe pipe) {
        out.detach(pipe);
    }

    @Override
    final void received(Pipe pipe, ZmtpMessage msg) {
        msg.release();
    }
}
