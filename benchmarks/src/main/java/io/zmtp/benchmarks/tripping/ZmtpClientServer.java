package io.zmtp.benchmarks.tripping;

import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Ours: the SERVER is a reactor that sends each request back from its event loop (the message
 * received carries its client's routing id, so it goes back as it came); the CLIENT is a
 * {@link BlockingSocket} on the calling thread. A context with its default event loops, as
 * {@link ZmtpTripping}; both sockets' high-water marks are {@value #HWM}, as every socket's in
 * {@link JeromqClientServer}, so no asynchronous call waits at a mark.
 */
final class ZmtpClientServer implements TrippingTopology {
    private static final byte[] HELLO = "hello".getBytes(StandardCharsets.US_ASCII);
    private static final int HWM = 1_000_000;
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ZmtpContext ctx = ZmtpContext.create();
    private final BlockingSocket client;

    ZmtpClientServer() {
        SocketOptions options = SocketOptions.builder().hwm(HWM).build();
        ZmtpSocket server = ctx.socket(SocketType.SERVER, options);
        server.onMessage(request -> {
            if (!server.trySend(request)) { // never at a mark of 1,000,000: the caller's receive would time out
                request.release();
            }
        });
        String endpoint = server.bind("tcp://127.0.0.1:0").syncUninterruptibly().getNow();
        client = ctx.blocking(SocketType.CLIENT, options);
        client.connect(endpoint);
    }

    @Override
    public void synchronous(int calls) {
        for (int i = 0; i < calls; i++) {
            client.send(ZmtpMessage.of(HELLO));
            receiveReply();
        }
    }

    @Override
    public void asynchronous(int calls) {
        for (int i = 0; i < calls; i++) {
            client.send(ZmtpMessage.of(HELLO));
        }
        for (int i = 0; i < calls; i++) {
            receiveReply();
        }
    }

    private void receiveReply() {
        ZmtpMessage reply = client.receive(WAIT);
        if (reply == null) {
            throw new IllegalStateException("no reply within " + WAIT);
        }
        reply.release();
    }

    @Override
    public void close() {
        ctx.close(Duration.ofSeconds(5));
    }
}
