package io.zmtp.socket;

import io.netty.channel.EventLoop;
import io.zmtp.wire.SocketType;

/** Makes the socket class of each ZeroMQ socket type. */
final class SocketTypes {
    private SocketTypes() {
    }

    static ZmtpSocket create(ZmtpContext c, SocketType type, SocketOptions o, EventLoop loop) {
        switch (type) {
            case DEALER: return new DealerSocket(c, o, loop);
            case ROUTER: return new RouterSocket(c, o, loop);
            case REQ: return new ReqSocket(c, o, loop);
            case REP: return new RepSocket(c, o, loop);
            case PUB: return new PubSocket(c, o, loop);
            case SUB: return new SubSocket(c, o, loop);
            case XPUB: return new XPubSocket(c, o, loop);
            case XSUB: return new XSubSocket(c, o, loop);
            case PUSH: return new PushSocket(c, o, loop);
            case PULL: return new PullSocket(c, o, loop);
            case PAIR: return new PairSocket(c, o, loop);
            case STREAM: return new StreamSocket(c, o, loop);
            default: throw new IllegalArgumentException("unsupported socket type " + type);
        }
    }

}
