package io.zmtp.socket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.zmtp.transport.Endpoint;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

/**
 * STREAM (libzmq's ZMQ_STREAM): a socket whose peers are plain TCP (or ipc) connections that
 * speak no ZMTP, such as HTTP clients of a gateway. Each connection gets a routing id of its own
 * (five bytes, generated as a ROUTER generates them).
 *
 * <ul>
 *   <li>Receiving: every message is two frames, [routing id][data]; the data is what one read of
 *   the connection returned (the buffer Netty read into, not a copy), so the application sees the
 *   byte stream cut wherever the reads cut it. With {@link SocketOptions#streamNotify()} (on by
 *   default) a new connection, accepted or made, is announced as [routing id][empty], and so is
 *   one that closed: the connect notification is how the id of a connection this socket made
 *   becomes known.</li>
 *   <li>Sending: [routing id][data...]: the data frames are written to that connection as they
 *   are, back to back (no copy). [routing id][empty] (every data frame empty) closes the
 *   connection once what was written before it is out. An unknown id fails the send with
 *   {@link UnroutableMessageException} (libzmq's EHOSTUNREACH); a connection at its send
 *   high-water mark makes the send wait.</li>
 * </ul>
 *
 * <p>The socket's limits apply as to every type: connections per bound endpoint and per address,
 * TCP keepalive, the receive high-water mark (reading pauses through the connection's
 * {@link io.zmtp.wire.ReadGate}, so a peer that sends faster than the application consumes waits
 * in TCP). One read holds at most {@code min(64 KiB, maxMessageSize)} bytes. There are no ZMTP
 * heartbeats or handshake timeout (there is no ZMTP); idle connections are found by TCP keepalive.
 * Only tcp:// and ipc:// endpoints.
 */
public final class StreamSocket extends ZmtpSocket {
    /** The most one read of a STREAM connection delivers, when maxMessageSize allows it. */
    static final int MAX_READ = 64 * 1024;

    private final RoutingTable table = new RoutingTable();

    StreamSocket(Setup setup) {
        super(setup, SocketType.STREAM);
    }

    @Override
    String transportRefusal(Endpoint endpoint) {
        Endpoint.Transport t = endpoint.transport();
        return t == Endpoint.Transport.INPROC || t.webSocket() || t == Endpoint.Transport.TLS
                ? "STREAM sockets speak raw TCP: tcp:// and ipc:// only" : null;
    }

    @Override
    void initConnection(Channel ch, boolean accepted, String endpoint, PeerHandler.Origin origin) {
        int max = (int) Math.max(64, Math.min(MAX_READ, options().maxMessageSize()));
        ch.config().setRecvByteBufAllocator(new AdaptiveRecvByteBufAllocator(64, Math.min(2048, max), max));
        ch.pipeline().addLast(new StreamPeerHandler(core(), endpoint, origin));
    }

    @Override
    SendResult route(ZmtpMessage msg) {
        if (msg.size() < 2) {
            throw new IllegalArgumentException("a STREAM message is [routing id][data], got " + msg.size() + " frame");
        }
        ByteBuf id = msg.first();
        Pipe p = table.get(id);
        if (p == null) {
            throw new UnroutableMessageException("no connection with routing id " + FrameText.describe(id));
        }
        if (!p.hasRoom()) {
            return SendResult.WOULD_BLOCK;
        }
        msg.dropFirst();
        boolean close = true;
        while (!msg.isEmpty()) {
            ByteBuf data = msg.removeFirst();
            if (data.isReadable()) {
                close = false;
                p.write(data);
            } else {
                data.release();
            }
        }
        msg.release();
        if (close) {
            // [id][empty]: close once what was written before is out.
            p.closeAfterFlush(() -> { });
        }
        return SendResult.SENT;
    }

    @Override
    boolean pipeAttached(Pipe pipe) {
        if (table.add(pipe, false) == pipe) {
            return false;   // cannot happen: ids are generated, never chosen by a raw peer
        }
        receiveFrom(pipe);
        if (options().streamNotify()) {
            deliver(ZmtpMessage.newMessage().add(pipe.newRoutingIdFrame()).add(Unpooled.EMPTY_BUFFER));
        }
        return true;
    }

    @Override
    void pipeDetached(Pipe pipe) {
        // Not while closing: the socket has dropped what it had not delivered, and drops this too.
        ByteBuf idFrame = pipe.routingId() != null && options().streamNotify() && !isClosing()
                ? pipe.newRoutingIdFrame() : null;
        table.remove(pipe);
        stopReceivingFrom(pipe);
        if (idFrame != null) {
            deliver(ZmtpMessage.newMessage().add(idFrame).add(Unpooled.EMPTY_BUFFER));
        }
    }

    @Override
    void received(Pipe pipe, ZmtpMessage msg) {
        deliverWithRoutingId(pipe, msg);
    }

    /** Whether a connection with this routing id is open. Call on the event loop. */
    public boolean hasPeer(byte[] routingId) {
        return table.get(routingId) != null;
    }
}
