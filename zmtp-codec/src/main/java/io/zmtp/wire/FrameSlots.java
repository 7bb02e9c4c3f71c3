package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.ResourceLeakDetector;

import java.util.Arrays;

/**
 * How a {@link ZmtpMessage} holds its frames, apart from what it offers: an array of slots with
 * headroom in front (so envelope frames are pushed and popped without a copy), where a slot holds
 * a buffer, a <em>span</em> of the read buffer the codec decoded the message from (made a slice
 * only when read as a buffer), or, first, a {@link LazyFrame} (a routing id, made a buffer only
 * when read); and the message's byte size, kept as frames are added while nothing could have
 * moved their indexes. The message is the only subclass: one object, so keeping these apart costs
 * no indirection on the per-message paths.
 */
abstract class FrameSlots extends AbstractReferenceCounted {
    static final int HEADROOM = 4;
    static final int INITIAL_CAPACITY = 8;

    /**
     * Whether released messages are checked (and not pooled): with the leak detector at paranoid
     * level. Fixed when the class loads; when false the checks compile away.
     */
    static final boolean CHECKED = ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.PARANOID;

    ByteBuf[] frames = new ByteBuf[INITIAL_CAPACITY];
    int head = HEADROOM;
    int tail = HEADROOM;
    /**
     * The first frame when it is still a {@link LazyFrame} (then {@code frames[head]} is null), or
     * null. Made into a buffer by {@link #materialize()} before anything reads the frame array.
     */
    LazyFrame lazyHead;
    /**
     * The read buffer that span frames lie in, retained once by this message (released when the
     * message is), or null when it has none.
     */
    ByteBuf backing;
    /**
     * Per slot of {@link #frames}: a span frame's place in {@link #backing} as
     * {@code index << 32 | length} (never 0: a span is at least one byte), or 0. A slot whose
     * {@code frames} entry is null is a span when this is not 0, else the lazy head.
     */
    long[] spans;
    /**
     * {@link ZmtpMessage#byteSize()} as counted while frames were added (spans and routing ids,
     * whose sizes cannot change) or as last computed, or -1. Kept only while no frame was handed
     * out as a buffer (whose reader could move its indexes); adding a buffer frame makes it -1
     * until the size is computed again. The socket counts every message in and out, so a message
     * the codec decoded is measured without a walk over its frames.
     */
    long knownSize;
    /** A frame was handed out as a buffer since the message was made: sizes are not kept. */
    boolean exposed;

    /** Appends a buffer frame (ownership passes). */
    final void addFrame(ByteBuf frame) {
        if (tail == frames.length) {
            grow();
        }
        frames[tail++] = frame;
        if (frame != Unpooled.EMPTY_BUFFER) {
            knownSize = -1; // the caller may still move the buffer's indexes
        }
    }

    /**
     * Appends the frame of {@code length} bytes (at least one) at {@code index} of {@code buffer}
     * as a span: no slice is made unless the frame is read as a buffer. The message retains
     * {@code buffer} once for all its spans; a frame in another buffer than the message's first
     * span becomes a retained slice at once. The caller keeps its own reference.
     */
    final void addSpan(ByteBuf buffer, int index, int length) {
        live();
        if (backing == null) {
            backing = buffer.retain();
        } else if (backing != buffer) {
            addFrame(buffer.retainedSlice(index, length));
            return;
        }
        if (tail == frames.length) {
            grow();
        }
        if (spans == null) {
            spans = new long[frames.length];
        }
        spans[tail++] = (long) index << 32 | length;
        if (knownSize >= 0) {
            knownSize += length; // a span's bytes do not move
        }
    }

    /** Slot {@code idx}'s span in {@link #backing}, or 0 if it holds no span. */
    final long spanAt(int idx) {
        return spans == null || frames[idx] != null ? 0 : spans[idx];
    }

    /** Frame {@code i}'s span ({@code index << 32 | length} in {@link #backing()}), or 0 if it is not one. */
    final long span(int i) {
        return spanAt(head + i);
    }

