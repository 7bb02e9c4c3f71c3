package io.zmtp.benchmarks.latency;

import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.Arrays;

/**
 * Ours: the REP server is a reactor that sends each request back from its event loop (how a
 * server is written with this library); the REQ client is a {@link BlockingSocket} on the
 * calling thread. A context of one event loop (see {@link #ctx}), default options.
 */
public final class ZmtpReqRep implements ReqRepRoundTrip {
    private static final Duration WAIT = Duration.ofSeconds(30);

    /**
     * One event loop for both sockets, as libzmq's benchmark runs both on its one I/O thread. With
     * the default (a loop per processor) the blocking client and two spinning loops are three busy
     * threads on this project's two cores, and every network leg may wait for a processor: p99
     * 40-44 against 22-26 us, p99.9 97-108 against 56-83 us (benchmarks/RESULTS.md, "The REQ/REP
     * tail: three spinning threads on two cores"). docs/performance.md tells users the same.
     */
    private final ZmtpContext ctx = ZmtpContext.create(Integer.getInteger("zmtp.bench.latencyLoops", 1));
    private final BlockingSocket req;
    private final byte[] payload;

    public ZmtpReqRep(int size) {
        this(size, "tcp://127.0.0.1:0");
    }

    /** The same over {@code bindEndpoint} (tcp, ws...; an ephemeral port). */
    public ZmtpReqRep(int size, String bindEndpoint) {
        payload = new byte[size];
        Arrays.fill(payload, (byte) 'R');
        ZmtpSocket rep = ctx.socket(SocketType.REP);
        rep.onMessage(request -> {
            if (!rep.trySend(request)) { // REP always has room for the one reply it owes
                request.release();
            }
        });
        String endpoint = rep.bind(bindEndpoint).syncUninterruptibly().getNow();
        req = ctx.blocking(SocketType.REQ);
        req.connect(endpoint);
    }

    @Override
    public void call() {
        req.send(ZmtpMessage.of(payload));
        ZmtpMessage reply = req.receive(WAIT);
        if (reply == null) {
            throw new IllegalStateException("no reply within " + WAIT);
        }
        int size = (int) reply.byteSize();
        reply.release();
        if (size != payload.length) {
            throw new IllegalStateException("reply of " + size + " bytes to a request of " + payload.length);
        }
    }

    @Override
    public void close() {
        ctx.close(Duration.ofSeconds(5));
    }
}
