package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

/** PAIR: exactly one peer; a second one is refused (its connection closed) while the first lasts. */
public final class PairSocket extends ZmtpSocket {
    private Pipe peer;

    PairSocket(Setup setup) {
        super(setup, SocketType.PAIR);
    }

    @Override
    SendResult route(ZmtpMessage msg) {
        if (peer == null || !peer.hasRoom()) {
            return SendResult.WOULD_BLOCK;
        }
        peer.write(msg);
        return SendResult.SENT;
    }

    @Override
    boolean pipeAttached(Pipe pipe) {
        if (peer != null) {
            eventLoop().execute(pipe::close);
            return false;
        }
        peer = pipe;
        receiveFrom(pipe);
        return true;
    }

    @Override
    void pipeDetached(Pipe pipe) {
        if (peer == pipe) {
            peer = null;
        }
        stopReceivingFrom(pipe);
    }

    @Override
    void received(Pipe pipe, ZmtpMessage msg) {
        deliver(msg);
    }
}
