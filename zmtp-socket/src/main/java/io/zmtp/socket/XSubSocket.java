package io.zmtp.socket;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpSubscription;

/**
 * XSUB: a SUB driven by messages, as a proxy needs. The application subscribes by sending a
 * one-frame message of byte 1 and the prefix (byte 0 to cancel); they reach every publisher in
 * its ZMTP version's form and are sent again to a publisher that reconnects. Other messages go
 * upstream to every publisher. Everything received is delivered, unfiltered. {@link #subscribe}
 * and {@link #unsubscribe} do the same as those messages.
 */
public final class XSubSocket extends ZmtpSocket {
    private final SubscriptionSet subscriptions = new SubscriptionSet();

    XSubSocket(Setup setup) {
        super(setup, SocketType.XSUB);
    }

    @Override
    SendResult route(ZmtpMessage msg) {
        ZmtpSubscription sub = ZmtpSubscription.fromMessage(msg);
        if (sub == null) {
            Distributor.sendToAll(pipes(), msg, false);
            return SendResult.SENT;
        }
        msg.release();
        change(sub);
        return SendResult.SENT;
    }

    /** Applies a subscription or cancel of the application and passes it upstream (ownership passes). */
    private void change(ZmtpSubscription sub) {
        byte[] prefix = sub.topicBytes();
        boolean forward = true;
        if (sub.isSubscribe()) {
            subscriptions.add(prefix);
        } else {
            forward = subscriptions.remove(prefix);
        }
        if (forward) {
            Distributor.sendToAll(pipes(), sub, true);
        } else {
            sub.release();
        }
    }

    @Override
    public Future<Void> subscribe(byte[] prefix) {
        return changeInLoop(prefix, true);
    }

    @Override
    public Future<Void> unsubscribe(byte[] prefix) {
        return changeInLoop(prefix, false);
    }

    private Future<Void> changeInLoop(byte[] prefix, boolean subscribe) {
        byte[] p = prefix.clone();
        Promise<Void> done = eventLoop().newPromise();
        inLoop(() -> {
            change(subscribe ? ZmtpSubscription.subscribe(p) : ZmtpSubscription.cancel(p));
            done.trySuccess(null);
        });
        return done;
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
        deliver(msg);
    }
}
