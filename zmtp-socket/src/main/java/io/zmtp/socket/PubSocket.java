package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpSubscription;

/**
 * PUB: each message goes to every subscriber with a subscription that is a prefix of its first
 * frame; a subscriber at its high-water mark misses it. Subscriptions arrive as SUBSCRIBE/CANCEL
 * commands (ZMTP 3.1) or as 0x01/0x00-prefixed messages (ZMTP 3.0); both are understood.
 */
public final class PubSocket extends ZmtpSocket {
    private final Distributor out;

    PubSocket(Setup setup) {
        super(setup, SocketType.PUB);
        this.out = new Distributor(setup.options());
    }

    /** CONFLATE applies to this type, as in libzmq. */
    @Override
    boolean conflates() {
        return true;
    }

    @Override
    SendResult route(ZmtpMessage msg) {
        return out.publish(msg, pipes(), options());
    }

    @Override
    boolean pipeAttached(Pipe pipe) {
        return true;
    }

    @Override
    void pipeDetached(Pipe pipe) {
        out.removeAll(pipe, null);
        if (options().xpubNoDrop()) {
            retryWaitingSends();   // a send may have waited for this subscriber only
        }
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
                out.subscribe(pipe, sub.topicBytes());
            } else {
                out.cancel(pipe, sub.topicBytes());
            }
        } finally {
            sub.release();
        }
    }

    @Override
    void received(Pipe pipe, ZmtpMessage msg) {
        ZmtpSubscription sub = ZmtpSubscription.fromMessage(msg);
        msg.release();
        if (sub != null) {
            subscriptionReceived(pipe, sub);
        }
    }

    /** How many distinct prefixes subscribers have subscribed to. Call on the event loop. */
    public int subscriptionCount() {
        return out.prefixCount();
    }

    /** The nodes of the subscription index (memory held for subscriptions). Call on the event loop. */
    int subscriptionNodes() {
        return out.nodeCount();
    }

    /** The prefix bytes the subscription index holds. Call on the event loop. */
    long subscriptionBytes() {
        return out.indexBytes();
    }
}
