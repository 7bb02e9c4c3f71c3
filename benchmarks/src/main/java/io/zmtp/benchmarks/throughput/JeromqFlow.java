package io.zmtp.benchmarks.throughput;

import io.zmtp.benchmarks.JeromqPeers;
import org.zeromq.SocketType;
import org.zeromq.ZMQ;

import java.util.function.Consumer;

/** JeroMQ's twin: the sender on the calling thread, a receiver thread that counts. */
final class JeromqFlow extends MessageFlow {
    private final JeromqPeers peers = new JeromqPeers();
    private final ZMQ.Socket sender;

    JeromqFlow(boolean pubsub, int size, Consumer<ZMQ.Socket> senderOptions, Consumer<ZMQ.Socket> receiverOptions) {
        super(size);
        sender = peers.benchmarkSocket(pubsub ? SocketType.PUB : SocketType.PUSH);
        senderOptions.accept(sender);
        String endpoint = JeromqPeers.bind(sender, "tcp://127.0.0.1:*");
        ZMQ.Socket receiver = peers.socket(pubsub ? SocketType.SUB : SocketType.PULL);
        receiverOptions.accept(receiver);
        if (pubsub) {
            receiver.subscribe(new byte[0]);
        }
        receiver.connect(endpoint);
        ReceiveCounter c = counter;
        peers.start("jeromq-receiver", () -> {
            while (true) {
                c.received(receiver.recv(0)[0]);
            }
        }, receiver);
        awaitReady();
    }

    @Override
    void send(byte[] message) {
        sender.send(message, 0);
    }

    @Override
    public void close() {
        peers.close();
    }
}
