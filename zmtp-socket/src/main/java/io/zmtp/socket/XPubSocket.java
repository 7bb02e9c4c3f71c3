package io.zmtp.socket;

import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpSubscription;

import java.util.HashMap;
import java.util.HashSet;

/**
 * XPUB: a PUB that shows subscriptions to the application, as a proxy needs them. A new
 * subscription (the first subscriber of a prefix) arrives as a message of one frame, byte 1 and
 * then the prefix; when the last subscriber of a prefix cancels or goes away, byte 0 and the
 * prefix. With {@link SocketOptions.Builder#xpubVerbose verbose} every subscribe is passed on.
 * Other messages from subscribers (an XSUB may send some) are delivered as they are.
 *
 * <p>With {@link SocketOptions.Builder#xpubManual manual} subscriptions, every subscribe and
 * cancel is delivered and none changes the filter: the application calls {@link #subscribe} and
 * {@link #unsubscribe}, which apply to the peer of the subscription message it was handed last
 * (call them from the message handler, on the loop, as libzmq's application calls setsockopt
 * after zmq_recv). A {@link SocketOptions.Builder#xpubWelcomeMessage welcome message} goes to
 * each peer as it connects.
 */
public final class XPubSocket extends ZmtpSocket {
    private final Distributor out;
    /** XPUB_MANUAL: what each peer asked for (its own subscriptions, not the filter's). */
    private final HashMap<Pipe, HashSet<RoutingId>> requested = new HashMap<>();
    /** XPUB_MANUAL: the peer of the last subscription delivered, which subscribe() changes. */
    private Pipe lastSubscriber;

    XPubSocket(Setup setup) {
        super(setup, SocketType.XPUB);
        this.out = new Distributor(setup.options());
    }

    @Override
    SendResult route(ZmtpMessage msg) {
        return out.publish(msg, pipes(), options());
    }

    @Override
    boolean pipeAttached(Pipe pipe) {
        receiveFrom(pipe);
        byte[] welcome = options().xpubWelcomeMessage();
        if (welcome != null) {
            pipe.write(ZmtpMessage.of(welcome));
        }
        return true;
    }

    @Override
    void pipeDetached(Pipe pipe) {
        stopReceivingFrom(pipe);
        if (options().xpubManual()) {
            out.removeAll(pipe, null);
            if (lastSubscriber == pipe) {
                lastSubscriber = null;
            }
            HashSet<RoutingId> asked = requested.remove(pipe);
            if (asked != null && !isClosing()) {
                for (RoutingId prefix : asked) {
                    deliver(ZmtpSubscription.cancel(prefix.array()).toMessageAndRelease());
                }
            }
        } else {
            out.removeAll(pipe, prefix -> deliver(ZmtpSubscription.cancel(prefix).toMessageAndRelease()));
        }
        if (options().xpubNoDrop()) {
            retryWaitingSends();   // a send may have waited for this subscriber only
        }
    }

    @Override
    void subscriptionReceived(Pipe pipe, ZmtpSubscription sub) {
        if (options().xpubManual()) {
            manualSubscriptionReceived(pipe, sub);
            return;
        }
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

    /**
     * XPUB_MANUAL: a peer's subscribe or cancel goes to the application as it is, and is
     * remembered (so that its cancels can be passed on when the peer goes), bounded by the
     * subscription limits; the filter is not touched.
     */
    private void manualSubscriptionReceived(Pipe pipe, ZmtpSubscription sub) {
        try {
            RoutingId prefix = RoutingId.wrap(sub.topicBytes());
            HashSet<RoutingId> asked = requested.computeIfAbsent(pipe, p -> new HashSet<>());
            if (sub.isSubscribe()) {
                int len = prefix.array().length;
                String refusal = null;
                if (len > options().maxSubscriptionSize()) {
                    refusal = "subscription of " + len + " bytes exceeds the maximum of " + options().maxSubscriptionSize();
                } else if (asked.size() >= options().maxSubscriptions() && !asked.contains(prefix)) {
                    refusal = "more than " + options().maxSubscriptions() + " subscriptions from one peer";
                }
                if (refusal != null) {
                    pipe.refuse(refusal);
                    return;
                }
                asked.add(prefix);
            } else {
                asked.remove(prefix);
            }
            lastSubscriber = pipe;
            deliver(sub.toMessage());
        } finally {
            sub.release();
        }
    }

    /**
     * XPUB_MANUAL: subscribes the peer whose subscription message was delivered last to
     * {@code prefix} (libzmq: ZMQ_SUBSCRIBE set on the XPUB). Call it from the message handler
     * of that subscription, on the loop, where it takes effect at once; from another thread it
     * applies to the peer of the last subscription delivered when the loop runs it. The future
     * fails with {@link IllegalStateException} when that peer has gone, and with
     * {@link IllegalArgumentException} past the subscription limits. Without XPUB_MANUAL an XPUB
     * has no subscriptions of its own: the future fails as {@link ZmtpSocket#subscribe} says.
     */
    @Override
    public Future<Void> subscribe(byte[] prefix) {
        return manually(prefix, true);
    }

    /** XPUB_MANUAL: removes {@code prefix} from the filter of the peer of the last subscription delivered. */
    @Override
    public Future<Void> unsubscribe(byte[] prefix) {
        return manually(prefix, false);
    }

    private Future<Void> manually(byte[] prefix, boolean subscribe) {
        if (!options().xpubManual()) {
            return subscribe ? super.subscribe(prefix) : super.unsubscribe(prefix);
        }
        byte[] p = prefix.clone();
        Promise<Void> done = eventLoop().newPromise();
        inLoop(() -> {
            Pipe target = lastSubscriber != null && lastSubscriber.attached ? lastSubscriber : null;
            if (target == null) {
                done.tryFailure(new IllegalStateException("the peer of the last subscription delivered has gone"));
                return;
            }
            if (subscribe) {
                String refusal = out.refusal(target, Unpooled.wrappedBuffer(p));
                if (refusal != null) {
                    done.tryFailure(new IllegalArgumentException(refusal));
                    return;
                }
                out.subscribe(target, p);
            } else {
                out.cancel(target, p);
            }
            done.trySuccess(null);
        });
        return done;
    }

    /** How many distinct prefixes subscribers have subscribed to. Call on the event loop. */
    public int subscriptionCount() {
        return out.prefixCount();
    }
}
