package io.zmtp.benchmarks.throughput;

import io.netty.buffer.ByteBuf;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.DishSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;

/**
 * Ours, RADIO -> DISH: the DISH is a reactor that binds, joins {@value #GROUP} and counts on its
 * event loop; the RADIO is a {@link BlockingSocket} on the calling thread that connects (over
 * udp a RADIO must connect and a DISH bind, as in libzmq) and sends every message to that group.
 * Default context (one event loop per processor).
 */
final class ZmtpRadioDishFlow extends MessageFlow {
    static final String GROUP = "bench";

    private final ZmtpContext ctx = ZmtpContext.create();
    private final BlockingSocket radio;

    /**
     * @param bindEndpoint the DISH's endpoint, with an ephemeral port: tcp://127.0.0.1:0 or
     *     udp://127.0.0.1:0
     */
    ZmtpRadioDishFlow(int size, SocketOptions options, String bindEndpoint) {
        super(size);
        DishSocket dish = (DishSocket) ctx.socket(SocketType.DISH, options);
        dish.onMessage(m -> {
            ByteBuf first = m.first();
            counter.received(first.getByte(first.readerIndex()));
            m.release();
        });
        String endpoint = dish.bind(bindEndpoint).syncUninterruptibly().getNow();
        dish.join(GROUP).syncUninterruptibly();
        radio = BlockingSocket.wrap(ctx.socket(SocketType.RADIO, options));
        radio.connect(endpoint);
        awaitReady(); // over tcp, until the DISH's JOIN reached the RADIO, the RADIO drops
    }

    @Override
    void send(byte[] message) {
        radio.send(ZmtpMessage.of(message).group(GROUP));
    }

    @Override
    public void close() {
        ctx.close(Duration.ofSeconds(5));
    }
}
