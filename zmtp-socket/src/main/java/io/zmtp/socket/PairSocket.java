package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

/**
 * PAIR: exactly one peer; a second one is refused (its connection closed) while the first lasts.
 * CHANNEL is this type with single-frame messages ({@link ChannelSocket}).
 */
public class PairSocket extends ZmtpSocket {
    private Pipe peer;

    PairSocket(Setup setup) {
        this(setup, SocketType.PAIR);
    }

    /** PAIR or its single-frame cousin CHANNEL. */
    PairSocket(Setup setup, SocketType type) {
        super(setup, type);
    }

    @Override
    final SendResult route(ZmtpMessage msg) {
        if (peer == null || !peer.hasRoom()) {
            return SendResult.WOULD_BLOCK;
        }
        peer.write(msg);
        return SendResult.SENT;
    }

    @Override
    final boolean pipeAttached(Pipe pipe) {
        if (peer != null) {
            eventLoop().execute(pipe::close);
            return false;
        }
        peer = pipe;
        receiveFrom(pipe);
        return true;
    }

    @Override
    final void pipeDetached(Pipe pipe) {
        if (peer == pipe) {
            peer = null;
        }
        stopReceivingFrom(pipe);
    }

    @Override
    final void received(Pipe pipe, ZmtpMessage msg) {
        deliver(msg);
    }
}
