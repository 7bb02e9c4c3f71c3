package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * A multipart message whose frames are byte arrays: the garbage-collected form of a message, for
 * code that would rather not count references (JeroMQ's {@code ZMsg} of {@code byte[]} frames).
 * Nothing in it needs releasing.
 *
 * <p>Converting costs one copy each way: {@link #copyOf(ZmtpMessage)} copies every frame of a
 * received message into a new array (and leaves the message to its owner), {@link #toMessage()}
 * copies every array into the buffers of a new message, so the arrays are the caller's again as
 * soon as it returns. A {@code Frames} is unmodifiable: the methods that add or remove frames
 * return a new one. The arrays themselves are shared, not copied, between a {@code Frames}, the
 * ones made from it and {@link #frame(int)}'s callers: do not change an array once it is in a
 * {@code Frames}.
 */
public final class Frames implements Iterable<byte[]> {
    private static final byte[][] NONE = new byte[0][];
    private static final Frames EMPTY = new Frames(NONE);

    private final byte[][] frames;

    private Frames(byte[][] frames) {
        this.frames = frames;
    }

    /** No frames (a message to build on; a message on the wire has at least one). */
    public static Frames empty() {
        return EMPTY;
    }

    /** The given arrays as frames, in order (the arrays are held, not copied). */
    public static Frames of(byte[]... frames) {
        byte[][] f = frames.clone();
        for (byte[] b : f) {
            if (b == null) {
                throw new NullPointerException("a frame is null");
            }
        }
        return new Frames(f);
    }

    /** The given arrays as frames, in order (the arrays are held, not copied). */
    public static Frames of(List<byte[]> frames) {
        return of(frames.toArray(NONE));
    }

    /** The given strings as UTF-8 frames, in order. */
    public static Frames ofStrings(String... frames) {
        byte[][] f = new byte[frames.length][];
        for (int i = 0; i < f.length; i++) {
            f[i] = frames[i].getBytes(StandardCharsets.UTF_8);
        }
        return new Frames(f);
    }

    /**
     * The frames of {@code msg}, each copied into a new array. The message stays its caller's:
     * release it afterwards (or use {@link #takeFrom(ZmtpMessage)}).
     */
    public static Frames copyOf(ZmtpMessage msg) {
        int n = msg.size();
        byte[][] f = new byte[n][];
        for (int i = 0; i < n; i++) {
            ByteBuf b = msg.frame(i);
            f[i] = b.isReadable() ? ByteBufUtil.getBytes(b) : NO_BYTES;
        }
        return new Frames(f);
    }

    private static final byte[] NO_BYTES = new byte[0];

    /** The frames of {@code msg}, copied as {@link #copyOf} does, after which the message is released. */
    public static Frames takeFrom(ZmtpMessage msg) {
        try {
            return copyOf(msg);
        } finally {
            msg.release();
        }
    }

    /**
     * A new message holding a copy of these frames, owned by the caller (pass it to a send, which
     * takes ownership). The frames share one buffer: a heap array when they hold at most 1 KiB
     * together (the encoder copies bodies that small into its batch), else a pooled direct buffer.
     */
    public ZmtpMessage toMessage() {
        ZmtpMessage m = ZmtpMessage.newMessage();
        int total = 0;
        for (byte[] f : frames) {
            total += f.length;
        }
        if (total == 0) {
            for (int i = 0; i < frames.length; i++) {
                m.add(Unpooled.EMPTY_BUFFER);
            }
            return m;
        }
        if (total <= FrameWriter.COPY_THRESHOLD) {
            // small: one heap array, left to the garbage collector (the encoder copies bodies
            // this small into its batch anyway, and a pooled buffer taken on a user thread
            // costs more than the copy)
            byte[] all = new byte[total];
            int at = 0;
            for (byte[] f : frames) {
                if (f.length == 0) {
                    m.add(Unpooled.EMPTY_BUFFER);
                } else {
                    System.arraycopy(f, 0, all, at, f.length);
                    m.add(Unpooled.wrappedBuffer(all, at, f.length));
                    at += f.length;
                }
            }
            return m;
        }
        ByteBuf all = io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(total, total);
        try {
            for (byte[] f : frames) {
                if (f.length == 0) {
                    m.add(Unpooled.EMPTY_BUFFER);
                } else {
                    int at = all.writerIndex();
                    all.writeBytes(f);
                    m.add(all.retainedSlice(at, f.length));
                }
            }
        } catch (RuntimeException e) {
            m.release();
            throw e;
        } finally {
            all.release();
        }
        return m;
    }

    /** The number of frames. */
    public int size() {
        return frames.length;
    }

    public boolean isEmpty() {
        return frames.length == 0;
    }

    /** Frame {@code i}: the array itself, not a copy. */
    public byte[] frame(int i) {
        return frames[i];
    }

    /** Frame {@code i} decoded as UTF-8. */
    public String frameString(int i) {
        return new String(frames[i], StandardCharsets.UTF_8);
    }

    /** The first frame. */
    public byte[] first() {
        if (frames.length == 0) {
            throw new NoSuchElementException("no frames");
        }
        return frames[0];
    }

    /** The last frame. */
    public byte[] last() {
        if (frames.length == 0) {
            throw new NoSuchElementException("no frames");
        }
        return frames[frames.length - 1];
    }

    /** These frames followed by {@code frame}. */
    public Frames add(byte[] frame) {
        byte[][] f = Arrays.copyOf(frames, frames.length + 1);
        f[frames.length] = java.util.Objects.requireNonNull(frame, "frame");
        return new Frames(f);
    }

    /** These frames followed by {@code frame} in UTF-8. */
    public Frames add(String frame) {
        return add(frame.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code frame} followed by these frames (an envelope pushed in front). */
    public Frames push(byte[] frame) {
        byte[][] f = new byte[frames.length + 1][];
        f[0] = java.util.Objects.requireNonNull(frame, "frame");
        System.arraycopy(frames, 0, f, 1, frames.length);
        return new Frames(f);
    }

    /** These frames without the first {@code n}. */
    public Frames dropFirst(int n) {
        if (n < 0 || n > frames.length) {
            throw new IndexOutOfBoundsException("cannot drop " + n + " of " + frames.length + " frames");
        }
        return n == 0 ? this : new Frames(Arrays.copyOfRange(frames, n, frames.length));
    }

    /** The total number of bytes in all frames. */
    public long byteSize() {
        long n = 0;
        for (byte[] f : frames) {
            n += f.length;
        }
        return n;
    }

    /** The frames as an unmodifiable list (of the arrays themselves). */
    public List<byte[]> toList() {
        return java.util.Collections.unmodifiableList(Arrays.asList(frames));
    }

    /** Every frame decoded as UTF-8. */
    public List<String> toStrings() {
        List<String> l = new ArrayList<>(frames.length);
        for (int i = 0; i < frames.length; i++) {
            l.add(frameString(i));
        }
        return l;
    }

    @Override
    public Iterator<byte[]> iterator() {
        return toList().iterator();
    }

    /** Equal when both hold the same number of frames with the same bytes. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Frames && Arrays.deepEquals(frames, ((Frames) o).frames);
    }

    @Override
    public int hashCode() {
        return Arrays.deepHashCode(frames);
    }

    /** The frames as {@link FrameText#describe} shows them (printable text, or hex), at most 8. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Frames[");
        for (int i = 0; i < frames.length && i < 8; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(FrameText.describe(Unpooled.wrappedBuffer(frames[i])));
        }
        if (frames.length > 8) {
            sb.append(", ... ").append(frames.length - 8).append(" more");
        }
        return sb.append(']').toString();
    }
}
