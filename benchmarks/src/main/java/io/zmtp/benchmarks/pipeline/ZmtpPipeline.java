package io.zmtp.benchmarks.pipeline;

import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.Arrays;

/**
 * Ours: the ROUTER server is a reactor that sends each request back to its sender (routing
 * frame kept), waiting at the high-water mark rather than dropping (mandatory routing); the
 * DEALER client is a {@link BlockingSocket} on the calling thread.
 */
final class ZmtpPipeline implements RequestPipeline {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ZmtpContext ctx = ZmtpContext.create();
    private final BlockingSocket client;
    private final byte[] payload;

    ZmtpPipeline(int size) {
        payload = new byte[size];
        Arrays.fill(payload, (byte) 'Q');
        ZmtpSocket server = ctx.socket(SocketType.ROUTER, SocketOptions.builder().routerMandatory(true).build());
        server.onMessage(request -> {
            if (!server.trySend(request)) {
                server.pauseReceiving();
                server.send(request).addListener(f -> server.resumeReceiving());
            }
        });
        String endpoint = server.bind("tcp://127.0.0.1:0").syncUninterruptibly().getNow();
        client = ctx.blocking(SocketType.DEALER);
        client.connect(endpoint);
    }

    @Override
    public void send() {
        client.send(ZmtpMessage.of(payload));
    }

    @Override
    public void receive() {
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
