package io.zmtp.benchmarks.tripping;

import io.zmtp.benchmarks.JeromqPeers;
import org.zeromq.SocketType;
import org.zeromq.ZMQ;
import zmq.Msg;

import java.nio.charset.StandardCharsets;

/**
 * JeroMQ's twin of {@link ZmtpClientServer}: its SERVER on a thread of its own sends each request
 * back (the message received carries its client's routing id), its CLIENT is on the benchmark
 * thread. High-water marks of {@value #HWM} everywhere, as ours.
 */
final class JeromqClientServer implements TrippingTopology {
    private static final byte[] HELLO = "hello".getBytes(StandardCharsets.US_ASCII);
    private static final int HWM = 1_000_000;
    private static final int WAIT_MS = 30_000;

    private final JeromqPeers peers = new JeromqPeers();
    private final ZMQ.Socket client;

    JeromqClientServer() {
        ZMQ.Socket server = peers.socket(SocketType.SERVER);
        server.setHWM(HWM);
        String endpoint = JeromqPeers.bind(server, "tcp://127.0.0.1:*");
        client = peers.benchmarkSocket(SocketType.CLIENT);
        client.setHWM(HWM);
        client.setReceiveTimeOut(WAIT_MS);
        client.connect(endpoint);
        peers.start("jeromq-server", () -> {
            Msg request;
            while ((request = server.recvMsg(0)) != null) {
                server.sendMsg(request, 0);
            }
        }, server);
    }

    @Override
    public void synchronous(int calls) {
        for (int i = 0; i < calls; i++) {
            client.send(HELLO, 0);
            receiveReply();
        }
    }

    @Override
    public void asynchronous(int calls) {
        for (int i = 0; i < calls; i++) {
            client.send(HELLO, 0);
        }
        for (int i = 0; i < calls; i++) {
            receiveReply();
        }
    }

    private void receiveReply() {
        if (client.recv(0) == null) {
            throw new IllegalStateException("no reply within " + WAIT_MS + " ms");
        }
    }

    @Override
    public void close() {
        peers.close();
    }
}
