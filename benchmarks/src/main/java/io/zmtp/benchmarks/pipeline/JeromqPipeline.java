package io.zmtp.benchmarks.pipeline;

import io.zmtp.benchmarks.JeromqPeers;
import org.zeromq.SocketType;
import org.zeromq.ZMQ;

import java.util.Arrays;

/**
 * JeroMQ's twin: a ROUTER thread that sends each request back to its sender (mandatory routing,
 * so it blocks at the high-water mark instead of dropping); the DEALER client on the calling thread.
 */
final class JeromqPipeline implements RequestPipeline {
    private final JeromqPeers peers = new JeromqPeers();
    private final ZMQ.Socket client;
    private final byte[] payload;

    JeromqPipeline(int size) {
        payload = new byte[size];
        Arrays.fill(payload, (byte) 'Q');
        ZMQ.Socket server = peers.socket(SocketType.ROUTER);
        server.setRouterMandatory(true);
        String endpoint = JeromqPeers.bind(server, "tcp://127.0.0.1:*");
        peers.start("jeromq-router-echo", () -> {
            while (true) {
                byte[] id = server.recv(0);
                byte[] body = server.recv(0);
                server.send(id, ZMQ.SNDMORE);
                server.send(body, 0);
            }
        }, server);
        client = peers.benchmarkSocket(SocketType.DEALER);
        client.connect(endpoint);
    }

    @Override
    public void send() {
        client.send(payload, 0);
    }

    @Override
    public void receive() {
        client.recv(0);
    }

    @Override
    public void close() {
        peers.close();
    }
}
