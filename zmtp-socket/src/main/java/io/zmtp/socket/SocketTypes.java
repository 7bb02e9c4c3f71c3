package io.zmtp.socket;

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

    static ZmtpSocket create(ZmtpSocket.Setup s, SocketType type) {
        return switch (type) {
            case PAIR -> new PairSocket(s);
            case PUB -> new PubSocket(s);
            case SUB -> new SubSocket(s);
            case REQ -> new ReqSocket(s);
            case REP -> new RepSocket(s);
            case DEALER -> new DealerSocket(s);
            case ROUTER -> new RouterSocket(s);
            case PULL -> new PullSocket(s);
            case PUSH -> new PushSocket(s);
            case XPUB -> new XPubSocket(s);
            case XSUB -> new XSubSocket(s);
            case STREAM -> new StreamSocket(s);
            case SERVER -> new ServerSocket(s);
            case CLIENT -> new ClientSocket(s);
            case RADIO -> new RadioSocket(s);
            case DISH -> new DishSocket(s);
            case GATHER -> new GatherSocket(s);
            case SCATTER -> new ScatterSocket(s);
            case PEER -> new PeerSocket(s);
            case CHANNEL -> new ChannelSocket(s);
        };
    }
}
