package io.zmtp.socket;

import io.netty.channel.EventLoop;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpSubscription;

/**
 * XPUB: a PUB that shows subscriptions to the application, as a proxy needs them. A new
 * subscription (the first subscriber of a prefix) arrives as a message of one frame, byte 1 and
 * then the prefix; when the last subscriber of a prefix cancels or goes away, byte 0 and the
 * prefix. With {@link SocketOptions.Builder#xpubVerbose verbose} every subscribe is passed on.
 * Other messages from subscribers (an XSUB may send some) are delivered as they are.
 */
public final class XPubSocket extends ZmtpSocket {
    private final Distributor out;

    XPubSocket(ZmtpContext context, SocketOptions options, EventLoop loop) {
        super(context, SocketType.XPUB, options, loop);
        this.out = new Distributor(options);
    }

    @Override
    SendResult route(ZmtpMessage msg) {
        out.send(msg);
        return SendResult.SENT;
    }

    @Override
    boolean pipeAttached(Pipe pipe) {
        receiveFrom(pipe);
        return true;
    }

    @Override
    void pipeDetached(Pipe pipe) {
        stopReceivingFrom(pipe);
        out.removeAll(pipe, prefix -> deliver(ZmtpSubscription.cancel(prefix).toMessageAndRelease()));
    }

    @Override
    void subscriptionReceived(Pipe pipe, ZmtpSubscription sub) {
        try {
            if (sub.isSubscribe()) {
                String refusal = out.refusal(pipe, sub.topic());
                if (refusal != null) {
                    pipe.refuse(refusal);
                    return;
                }
            }
            byte[] prefix = sub.topicBytes();
            boolean tell = sub.isSubscribe()
                    ? out.subscribe(pipe, prefix) || options().xpubVerbose()
                    : out.cancel(pipe, prefix);
            if (tell) {
                deliver(sub.toMessage());
            }
        } finally {
            sub.release();
        }
    }

    @Override
    void received(Pipe pipe, ZmtpMessage msg) {
        ZmtpSubscription sub = ZmtpSubscription.fromMessage(msg);
        if (sub != null) {
            msg.release();
            subscriptionReceived(pipe, sub);
        } else {
            deliver(msg);
        }
    }

    /** How many distinct prefixes subscribers have subscribed to. Call on the event loop. */
    public int subscriptionCount() {
        return out.prefixCount();
    }
}
