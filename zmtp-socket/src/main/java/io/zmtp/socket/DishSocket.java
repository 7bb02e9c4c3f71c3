package io.zmtp.socket;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpSubscription;
import io.zmtp.wire.ZmtpWire;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;

/**
 * DISH (RFC 48): receives the messages of the groups it joined, each carrying its
 * {@link ZmtpMessage#group()}. {@link #join} and {@link #leave} send JOIN and LEAVE to every
 * RADIO peer, and every new connection (a reconnect too) gets a JOIN for each group joined; what
 * arrives is filtered by the groups here as well (a message in flight across a LEAVE, an inproc
 * peer, a udp:// datagram, which carries no JOIN). A DISH sends nothing else; it fair-queues its
 * peers as SUB does. Groups are exact names (not prefixes), 1-255 bytes of UTF-8.
 */
public final class DishSocket extends ZmtpSocket {
    private final HashSet<String> groups = new HashSet<>();

    DishSocket(Setup setup) {
        super(setup, SocketType.DISH);
    }

    /**
     * Joins {@code group}: its messages are delivered from now on. The future fails with
     * {@link IllegalArgumentException} for a group of 0 or more than 255 UTF-8 bytes, or one
     * already joined (as libzmq's zmq_join fails with EINVAL).
     */
    public Future<Void> join(String group) {
        return change(group, true);
    }

    /** Leaves {@code group}; the future fails with {@link IllegalArgumentException} if it was not joined. */
    public Future<Void> leave(String group) {
        return change(group, false);
    }

    private Future<Void> change(String group, boolean join) {
        byte[] utf8;
        try {
            utf8 = checkedGroup(group);
        } catch (IllegalArgumentException e) {
            return eventLoop().newFailedFuture(e);
        }
        Promise<Void> done = eventLoop().newPromise();
        inLoop(() -> {
            boolean changed = join ? groups.add(group) : groups.remove(group);
            if (!changed) {
                done.tryFailure(new IllegalArgumentException(join ? "already joined: " + group : "not joined: " + group));
                return;
            }
            // forced past the send mark: a JOIN or LEAVE must not be lost
            Distributor.sendToAll(pipes(), join ? ZmtpSubscription.join(utf8) : ZmtpSubscription.leave(utf8), true);
            done.trySuccess(null);
        });
        return done;
    }

    /** {@code group}'s UTF-8 bytes, 1-255 of them. */
    static byte[] checkedGroup(String group) {
        if (group == null) {
            throw new IllegalArgumentException("no group");
        }
        byte[] b = group.getBytes(StandardCharsets.UTF_8);
        if (b.length < 1 || b.length > ZmtpWire.MAX_GROUP_LENGTH) {
            throw new IllegalArgumentException("a group is 1-" + ZmtpWire.MAX_GROUP_LENGTH + " bytes of UTF-8, not "
                    + b.length);
        }
        return b;
    }

    /** The number of groups joined. Call on the event loop. */
    public int groupCount() {
        return groups.size();
    }

    @Override
    SendResult route(ZmtpMessage msg) {
        throw new UnsupportedOperationException("a DISH socket cannot send; use join()");
    }

    @Override
    boolean pipeAttached(Pipe pipe) {
        receiveFrom(pipe);
        for (String g : groups) {
            pipe.write(ZmtpSubscription.join(g.getBytes(StandardCharsets.UTF_8)));
        }
        return true;
    }

    @Override
    void pipeDetached(Pipe pipe) {
        stopReceivingFrom(pipe);
    }

    @Override
    void received(Pipe pipe, ZmtpMessage msg) {
        String g = msg.group();
        if (g != null && groups.contains(g)) {
            deliver(msg);
            return;
        }
        msg.release();
        if (pipe.isDatagram()) {
            counters().datagramDrop();
        }
    }
}
