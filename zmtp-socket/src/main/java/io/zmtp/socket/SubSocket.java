package io.zmtp.socket;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpSubscription;

/**
 * SUB: receives the messages of its publishers whose first frame starts with one of its
 * subscriptions (binary prefixes; the empty prefix matches all). Subscriptions may change at
 * any time; they are sent to every publisher in the form its ZMTP version expects, and sent
 * again to a publisher that reconnects. Subscribing twice needs two unsubscribes.
 */
public final class SubSocket extends ZmtpSocket {
    private final SubscriptionSet subscriptions = new SubscriptionSet();
    /** ZMQ_INVERT_MATCHING: deliver what matches no subscription. */
    private final boolean invertMatching;

    SubSocket(Setup setup) {
        super(setup, SocketType.SUB);
        this.invertMatching = setup.options().invertMatching();
    }

    /** CONFLATE applies to this type, as in libzmq. */
    @Override
    boolean conflates() {
        return true;
    }

    /** Subscribes to messages starting with {@code prefix}. */
    @Override
    public Future<Void> subscribe(byte[] prefix) {
        byte[] p = prefix.clone();
        Promise<Void> done = eventLoop().newPromise();
        inLoop(() -> {
            subscriptions.add(p);
            Distributor.sendToAll(pipes(), ZmtpSubscription.subscribe(p), true);
            done.trySuccess(null);
        });
        return done;
    }

    /** Removes one subscription to {@code prefix}. */
    @Override
    public Future<Void> unsubscribe(byte[] prefix) {
        byte[] p = prefix.clone();
        Promise<Void> done = eventLoop().newPromise();
        inLoop(() -> {
            if (subscriptions.remove(p)) {
                Distributor.sendToAll(pipes(), ZmtpSubscription.cancel(p), true);
            }
            done.trySuccess(null);
        });
        return done;
    }

    /** The number of distinct prefixes subscribed to. Call on the event loop. */
    public int subscriptionCount() {
        return subscriptions.size();
    }

    @Override
    SendResult route(ZmtpMessage msg) {
        throw new UnsupportedOperationException("a SUB socket cannot send; use subscribe()");
    }

    @Override
    boolean pipeAttached(Pipe pipe) {
        receiveFrom(pipe);
        subscriptions.forEach(prefix -> pipe.write(ZmtpSubscription.subscribe(prefix)));
        return true;
    }

    @Override
    void pipeDetached(Pipe pipe) {
        stopReceivingFrom(pipe);
    }

    @Override
    void received(Pipe pipe, ZmtpMessage msg) {
        if (subscriptions.matches(msg.frame(0)) != invertMatching) {
            deliver(msg);
        } else {
            msg.release();
        }
    }
}
