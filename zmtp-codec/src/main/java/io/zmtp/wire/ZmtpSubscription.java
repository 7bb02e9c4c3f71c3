package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.DefaultByteBufHolder;
import io.netty.buffer.Unpooled;

/**
 * A subscription change travelling from a SUB/XSUB to a PUB/XPUB, or from a DISH to a RADIO. The
 * codec writes it in the form the peer expects (a SUBSCRIBE/CANCEL command to a ZMTP 3.1 peer, a
 * message prefixed with 0x01/0x00 to a 3.0 peer; JOIN/LEAVE for a group) and turns received
 * SUBSCRIBE/CANCEL (and, at a RADIO, JOIN/LEAVE) commands into this object. The topic is a
 * binary prefix, where an empty topic matches every message; a group ({@link #isGroup()}, RFC 48)
 * is 1-255 bytes, matched exactly.
 */
public final class ZmtpSubscription extends DefaultByteBufHolder {
    private final boolean subscribe;
    /** JOIN/LEAVE of a RADIO/DISH group, not a SUBSCRIBE/CANCEL of a prefix. */
    private final boolean group;

    public ZmtpSubscription(boolean subscribe, ByteBuf topic) {
        this(subscribe, false, topic);
    }

    private ZmtpSubscription(boolean subscribe, boolean group, ByteBuf topic) {
        super(topic);
        this.subscribe = subscribe;
        this.group = group;
    }

    /** A DISH's JOIN ({@code join}) or LEAVE of {@code group} (1-255 bytes, not checked here); owns it. */
    public static ZmtpSubscription group(boolean join, ByteBuf group) {
        return new ZmtpSubscription(join, true, group);
    }

    /** A DISH's JOIN of {@code group} (its UTF-8 bytes, wrapped: not to be changed afterwards). */
    public static ZmtpSubscription join(byte[] group) {
        return new ZmtpSubscription(true, true, Unpooled.wrappedBuffer(group));
    }

    /** A DISH's LEAVE of {@code group} (its UTF-8 bytes, wrapped: not to be changed afterwards). */
    public static ZmtpSubscription leave(byte[] group) {
        return new ZmtpSubscription(false, true, Unpooled.wrappedBuffer(group));
    }

    /** True for a RADIO/DISH group's JOIN or LEAVE, false for a prefix's SUBSCRIBE or CANCEL. */
    public boolean isGroup() {
        return group;
    }

    /** The group of a JOIN or LEAVE, decoded as UTF-8. */
    public String groupName() {
        return content().toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    public static ZmtpSubscription subscribe(byte[] topic) {
        return new ZmtpSubscription(true, topic.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(topic));
    }

    public static ZmtpSubscription cancel(byte[] topic) {
        return new ZmtpSubscription(false, topic.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(topic));
    }

    /**
     * Reads the message form of a subscription (23/ZMTP, used by ZMTP 3.0 peers and by XSUB/XPUB
     * applications): one frame whose first byte is 1 (subscribe) or 0 (cancel), then the topic.
     * Returns null for any other message. The message is not released.
     */
    public static ZmtpSubscription fromMessage(ZmtpMessage m) {
        if (m.size() != 1) {
            return null;
        }
        ByteBuf f = m.frame(0);
        if (!f.isReadable()) {
            return null;
        }
        byte kind = f.getByte(f.readerIndex());
        if (kind != 0 && kind != 1) {
            return null;
        }
        return new ZmtpSubscription(kind == 1, f.retainedSlice(f.readerIndex() + 1, f.readableBytes() - 1));
    }

    /** The message form: one frame, 1 or 0 and then the topic (what XPUB hands its application). */
    public ZmtpMessage toMessage() {
        byte[] t = new byte[1 + content().readableBytes()];
        t[0] = (byte) (subscribe ? 1 : 0);
        content().getBytes(content().readerIndex(), t, 1, t.length - 1);
        return ZmtpMessage.of(t);
    }

    /** {@link #toMessage()}, then releases this subscription. */
    public ZmtpMessage toMessageAndRelease() {
        try {
            return toMessage();
        } finally {
            release();
        }
    }

    /** True for SUBSCRIBE (or JOIN), false for CANCEL (or LEAVE). */
    public boolean isSubscribe() {
        return subscribe;
    }

    /** The prefix (owned by this object). */
    public ByteBuf topic() {
        return content();
    }

    public byte[] topicBytes() {
        return ByteBufUtil.getBytes(content());
    }

    @Override
    public ZmtpSubscription replace(ByteBuf content) {
        return new ZmtpSubscription(subscribe, group, content);
    }

    @Override
    public ZmtpSubscription retain() {
        super.retain();
        return this;
    }

    @Override
    public ZmtpSubscription retainedDuplicate() {
        return replace(content().retainedDuplicate());
    }

    @Override
    public String toString() {
        String kind = group ? (subscribe ? "JOIN " : "LEAVE ") : (subscribe ? "SUBSCRIBE " : "CANCEL ");
        return kind + FrameText.describe(content());
    }
}
