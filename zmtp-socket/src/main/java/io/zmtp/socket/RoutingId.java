package io.zmtp.socket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.LazyFrame;
import io.zmtp.wire.ZmtpMessage;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * A peer's routing id (the Identity it announced, or the id a ROUTER generated for it): an
 * immutable byte string usable as a map key. The one key type for ids in the socket layer
 * (ROUTER's table, a publisher's peers) and in the patterns (a queue's workers, a broker's
 * clients).
 *
 * <p>Ids are chosen by remote peers, so the hash is seeded with a per-process random value: a
 * peer cannot pick ids that collide in our maps. Ids are also {@link Comparable} (unsigned,
 * lexicographic), so even colliding ids cost a {@link java.util.HashMap} O(log n), not O(n).
 * {@link #hash(ByteBuf)} computes the same hash over a frame's bytes, for lookups that allocate
 * nothing.
 */
public final class RoutingId implements Comparable<RoutingId> {

    /** The per-process seed of every routing-id hash. */
    private static final long SEED = new SecureRandom().nextLong();

    private final byte[] bytes;
    private final int hash;

    private RoutingId(byte[] bytes) {
        this.bytes = bytes;
        this.hash = hash(bytes, 0, bytes.length);
    }

    /** The id in {@code frame}'s readable bytes (copied; the frame is neither read nor released). */
    public static RoutingId of(ByteBuf frame) {
        return new RoutingId(ByteBufUtil.getBytes(frame));
    }

    /**
     * Takes the first frame off {@code msg} as a routing id: what a broker or a queue does with
     * every message its ROUTER delivers. While that frame is still the one the ROUTER put in front,
     * this returns the ROUTER's own id object (no buffer made, no bytes copied, its hash already
     * known, and equal by identity to the key a table holds for that peer); otherwise a copy of the
     * frame's bytes, whose buffer is released.
     */
    public static RoutingId removeFirst(ZmtpMessage msg) {
        if (msg.lazyFirst() instanceof Frame f) {
            msg.dropFirst();
            return f.id;
        }
        ByteBuf frame = msg.removeFirst();
        try {
            return of(frame);
        } finally {
            frame.release();
        }
    }

    /** The id {@code bytes} (copied). */
    public static RoutingId of(byte[] bytes) {
        return new RoutingId(bytes.clone());
    }

    /** The id {@code text} in US-ASCII (a worker's "1A2B-3C4D"). */
    public static RoutingId ofText(String text) {
        return new RoutingId(text.getBytes(StandardCharsets.US_ASCII));
    }

    /** Takes {@code bytes} without copying: the caller must not change them afterwards. */
    static RoutingId wrap(byte[] bytes) {
        return new RoutingId(bytes);
    }

    /** This id as a frame held by reference, cached (see {@link #frame()}). */
    private volatile Frame frame;

    /**
     * This id as the first frame of a message for a ROUTER ({@code msg.addFirst(id.frame())}):
     * the ROUTER looks its peer up by this id and makes no buffer of it. Always the same object.
     */
    public LazyFrame frame() {
        Frame f = frame;
        if (f == null) {
            f = new Frame(this, null);
            frame = f;
        }
        return f;
    }

    /**
     * A routing id as the first frame of a message, held by reference ({@link LazyFrame}): what a
     * ROUTER puts in front of each message it receives, and what an application puts in front of a
     * message for a ROUTER ({@link #frame()}). A ROUTER that routes by it looks its peer up by the
     * id itself; a buffer is made only if someone reads the frame as one: a recycled duplicate of
     * the peer's pooled id buffer where the peer offers one ({@code pooled}: on its loop, while
     * the id is still its own), else a copy.
     */
    static final class Frame implements LazyFrame {
        final RoutingId id;
        /** A duplicate of the peer's pooled buffer of this id, or null where there is none; or null. */
        private final Supplier<ByteBuf> pooled;

        Frame(RoutingId id, Supplier<ByteBuf> pooled) {
            this.id = id;
            this.pooled = pooled;
        }

        @Override
        public byte[] bytes() {
            return id.bytes;
        }

        @Override
        public ByteBuf toBuffer() {
            ByteBuf b = pooled == null ? null : pooled.get();
            return b != null ? b : Unpooled.copiedBuffer(id.bytes);
        }

        @Override
        public String toString() {
            return "RoutingId.Frame[" + id + "]";
        }
    }

    /** A copy of the id's bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The id's bytes, not copied: callers in this package must not change them. */
    byte[] array() {
        return bytes;
    }

    public int length() {
        return bytes.length;
    }

    /** Whether {@code frame}'s readable bytes are this id. */
    public boolean matches(ByteBuf frame) {
        int n = frame.readableBytes();
        if (n != bytes.length) {
            return false;
        }
        int base = frame.readerIndex();
        for (int i = 0; i < n; i++) {
            if (frame.getByte(base + i) != bytes[i]) {
                return false;
            }
        }
        return true;
    }

    /** A new unpooled frame holding the id, to put in front of a message for a ROUTER to route it. */
    public ByteBuf toFrame() {
        return Unpooled.wrappedBuffer(bytes);
    }

    /** The seeded hash of {@code frame}'s readable bytes: equal to {@code of(frame).hashCode()}. */
    public static int hash(ByteBuf frame) {
        if (frame.hasArray()) {
            return hash(frame.array(), frame.arrayOffset() + frame.readerIndex(), frame.readableBytes());
        }
        int n = frame.readableBytes();
        int base = frame.readerIndex();
        long h = SEED ^ (n * 0x9E3779B97F4A7C15L);
        for (int i = 0; i < n; i++) {
            h = step(h, frame.getByte(base + i));
        }
        return finish(h);
    }

    /** The seeded hash of {@code length} bytes of {@code b} from {@code offset}. */
    public static int hash(byte[] b, int offset, int length) {
        long h = SEED ^ (length * 0x9E3779B97F4A7C15L);
        for (int i = 0; i < length; i++) {
            h = step(h, b[offset + i]);
        }
        return finish(h);
    }

    private static long step(long h, byte b) {
        return (h ^ (b & 0xFF)) * 0x100000001B3L + (h >>> 29);
    }

    private static int finish(long h) {
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return (int) h;
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof RoutingId other && other.hash == hash && Arrays.equals(other.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public int compareTo(RoutingId o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    /** Text when printable (a worker's "1A2B-3C4D"), hex otherwise (a generated id). */
    @Override
    public String toString() {
        ByteBuf b = Unpooled.wrappedBuffer(bytes);
        return FrameText.isPrintable(b) ? new String(bytes, StandardCharsets.US_ASCII) : ByteBufUtil.hexDump(b);
    }
}
