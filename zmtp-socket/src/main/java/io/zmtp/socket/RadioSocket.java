package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpSubscription;

import java.util.ArrayList;

/**
 * RADIO (RFC 48): each message, which must carry a {@link ZmtpMessage#group(String) group},
 * goes to the DISH peers that joined that group (exact match) and to every udp:// peer (a
 * datagram carries no JOIN: the DISH at the other end filters). A peer at its send high-water
 * mark misses the message, as PUB's subscribers do. Single-frame messages only; a RADIO receives
 * nothing but its DISHes' JOIN and LEAVE.
 */
public final class RadioSocket extends ZmtpSocket {
    private final GroupIndex groups;
    /** udp:// peers: every message goes to them. */
    private final ArrayList<Pipe> datagramPeers = new ArrayList<>(1);

    RadioSocket(Setup setup) {
        super(setup, SocketType.RADIO);
        this.groups = new GroupIndex(setup.options());
    }

    @Override
    String sendRefusalOf(ZmtpMessage msg) {
        return msg.group() == null ? "a RADIO message needs a group: ZmtpMessage.group(String)" : null;
    }

    @Override
    SendResult route(ZmtpMessage msg) {
        String refusal = sendRefusalOf(msg);
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
        groups.send(msg, datagramPeers);
        return SendResult.SENT;
    }

    @Override
    boolean pipeAttached(Pipe pipe) {
        if (pipe.isDatagram()) {
            datagramPeers.add(pipe);
        }
        return true;
    }

    @Override
    void pipeDetached(Pipe pipe) {
        datagramPeers.remove(pipe);
        groups.removeAll(pipe);
    }

    @Override
    void subscriptionReceived(Pipe pipe, ZmtpSubscription sub) {
        try {
            if (!sub.isGroup()) {
                return; // a DISH sends JOIN and LEAVE only; the codec makes nothing else here
            }
            String group = sub.groupName();
            if (sub.isSubscribe()) {
                String refusal = groups.refusal(pipe, group);
                if (refusal != null) {
                    pipe.refuse(refusal);
                    return;
                }
                groups.join(pipe, group);
            } else {
                groups.leave(pipe, group);
            }
        } finally {
            sub.release();
        }
    }

    /** A DISH sends no messages (libzmq's RADIO cannot receive either): dropped. */
    @Override
    void received(Pipe pipe, ZmtpMessage msg) {
        msg.release();
    }

    /** How many distinct groups the DISH peers have joined. Call on the event loop. */
    public int groupCount() {
        return groups.groupCount();
    }
}
