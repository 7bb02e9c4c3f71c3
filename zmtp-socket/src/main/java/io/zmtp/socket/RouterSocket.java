package io.zmtp.socket;

import io.netty.util.concurrent.Future;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.LazyFrame;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

/**
 * ROUTER: every received message is prefixed with its peer's routing id (the Identity the peer
 * announced, or one generated for it); an outgoing message goes to the peer named by its first
 * frame, which is removed. An unroutable message is dropped, or fails with
 * {@link UnroutableMessageException} when the mandatory option is on. A peer announcing an
 * identity already in use is ignored (the first keeps it) unless handover is on, in which case
 * the new peer takes the id and the old connection is closed.
 */
public final class RouterSocket extends ZmtpSocket {
    private final RoutingTable table = new RoutingTable();

    RouterSocket(Setup setup) {
        super(setup, SocketType.ROUTER);
    }

    /**
     * Connects as {@link #connect(String)} does, and routes to the peer reached through this
     * endpoint by {@code routingId} instead of the identity it announces, on every connection
     * made to it (ZMQ_CONNECT_ROUTING_ID, which libzmq sets for the next connect call). 1-255
     * bytes, not starting with a zero byte; tcp:// and ipc:// only.
     */
    @Override
    public Future<Void> connect(String endpoint, byte[] routingId) {
        if (routingId == null) {
            return connect(endpoint);
        }
        if (routingId.length == 0) {
            throw new IllegalArgumentException("a connect routing id has 1 to 255 bytes");
        }
        SocketOptions.builder().identity(routingId); // validates
        if (endpoint.startsWith("inproc://")) {
            throw new IllegalArgumentException("a connect routing id is not supported over inproc://");
        }
        return connectEndpoint(endpoint, routingId.clone());
    }

    @Override
    SendResult route(ZmtpMessage msg) {
        LazyFrame lazy = msg.lazyFirst();
        Pipe p;
        if (lazy instanceof RoutingId.Frame f) {
            p = table.get(f.id); // the id's own hash: no bytes read, no buffer made
        } else if (lazy != null) {
            p = table.get(lazy.bytes());
        } else {
            p = table.get(msg.first());
        }
        if (p == null) {
            if (options().routerMandatory()) {
                throw new UnroutableMessageException("no peer with routing id " + FrameText.describe(msg.first()));
            }
            msg.release();
            counters().unroutableDrop();
            return SendResult.DROPPED;
        }
        if (!p.hasRoom()) {
            if (options().routerMandatory()) {
                return SendResult.WOULD_BLOCK;
            }
            msg.release();
            counters().hwmDrop();
            return SendResult.DROPPED;
        }
        msg.dropFirst();
        if (msg.isEmpty()) {
            msg.release();
            return SendResult.DROPPED;
        }
        p.write(msg);
        return SendResult.SENT;
    }

    @Override
    boolean pipeAttached(Pipe pipe) {
        Pipe displaced = table.add(pipe, options().routerHandover());
        if (displaced == pipe) {
            return false;
        }
        if (displaced != null) {
            displaced.close();
        }
        receiveFrom(pipe);
        if ((options().routerNotify() & SocketOptions.NOTIFY_CONNECT) != 0) {
            notifyApplication(pipe);
        }
        probeRouter(pipe);
        return true;
    }

    @Override
    void pipeDetached(Pipe pipe) {
        if ((options().routerNotify() & SocketOptions.NOTIFY_DISCONNECT) != 0 && pipe.routingId() != null) {
            notifyApplication(pipe);
        }
        table.remove(pipe);
        stopReceivingFrom(pipe);
    }

    /** ZMQ_ROUTER_NOTIFY: the peer's routing id and an empty frame, to the application. */
    private void notifyApplication(Pipe pipe) {
        if (isClosing()) {
            return;
        }
        ZmtpMessage m = ZmtpMessage.of(pipe.newRoutingIdFrame());
        m.addEmpty();
        deliver(m);
    }

    @Override
    void received(Pipe pipe, ZmtpMessage msg) {
        deliverWithRoutingId(pipe, msg);
    }

    /** Whether a peer with this routing id is connected. Call on the event loop. */
    public boolean hasPeer(byte[] routingId) {
        return table.get(routingId) != null;
    }

    /** Whether a peer with this routing id is connected (no copy of the id). Call on the event loop. */
    public boolean hasPeer(RoutingId routingId) {
        return table.get(routingId.array()) != null;
    }
}
