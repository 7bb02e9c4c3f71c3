package io.zmtp.patterns;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.zmtp.wire.FrameText;

import java.util.Arrays;

/**
 * A peer's routing id as a ROUTER socket reports it (the first frame of what it receives):
 * an immutable byte string usable as a map key, so a queue can find a worker in constant time.
 */
public final class RoutingId {
    private final byte[] bytes;
    private final int hash;

    private RoutingId(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    /** The id in {@code frame} (copied; the frame is not consumed). */
    public static RoutingId of(ByteBuf frame) {
        return new RoutingId(ByteBufUtil.getBytes(frame));
    }

    public static RoutingId of(byte[] bytes) {
        return new RoutingId(bytes.clone());
    }

    /** A copy of the id's bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** Whether a ROUTER socket knows this peer ({@code router.hasPeer}), without copying. */
    public boolean connectedTo(io.zmtp.socket.RouterSocket router) {
        return router.hasPeer(bytes);
    }

    /** A new frame holding the id, to put in front of a message for a ROUTER to route it. */
    public ByteBuf toFrame() {
        return Unpooled.wrappedBuffer(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RoutingId && Arrays.equals(bytes, ((RoutingId) o).bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** Text when printable (a worker's "1A2B-3C4D"), hex otherwise (a generated id). */
    @Override
    public String toString() {
        ByteBuf b = Unpooled.wrappedBuffer(bytes);
        return FrameText.isPrintable(b) ? new String(bytes, java.nio.charset.StandardCharsets.US_ASCII)
                : ByteBufUtil.hexDump(b);
    }
}
