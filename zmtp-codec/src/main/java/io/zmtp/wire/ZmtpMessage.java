package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A ZeroMQ message: an ordered sequence of frames, sent and received atomically.
 *
 * <p>Frames are {@link ByteBuf}s owned by the message: a received message holds slices of the
 * buffers that were read (no copy), and releasing the message releases every frame. Message
 * objects are pooled, so a message must not be touched after its last {@link #release()}. With
 * Netty's leak detector at paranoid level (as in tests: {@code -Dio.netty.leakDetection.level=paranoid})
 * they are not pooled and every use of a released message throws
 * {@link io.netty.util.IllegalReferenceCountException}, so such a use fails loudly instead of reading or
 * changing another message.
 *
 * <p>The front of the frame list has spare room, so pushing and popping envelope frames (a
 * ROUTER's routing id, a REQ's empty delimiter) costs no copy. The first frame may be a
 * {@link LazyFrame} (a ROUTER puts its peer's routing id in front that way): every accessor sees
 * it as an ordinary frame, but it becomes a buffer only when read as one, so a message whose id
 * is dropped or routed by costs no buffer and no reference count for it.
 *
 * <p>A message the codec reads holds its frames as spans of the buffer that was read: the message
 * retains that buffer once, whatever its number of frames, and a frame becomes a buffer (a retained
 * slice, owned by the message) only when something reads it as one. A message that is only passed
 * on (a broker, a proxy, an echo) then costs no slice object and no reference count per frame; the
 * encoder copies a span's bytes straight from the read buffer. A message is not thread-safe; it
 * belongs to one thread at a time, as a {@code ByteBuf} does.
 */
public final class ZmtpMessage extends FrameSlots {

    /**
     * The most released message objects one thread keeps for reuse: {@value #DEFAULT_POOL_PER_THREAD}
     * by default (system property {@code zmtp.messagePool.maxPerThread}; 0 turns pooling off), about
     * 100 bytes each, in an array of references that grows to this size; other threads return
     * that thread's messages through a queue of as many again ({@link MessagePool}). An
     * asynchronous client keeps thousands of messages in flight at once: with a smaller pool
     * (Netty's 4,096 for its own objects) each such burst would allocate anew. Only threads Netty
     * counts as its own pool messages: a {@code FastThreadLocalThread} (the event loops) or a
     * thread inside {@code FastThreadLocalThread.runWithFastThreadLocal}.
     */
    public static final int DEFAULT_POOL_PER_THREAD = 16_384;

    /** {@link #DEFAULT_POOL_PER_THREAD} unless the system property says otherwise. */
    static final int POOL_PER_THREAD = Integer.getInteger("zmtp.messagePool.maxPerThread", DEFAULT_POOL_PER_THREAD);

    /**
     * Whether a message handed from one event loop to another (an inproc:// hop) is reused when
     * released: false by default (system property {@code zmtp.messagePool.reuseAcrossThreads}).
     * Such a message is marked with {@link #doNotReuse()} on arrival, which suits G1, Java's
     * default collector. With a collector whose write barrier has no fence (the parallel collector),
     * reuse was faster (benchmarks/RESULTS.md), and {@code true} brings it back.
     */
    public static final boolean REUSE_ACROSS_THREADS = Boolean.getBoolean("zmtp.messagePool.reuseAcrossThreads");

    /**
     * Each event-loop thread's pool of released messages: a {@code FastThreadLocalThread} (the
     * event loops) or a thread inside {@link FastThreadLocalThread#runWithFastThreadLocal}. Other
     * threads, such as an application's own, get no pool: their messages are new objects.
     */
    private static final FastThreadLocal<MessagePool<ZmtpMessage>> POOLS = new FastThreadLocal<>() {
        @Override
        protected MessagePool<ZmtpMessage> initialValue() {
            return new MessagePool<>(Thread.currentThread(), POOL_PER_THREAD);
        }
    };

    /** The pool this object returns to when released, or null (not pooled). */
    private final MessagePool<ZmtpMessage> pool;
    /** Set by {@link #doNotReuse()}: the object goes to the garbage collector when released. */
    private boolean notReused;
    private ZmtpMetadata properties = ZmtpMetadata.EMPTY;
    /** SERVER and PEER: the peer this message came from or goes to; 0 = none (libzmq's msg routing id). */
    private int routingId;
    /** RADIO/DISH: the group (null = none), and its UTF-8 bytes, encoded once per message. */
    private String group;
    private byte[] groupUtf8;

    ZmtpMessage(MessagePool<ZmtpMessage> pool) {
        this.pool = pool;
    }

    /** A new message with no frames; the caller owns it. */
    public static ZmtpMessage newMessage() {
        return newMessage(currentPool());
    }

    /** The calling thread's pool, or null when it has none (not a Netty thread, or pooling is off). */
    static MessagePool<ZmtpMessage> currentPool() {
        if (CHECKED || POOL_PER_THREAD <= 0 || !FastThreadLocalThread.currentThreadHasFastThreadLocal()) {
            return null;
        }
        return POOLS.get();
    }

    /** A new message from {@code pool}, which the calling thread owns, or a new object when null. */
    static ZmtpMessage newMessage(MessagePool<ZmtpMessage> pool) {
        ZmtpMessage m = pool == null ? null : pool.take();
        if (m == null) {
            m = new ZmtpMessage(pool);
        }
        m.setRefCnt(1);
        return m;
    }

    /** A message of one frame, whose ownership passes to the message (no varargs array). */
    public static ZmtpMessage of(ByteBuf frame) {
        return newMessage().add(frame);
    }

    /**
     * A message of one frame that refers to {@code frame}'s readable bytes: no copy, and no buffer
     * object per message (the frame is a span of {@code frame}, as a received frame is a span of
     * the read buffer; a slice is made only if the frame is read as a buffer). The message retains
     * {@code frame} once and releases it when the message is released; the caller keeps its own
     * reference and must not change those bytes while messages refer to them. For a payload sent
     * many times, such as a constant request body.
     */
    public static ZmtpMessage ofShared(ByteBuf frame) {
        ZmtpMessage m = newMessage();
        int n = frame.readableBytes();
        if (n == 0) {
            return m.add(Unpooled.EMPTY_BUFFER);
        }
        m.addSpan(frame, frame.readerIndex(), n);
        return m;
    }

    /** A message of one frame that wraps {@code frame} (no copy, no varargs array). */
    public static ZmtpMessage of(byte[] frame) {
        return newMessage().add(frame);
    }

    /** A message of the given frames, whose ownership passes to the message. */
    public static ZmtpMessage of(ByteBuf... frames) {
        ZmtpMessage m = newMessage();
        for (ByteBuf f : frames) {
            m.add(f);
        }
        return m;
    }

    /** A message whose frames wrap the given arrays (no copy; do not change them afterwards). */
    public static ZmtpMessage of(byte[]... frames) {
        ZmtpMessage m = newMessage();
        for (byte[] f : frames) {
            m.add(f.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(f));
        }
        return m;
    }

    /** A message of UTF-8 encoded strings, one frame each. */
    public static ZmtpMessage ofStrings(String... frames) {
        ZmtpMessage m = newMessage();
        for (String f : frames) {
            m.add(f);
        }
        return m;
    }

    /** The number of frames. */
    public int size() {
        live();
        return tail - head;
    }

    public boolean isEmpty() {
        live();
        return tail == head;
    }

    /** Frame {@code i}, still owned by the message (retain it to keep it past the message). */
    public ByteBuf frame(int i) {
        live();
        checkIndex(i);
        return slot(head + i);
    }

    /** The first frame, or null if there is none. */
    public ByteBuf first() {
        live();
        return isEmpty() ? null : slot(head);
    }

    /** The last frame, or null if there is none. */
    public ByteBuf last() {
        live();
        return isEmpty() ? null : slot(tail - 1);
    }

    /** Frame {@code i} decoded as UTF-8. */
    public String frameString(int i) {
        live();
        if (i == 0 && lazyHead != null) {
            return new String(lazyHead.bytes(), StandardCharsets.UTF_8);
        }
        checkIndex(i);
        long span = spanAt(head + i);
        if (span != 0) {
            return backing.toString(spanIndex(span), spanLength(span), StandardCharsets.UTF_8);
        }
        return frame(i).toString(StandardCharsets.UTF_8);
    }

    /** A copy of the bytes of frame {@code i}. */
    public byte[] frameBytes(int i) {
        live();
        if (i == 0 && lazyHead != null) {
            return lazyHead.bytes().clone();
        }
        checkIndex(i);
        long span = spanAt(head + i);
        if (span != 0) {
            return ByteBufUtil.getBytes(backing, spanIndex(span), spanLength(span));
        }
        return ByteBufUtil.getBytes(frame(i));
    }

    /** Whether frame {@code i} is empty (an envelope delimiter, say). */
    public boolean isFrameEmpty(int i) {
        live();
        if (i == 0 && lazyHead != null) {
            return lazyHead.bytes().length == 0;
        }
        checkIndex(i);
        if (spanAt(head + i) != 0) {
            return false; // a span is never empty
        }
        return !frame(i).isReadable();
    }

    /** The frames, in order, still owned by the message. */
    public List<ByteBuf> frames() {
        live();
        materializeAll();
        return new ArrayList<>(Arrays.asList(frames).subList(head, tail));
    }

    /** The total number of payload bytes in all frames. */
    public long byteSize() {
        live();
        if (knownSize >= 0) {
            return knownSize;
        }
        long n = 0;
        int i = head;
        if (lazyHead != null) {
            n = lazyHead.bytes().length;
            i++;
        }
        for (; i < tail; i++) {
            ByteBuf f = frames[i];
            n += f != null ? f.readableBytes() : spanLength(spans[i]);
        }
        if (!exposed) {
            knownSize = n;
        }
        return n;
    }

    /** Appends a frame whose ownership passes to the message. */
    public ZmtpMessage add(ByteBuf frame) {
        live();
        if (frame == null) {
            throw new NullPointerException("frame");
        }
        addFrame(frame);
        return this;
    }

    /** Appends a UTF-8 string frame. */
    public ZmtpMessage add(String frame) {
        return add(frame.isEmpty() ? Unpooled.EMPTY_BUFFER
                : Unpooled.wrappedBuffer(frame.getBytes(StandardCharsets.UTF_8)));
    }

    /** Appends a frame that wraps {@code frame} (no copy). */
    public ZmtpMessage add(byte[] frame) {
        return add(frame.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(frame));
    }

    /** Appends an empty frame. */
    public ZmtpMessage addEmpty() {
        return add(Unpooled.EMPTY_BUFFER);
    }

    /** Puts a frame in front of the others (an envelope push); ownership passes to the message. */
    public ZmtpMessage addFirst(ByteBuf frame) {
        live();
        if (frame == null) {
            throw new NullPointerException("frame");
        }
        materialize(); // a lazy head stays lazy only in front
        knownSize = -1;
        pushFront(frame);
        return this;
    }

    /**
     * Puts a frame in front of the others that stays a {@link LazyFrame} until something reads it
     * as a buffer: how a ROUTER puts its peer's routing id in front (a broker that drops the id, or
     * a ROUTER that routes by it, then makes no buffer of it). The message's frames are unchanged
     * otherwise; {@link #frame}, {@link #removeFirst} and the like see an ordinary frame.
     */
    public ZmtpMessage addFirst(LazyFrame frame) {
        live();
        if (frame == null) {
            throw new NullPointerException("frame");
        }
        materialize();
        pushFront(null);
        lazyHead = frame;
        if (knownSize >= 0) {
            knownSize += frame.bytes().length;
        }
        return this;
    }

    /** The first frame if it is still a {@link LazyFrame} (not read as a buffer yet), else null. */
    public LazyFrame lazyFirst() {
        live();
        return lazyHead;
    }

    /** Removes and returns the first frame, whose ownership passes to the caller. */
    public ByteBuf removeFirst() {
        live();
        if (isEmpty()) {
            throw new IndexOutOfBoundsException("no frame to remove");
        }
        ByteBuf f = slot(head);
        frames[head++] = null;
        return f;
    }

    /** Removes and releases the first frame. */
    public ZmtpMessage dropFirst() {
        live();
        if (lazyHead != null) {
            if (knownSize >= 0) {
                knownSize -= lazyHead.bytes().length;
            }
            lazyHead = null; // never made a buffer: nothing to release
            head++;
            return this;
        }
        if (isEmpty()) {
            throw new IndexOutOfBoundsException("no frame to remove");
        }
        long span = spanAt(head);
        if (span != 0) {
            if (knownSize >= 0) {
                knownSize -= spanLength(span);
            }
            spans[head++] = 0; // never made a buffer: the message's one reference covers it
            return this;
        }
        ByteBuf f = frames[head];
        frames[head++] = null;
        knownSize = -1; // not handed out: sizes may still be kept
        f.release();
        return this;
    }

    /** Removes and returns the last frame, whose ownership passes to the caller. */
    public ByteBuf removeLast() {
        live();
        if (isEmpty()) {
            throw new IndexOutOfBoundsException("no frame to remove");
        }
        ByteBuf f = slot(tail - 1);
        frames[--tail] = null;
        return f;
    }

    /**
     * Moves the first {@code n} frames into a new message (an envelope split, as REP does);
     * ownership of those frames passes to the returned message.
     */
    public ZmtpMessage takeFirst(int n) {
        live();
        if (n < 0 || n > size()) {
            throw new IndexOutOfBoundsException("cannot remove " + n + " of " + size() + " frames");
        }
        ZmtpMessage env = newMessage();
        for (int i = 0; i < n; i++) {
            env.add(removeFirst());
        }
        return env;
    }

    /**
     * Puts all frames of {@code envelope} in front of this message's frames, and releases the
     * envelope message object (its frames now belong to this message).
     */
    public ZmtpMessage prepend(ZmtpMessage envelope) {
        live();
        envelope.live();
        envelope.materializeAll();
        for (int i = envelope.size() - 1; i >= 0; i--) {
            addFirst(envelope.frames[envelope.head + i]);
            envelope.frames[envelope.head + i] = null;
        }
        envelope.tail = envelope.head;
        envelope.release();
        return this;
    }

    /**
     * The peer's connection properties (Socket-Type, Identity, User-Id, X- properties...) of the
     * connection this message arrived on; empty for a message built locally.
     */
    public ZmtpMetadata properties() {
        live();
        return properties;
    }

    /**
     * RADIO/DISH (RFC 48): the group this message belongs to, or null when it has none. A DISH's
     * received messages carry the group they were published to.
     */
    public String group() {
        live();
        return group;
    }

    /**
     * Sets the group a RADIO publishes this message to: 1-255 bytes once encoded as UTF-8, or null
     * for none. The bytes are encoded here, once, however many peers the message goes to.
     *
     * @return this message
     * @throws IllegalArgumentException for an empty group or one of more than 255 bytes
     */
    public ZmtpMessage group(String g) {
        live();
        if (g == null) {
            group = null;
            groupUtf8 = null;
            return this;
        }
        byte[] b = g.getBytes(StandardCharsets.UTF_8);
        if (b.length < 1 || b.length > ZmtpWire.MAX_GROUP_LENGTH) {
            throw new IllegalArgumentException("a group is 1-" + ZmtpWire.MAX_GROUP_LENGTH
                    + " bytes of UTF-8, not " + b.length);
        }
        group = g;
        groupUtf8 = b;
        return this;
    }

    /** The group as it travels (the array itself: not to be changed), or null. */
    byte[] groupUtf8() {
        return groupUtf8;
    }

    /** The group read from a RADIO's group frame (1-255 bytes, checked by the reader). */
    void groupFromWire(byte[] utf8) {
        groupUtf8 = utf8;
        group = new String(utf8, StandardCharsets.UTF_8);
    }

    /** The length of frame {@code i}, without making a buffer of a span. */
    int frameLength(int i) {
        live();
        checkIndex(i);
        long span = spanAt(head + i);
        if (span != 0) {
            return spanLength(span);
        }
        return frame(i).readableBytes();
    }

    /**
     * Lets this message object go to the garbage collector at its last release instead of back to
     * its thread's pool; its frames are released as always. For a message handed to another
     * thread, as an inproc:// hop between two event loops does. A pooled object lives long enough
     * to be promoted to the old generation, and then, under G1, each reference another thread
     * stores into it (an envelope frame, the peer's properties) costs that thread a memory fence
     * and the collector a card to refine; a young object costs neither. Measured: the inproc round
     * trip over two loops ran about a third slower once its pooled messages had been promoted;
     * without reuse it stays within about a tenth of its speed before promotion, for about 200
     * bytes of short-lived garbage per call (benchmarks/RESULTS.md). A message that
     * stays on the thread that made it is still reused.
     *
     * @return this message
     */
    public ZmtpMessage doNotReuse() {
        live();
        notReused = true;
        return this;
    }

    /**
     * The routing id of the SERVER or PEER connection this message arrived on, or, on an outgoing
     * message, of the peer it is for; 0 when it has none. A non-zero 32-bit number the socket gave
     * the connection (as libzmq's {@code zmq_msg_routing_id}). Not a frame: it does not travel.
     */
    public int routingId() {
        live();
        return routingId;
    }

    /**
     * Sets the peer a SERVER or PEER sends this message to (the {@link #routingId()} of a message
     * it received from that peer); 0 clears it. Other types ignore it.
     *
     * @return this message
     */
    public ZmtpMessage routingId(int id) {
        live();
        this.routingId = id;
        return this;
    }

    /** Sets the properties returned by {@link #properties()}; the codec does this on receipt. */
    public ZmtpMessage properties(ZmtpMetadata properties) {
        live();
        this.properties = properties == null ? ZmtpMetadata.EMPTY : properties;
        return this;
    }

    /**
     * A new message with the same frames, each a retained duplicate (independent indexes, shared
     * content): what to hand to another owner that may change its envelope. Named as Netty's
     * {@code ByteBuf.retainedDuplicate()}: no bytes are copied.
     */
    public ZmtpMessage retainedDuplicate() {
        live();
        ZmtpMessage m = newMessage();
        int i = head;
        if (lazyHead != null) {
            m.pushFront(null); // an empty message: this is its first frame
            m.lazyHead = lazyHead;
            m.knownSize = lazyHead.bytes().length; // as addFirst(LazyFrame) counts it
            i++;
        }
        for (; i < tail; i++) {
            ByteBuf f = frames[i];
            if (f == null) {
                long span = spans[i];
                m.addSpan(backing, spanIndex(span), spanLength(span));
            } else {
                m.add(f.isReadable() ? f.retainedDuplicate() : Unpooled.EMPTY_BUFFER);
            }
        }
        m.properties = properties;
        m.routingId = routingId;
        m.group = group;
        m.groupUtf8 = groupUtf8;
        return m;
    }

    /**
     * The former name of {@link #retainedDuplicate()}, which copies no bytes.
     *
     * @deprecated use {@link #retainedDuplicate()}
     */
    @Deprecated
    public ZmtpMessage retainedCopy() {
        return retainedDuplicate();
    }

    /** A deep copy into unpooled heap buffers (for tests and for keeping data long). */
    public ZmtpMessage copy() {
        live();
        ZmtpMessage m = newMessage();
        for (int i = head; i < tail; i++) {
            m.add(i == head && lazyHead != null ? lazyHead.bytes().clone() : frameBytes(i - head));
        }
        m.properties = properties;
        m.routingId = routingId;
        m.group = group;
        m.groupUtf8 = groupUtf8;
        return m;
    }

    @Override
    public ZmtpMessage retain() {
        super.retain();
        return this;
    }

    @Override
    public ZmtpMessage retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public ZmtpMessage touch() {
        return touch(null);
    }

    @Override
    public ZmtpMessage touch(Object hint) {
        live();
        touchFrames(hint);
        return this;
    }

    @Override
    protected void deallocate() {
        releaseFrames();
        if (pool == null || notReused) {
            return; // the object itself is garbage: the rest only readies it for reuse
        }
        resetFrames();
        properties = ZmtpMetadata.EMPTY;
        routingId = 0;
        group = null;
        groupUtf8 = null;
        pool.recycle(this);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("ZmtpMessage[");
        if (refCnt() == 0) {
            return sb.append("released]").toString();
        }
        for (int i = head; i < tail; i++) {
            if (i > head) {
                sb.append(", ");
            }
            if (i == head && lazyHead != null) {
                sb.append(FrameText.describe(Unpooled.wrappedBuffer(lazyHead.bytes())));
                continue;
            }
            long span = spanAt(i);
            ByteBuf f = span != 0 ? backing.slice(spanIndex(span), spanLength(span)) : frames[i];
            sb.append(FrameText.describe(f));
        }
        return sb.append(']').toString();
    }
}
