package io.zmtp.patterns.tripping;

import io.netty.util.concurrent.Future;
import io.zmtp.socket.RoutingId;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.UnroutableMessageException;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.LazyFrame;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

/**
 * The round-trip demonstrator's broker: a ROUTER for the client and a ROUTER for the worker,
 * on one event loop. A request's routing frame is replaced by the worker's id ("W") and a
 * reply's by the client's id ("C"), as in the guide's tripping example.
 */
public final class TrippingBroker implements AutoCloseable {
    // The ids as frames held by reference: the ROUTER looks the peer up by the id and makes no buffer.
    static final LazyFrame WORKER_ID = RoutingId.ofText("W").frame();
    static final LazyFrame CLIENT_ID = RoutingId.ofText("C").frame();

    private final ZmtpSocket frontend;
    private final ZmtpSocket backend;

    public TrippingBroker(ZmtpContext ctx) {
        this(ctx, SocketOptions.DEFAULTS, SocketOptions.DEFAULTS);
    }

    /**
     * A broker whose ROUTERs take these options (a security mechanism, say: a CURVE server on
     * each side), with mandatory routing on top.
     */
    public TrippingBroker(ZmtpContext ctx, SocketOptions frontendOptions, SocketOptions backendOptions) {
        // Mandatory routing: at a peer's high-water mark the broker waits (and stops reading the
        // other side) instead of dropping, so no call is lost however fast the client pushes.
        frontend = ctx.socket(SocketType.ROUTER, frontendOptions.toBuilder().routerMandatory(true).build());
        backend = ctx.socket(SocketType.ROUTER, backendOptions.toBuilder().routerMandatory(true).build(),
                frontend.eventLoop());
        frontend.onMessage(m -> forward(m, WORKER_ID, backend, frontend));
        backend.onMessage(m -> forward(m, CLIENT_ID, frontend, backend));
    }

    private static void forward(ZmtpMessage m, LazyFrame to, ZmtpSocket out, ZmtpSocket in) {
        m.dropFirst();
        m.addFirst(to);
        try {
            if (out.trySend(m)) {
                return;
            }
        } catch (UnroutableMessageException e) {
            m.release(); // the peer is not connected (yet, or any more)
            return;
        }
        in.pauseReceiving();
        out.send(m).addListener(f -> in.resumeReceiving());
    }

    /** Binds the client-facing and worker-facing endpoints; returns them as bound. */
    public String[] bind(String frontendEndpoint, String backendEndpoint) {
        Future<String> f = frontend.bind(frontendEndpoint);
        Future<String> b = backend.bind(backendEndpoint);
        return new String[] {f.syncUninterruptibly().getNow(), b.syncUninterruptibly().getNow()};
    }

    @Override
    public void close() {
        frontend.close();
        backend.close();
    }
}
