package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.DefaultByteBufHolder;
import io.netty.buffer.Unpooled;

/**
 * A subscription change travelling from a SUB/XSUB to a PUB/XPUB. The codec writes it in the
 * form the peer expects (a SUBSCRIBE/CANCEL command to a ZMTP 3.1 peer, a message prefixed with
 * 0x01/0x00 to a 3.0 peer) and turns received SUBSCRIBE/CANCEL commands into this object.
 * The topic is a binary prefix; an empty topic matches every message.
 */
public final class ZmtpSubscription extends DefaultByteBufHolder {
    private final boolean subscribe;

    public ZmtpSubscription(boolean subscribe, ByteBuf topic) {
        super(topic);
        this.subscribe = subscribe;
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

    /** True for SUBSCRIBE, false for CANCEL. */
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
        return new ZmtpSubscription(subscribe, content);
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
        return (subscribe ? "SUBSCRIBE " : "CANCEL ") + FrameText.describe(content());
    }
}
