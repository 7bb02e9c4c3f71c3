package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

/**
 * SERVER (RFC 41): fair-queued in from its CLIENTs, each received message carrying its peer's
 * routing id ({@link ZmtpMessage#routingId()}), a number the socket gave the connection
 * ({@link NumberedPeers}); a reply goes to the peer whose id the message carries. A send whose
 * id names no connected peer (or is 0) fails with {@link UnroutableMessageException}, as libzmq's
 * fails with EHOSTUNREACH; a send to a peer at its high-water mark waits. Messages are single
 * frames (see {@link SendPath#checkFrameCount}).
 *
 * <p>PEER is this type with ids kept for its connect endpoints ({@link PeerSocket}), as libzmq's
 * peer_t is its server_t.
 */
public class ServerSocket extends ZmtpSocket {
    private final NumberedPeers peers = new NumberedPeers();

    ServerSocket(Setup setup) {
        this(setup, SocketType.SERVER);
    }

    ServerSocket(Setup setup, SocketType type) {
        super(setup, type);
    }

    @Override
    final boolean failsUnroutable() {
        return true;
    }

    @Override
    final SendResult route(ZmtpMessage msg) {
        int id = msg.routingId();
        Pipe p = peers.get(id);
        if (p == null) {
            throw new UnroutableMessageException(id == 0
                    ? "a " + type() + " message needs the routing id of the peer it goes to"
                    : "no peer with routing id " + Integer.toUnsignedString(id));
        }
        if (!p.hasRoom()) {
            return SendResult.WOULD_BLOCK;
        }
        // The id is this socket's name for the peer, not the receiver's: over inproc:// the
        // message object itself arrives, so it must not carry the id there (libzmq resets it too).
        msg.routingId(0);
        p.write(msg);
        return SendResult.SENT;
    }

    @Override
    final boolean pipeAttached(Pipe pipe) {
        Pipe displaced = peers.add(pipe, idFor(pipe));
        if (displaced != null) {
            displaced.close();
        }
        receiveFrom(pipe);
        peerAttached(pipe);
        return true;
    }

    /** The number a new peer gets: the counter's next (a PEER's connect endpoint: the one it keeps). */
    int idFor(Pipe pipe) {
        return peers.next();
    }

    /** After a new peer got its number and is read from (a PEER completes its connectPeer). */
    void peerAttached(Pipe pipe) {
    }

    @Override
    final void pipeDetached(Pipe pipe) {
        peers.remove(pipe);
        stopReceivingFrom(pipe);
    }

    @Override
    final void received(Pipe pipe, ZmtpMessage msg) {
        msg.routingId(pipe.serverRoutingId);
        deliver(msg);
    }

    /** The table of peers by number, for a PEER's kept numbers. */
    final NumberedPeers peers() {
        return peers;
    }

    /** Whether a peer with this routing id is connected now. Call on the event loop. */
    public final boolean hasPeer(int routingId) {
        return peers.get(routingId) != null;
    }
}
