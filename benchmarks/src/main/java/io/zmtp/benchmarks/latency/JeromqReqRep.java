package io.zmtp.benchmarks.latency;

import io.zmtp.benchmarks.JeromqPeers;
import org.zeromq.SocketType;
import org.zeromq.ZMQ;

import java.util.Arrays;

/** JeroMQ's twin: a REP thread that sends each request back; the REQ client on the calling thread. */
final class JeromqReqRep implements ReqRepRoundTrip {
    private final JeromqPeers peers = new JeromqPeers();
    private final ZMQ.Socket req;
    private final byte[] payload;

    JeromqReqRep(int size) {
        payload = new byte[size];
        Arrays.fill(payload, (byte) 'R');
        ZMQ.Socket rep = peers.socket(SocketType.REP);
        String endpoint = JeromqPeers.bind(rep, "tcp://127.0.0.1:*");
        peers.start("jeromq-rep", () -> {
            while (true) {
                rep.send(rep.recv(0), 0);
            }
        }, rep);
        req = peers.benchmarkSocket(SocketType.REQ);
        req.connect(endpoint);
    }

    @Override
    public void call() {
        req.send(payload, 0);
        byte[] reply = req.recv(0);
        if (reply.length != payload.length) {
            throw new IllegalStateException("reply of " + reply.length + " bytes to a request of " + payload.length);
        }
    }

    @Override
    public void close() {
        peers.close();
    }
}
