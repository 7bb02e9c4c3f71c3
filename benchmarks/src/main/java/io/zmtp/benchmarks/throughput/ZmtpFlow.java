package io.zmtp.benchmarks.throughput;

import io.netty.buffer.ByteBuf;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;

/**
 * Ours: the sender is a {@link BlockingSocket} on the calling thread (an application thread
 * publishing), the receiver a reactor that counts on its event loop. Default context (one event
 * loop per processor).
 */
final class ZmtpFlow extends MessageFlow {
    private final ZmtpContext ctx = ZmtpContext.create();
    private final BlockingSocket sender;

    ZmtpFlow(boolean pubsub, int size, SocketOptions senderOptions, SocketOptions receiverOptions) {
        this(pubsub, size, senderOptions, receiverOptions, "tcp://127.0.0.1:0");
    }

    /** The same over {@code bindEndpoint} (tcp, ws...; an ephemeral port). */
    ZmtpFlow(boolean pubsub, int size, SocketOptions senderOptions, SocketOptions receiverOptions, String bindEndpoint) {
        super(size);
        sender = BlockingSocket.wrap(ctx.socket(pubsub ? SocketType.PUB : SocketType.PUSH, senderOptions));
        String endpoint = sender.bind(bindEndpoint);
        ZmtpSocket receiver = ctx.socket(pubsub ? SocketType.SUB : SocketType.PULL, receiverOptions);
        receiver.onMessage(m -> {
            ByteBuf first = m.first();
            counter.received(first.getByte(first.readerIndex()));
            m.release();
        });
        if (pubsub) {
            receiver.subscribe(new byte[0]);
        }
        receiver.connect(endpoint).syncUninterruptibly();
        awaitReady();
    }

    @Override
    void send(byte[] message) {
        sender.send(ZmtpMessage.of(message));
    }

    @Override
    public void close() {
        ctx.close(Duration.ofSeconds(5));
    }
}
