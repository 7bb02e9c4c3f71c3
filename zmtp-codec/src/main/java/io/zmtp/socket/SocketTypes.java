package io.zmtp.socket;

import io.netty.channel.EventLoop;
import io.zmtp.wire.SocketType;

/**
 * The class of each ZeroMQ socket type, bound at compile time: a switch over every
 * {@link SocketType} constant, with no default, so a constant without its class here does not
 * compile. A type's rules live in its class (what it routes, receives, conflates, probes); the
 * wire-level facts of the type (its peers, its ZMTP 2.0 code) live in its constant. Adding a
 * socket type therefore takes its constant, its line here, and its class.
 */
final class SocketTypes {
    private SocketTypes() {
    }

    static ZmtpSocket create(ZmtpContext c, SocketType type, SocketOptions o, EventLoop loop) {
        return switch (type) {
            case PAIR -> new PairSocket(c, o, loop);
            case PUB -> new PubSocket(c, o, loop);
            case SUB -> new SubSocket(c, o, loop);
            case REQ -> new ReqSocket(c, o, loop);
            case REP -> new RepSocket(c, o, loop);
            case DEALER -> new DealerSocket(c, o, loop);
            case ROUTER -> new RouterSocket(c, o, loop);
            case PULL -> new PullSocket(c, o, loop);
            case PUSH -> new PushSocket(c, o, loop);
            case XPUB -> new XPubSocket(c, o, loop);
            case XSUB -> new XSubSocket(c, o, loop);
            case STREAM -> new StreamSocket(c, o, loop);
        };
    }
}