    /** The buffer span frames lie in, or null. */
    final ByteBuf backing() {
        return backing;
    }

    static int spanIndex(long span) {
        return (int) (span >>> 32);
    }

    static int spanLength(long span) {
        return (int) span;
    }

    /** Makes a lazy first frame a buffer, so no slot is null because of it. */
    final void materialize() {
        LazyFrame lazy = lazyHead;
        if (lazy != null) {
            lazyHead = null;
            frames[head] = lazy.toBuffer();
        }
    }

    /** The buffer in slot {@code idx}, made from a lazy head or a span if it is one. */
    final ByteBuf slot(int idx) {
        exposed = true; // the caller may move the buffer's indexes
        knownSize = -1;
        ByteBuf f = frames[idx];
        if (f != null) {
            return f;
        }
        if (idx == head && lazyHead != null) {
            materialize();
            return frames[idx];
        }
        long span = spans[idx];
        spans[idx] = 0;
        return frames[idx] = backing.retainedSlice(spanIndex(span), spanLength(span));
    }

    /** Makes every frame a buffer (before the frame array is handed out whole). */
    final void materializeAll() {
        for (int i = head; i < tail; i++) {
            slot(i);
        }
    }

    /** Puts {@code frame} (null: the lazy head's slot) in front, moving the frames when no headroom is left. */
    final void pushFront(ByteBuf frame) {
        if (head == 0) {
            int n = tail - head;
            int room = Math.max(HEADROOM, frames.length - n - HEADROOM);
            ByteBuf[] next = tail + HEADROOM > frames.length ? new ByteBuf[n + HEADROOM + room] : frames;
            System.arraycopy(frames, 0, next, HEADROOM, n);
            if (next == frames) {
                Arrays.fill(frames, 0, HEADROOM, null);
            }
            if (spans != null) {
                long[] nextSpans = next == frames ? spans : new long[next.length];
                System.arraycopy(spans, 0, nextSpans, HEADROOM, n);
                if (nextSpans == spans) {
                    Arrays.fill(spans, 0, HEADROOM, 0);
                }
                spans = nextSpans;
            }
            frames = next;
            head = HEADROOM;
            tail = HEADROOM + n;
        }
        frames[--head] = frame;
        if (spans != null) {
            spans[head] = 0;
        }
    }

    private void grow() {
        frames = Arrays.copyOf(frames, frames.length * 2);
        if (spans != null) {
            spans = Arrays.copyOf(spans, frames.length);
        }
    }

    /** Throws if this message was released (only when {@link #CHECKED}). */
    final void live() {
        if (CHECKED && refCnt() == 0) {
            throw new IllegalReferenceCountException("ZmtpMessage used after its last release");
        }
    }

    final void checkIndex(int i) {
        if (i < 0 || i >= tail - head) {
            throw new IndexOutOfBoundsException("frame " + i + " of " + (tail - head));
        }
    }

    /** Records {@code hint} on the buffers the frames hold (the leak detector's trail). */
    final void touchFrames(Object hint) {
        if (backing != null) {
            backing.touch(hint);
        }
        for (int i = head; i < tail; i++) {
            if (frames[i] != null) {
                frames[i].touch(hint);
            }
        }
    }

    /** Releases every frame and the read buffer of the spans (the message's last release). */
    final void releaseFrames() {
        lazyHead = null;
        for (int i = head; i < tail; i++) {
            if (frames[i] != null) {
                frames[i].release();
                frames[i] = null;
            }
        }
        if (backing != null) {
            Arrays.fill(spans, head, tail, 0);
            backing.release();
            backing = null;
        }
    }

    /** Empties the slots for the object's reuse (after {@link #releaseFrames()}); a grown array is dropped. */
    final void resetFrames() {
        if (frames.length > 64) {
            frames = new ByteBuf[INITIAL_CAPACITY];
            spans = null;
        }
        head = HEADROOM;
        tail = HEADROOM;
        knownSize = 0;
        exposed = false;
    }
}
