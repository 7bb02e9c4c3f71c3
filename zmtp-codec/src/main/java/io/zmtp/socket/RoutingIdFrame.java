package io.zmtp.socket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.zmtp.wire.LazyFrame;

/**
 * A routing id as the first frame of a message, held by reference ({@link LazyFrame}): what a
 * ROUTER puts in front of each message it receives, and what an application puts in front of a
 * message for a ROUTER ({@link RoutingId#frame()}). A ROUTER that routes by it looks its peer up
 * by the id itself; a buffer is made only if someone reads the frame as one: on the peer's event
 * loop a recycled duplicate of the peer's pooled id buffer (as before there were lazy frames),
 * elsewhere a copy.
 */
final class RoutingIdFrame implements LazyFrame {
    final RoutingId id;
    /** The peer this id names (its pooled id buffer is duplicated when read on its loop), or null. */
    private final Pipe pipe;

    RoutingIdFrame(RoutingId id, Pipe pipe) {
        this.id = id;
        this.pipe = pipe;
    }

    @Override
    public byte[] bytes() {
        return id.array();
    }

    @Override
    public ByteBuf toBuffer() {
        Pipe p = pipe;
        if (p != null && p.socket.loop.inEventLoop() && p.routingId() == id) {
            return p.newRoutingIdFrame();
        }
        return Unpooled.copiedBuffer(id.array());
    }

    @Override
    public String toString() {
        return "RoutingIdFrame[" + id + "]";
    }
}
