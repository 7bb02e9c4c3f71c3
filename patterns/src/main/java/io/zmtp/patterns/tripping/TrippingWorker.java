package io.zmtp.patterns.tripping;

import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;

/** The round-trip demonstrator's worker: a DEALER with id "W" that sends every message back. */
public final class TrippingWorker implements AutoCloseable {
    private final ZmtpSocket worker;

    public TrippingWorker(ZmtpContext ctx, String brokerBackend) {
        this(ctx, brokerBackend, SocketOptions.DEFAULTS);
    }

    /** A worker whose DEALER takes these options (a CURVE client, say), with the identity "W" on top. */
    public TrippingWorker(ZmtpContext ctx, String brokerBackend, SocketOptions options) {
        worker = ctx.socket(SocketType.DEALER, options.toBuilder().identity("W").build());
        worker.onMessage(m -> {
            if (!worker.trySend(m)) {
                worker.pauseReceiving();
                worker.send(m).addListener(f -> worker.resumeReceiving());
            }
        });
        worker.connect(brokerBackend).syncUninterruptibly();
        Connected.await(worker);
    }

    public ZmtpSocket socket() {
        return worker;
    }

    @Override
    public void close() {
        worker.close();
    }
}
