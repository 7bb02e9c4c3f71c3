package io.zmtp.benchmarks.throughput;

import io.zmtp.benchmarks.JeromqPeers;
import org.zeromq.SocketType;
import org.zeromq.ZMQ;
import zmq.Msg;

/**
 * JeroMQ's twin of {@link ZmtpRadioDishFlow} over tcp (JeroMQ 0.6.0 has no udp://): a DISH
 * thread that binds, joins and counts; the RADIO on the calling thread, connected.
 */
final class JeromqRadioDishFlow extends MessageFlow {
    private final JeromqPeers peers = new JeromqPeers();
    private final ZMQ.Socket radio;

    JeromqRadioDishFlow(int size, int hwm) {
        super(size);
        ZMQ.Socket dish = peers.socket(SocketType.DISH);
        dish.setHWM(hwm);
        String endpoint = JeromqPeers.bind(dish, "tcp://127.0.0.1:*");
        dish.join(ZmtpRadioDishFlow.GROUP);
        radio = peers.benchmarkSocket(SocketType.RADIO);
        radio.setHWM(hwm);
        radio.connect(endpoint);
        ReceiveCounter c = counter;
        peers.start("jeromq-dish", () -> {
            Msg m;
            while ((m = dish.recvMsg(0)) != null) {
                c.received(m.get(0));
            }
        }, dish);
        awaitReady();
    }

    @Override
    void send(byte[] message) {
        Msg m = new Msg(message);
        m.setGroup(ZmtpRadioDishFlow.GROUP);
        radio.sendMsg(m, 0);
    }

    @Override
    public void close() {
        peers.close();
    }
}
