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
