package io.zmtp.benchmarks.tripping;

import io.zmtp.patterns.tripping.TrippingBroker;
import io.zmtp.patterns.tripping.TrippingClient;
import io.zmtp.patterns.tripping.TrippingSecurity;
import io.zmtp.patterns.tripping.TrippingWorker;
import io.zmtp.socket.ZmtpContext;

import java.time.Duration;

/**
 * Ours: the round-trip demonstrator of {@code io.zmtp.patterns.tripping} as the {@code zmtp
 * tripping} command runs it. The broker's two ROUTERs share one event loop, the worker is a reactor
 * on another, and the client is the blocking one (a user thread, as the guide's client), on a
 * context with its default event loops (one per processor).
 */
final class ZmtpTripping implements TrippingTopology {
    private final ZmtpContext ctx = ZmtpContext.create();
    private final TrippingBroker broker;
    private final TrippingWorker worker;
    private final TrippingClient client;

    ZmtpTripping(String transport) {
        this(transport, false);
    }

    ZmtpTripping(String transport, boolean curve) {
        TrippingSecurity security = curve ? TrippingSecurity.curve() : TrippingSecurity.NONE;
        broker = new TrippingBroker(ctx, security.broker(), security.broker());
        String[] bound;
        switch (transport) {
            case "tcp":
                bound = broker.bind("tcp://127.0.0.1:0", "tcp://127.0.0.1:0");
                break;
            case "inproc":
                bound = broker.bind("inproc://tripping-frontend", "inproc://tripping-backend");
                break;
            default:
                throw new IllegalArgumentException("transport " + transport);
        }
        worker = new TrippingWorker(ctx, bound[1], security.peers());
        client = new TrippingClient(ctx, bound[0], security.peers());
    }

    @Override
    public void synchronous(int calls) {
        client.synchronous(calls);
    }

    @Override
    public void asynchronous(int calls) {
        client.asynchronous(calls);
    }

    @Override
    public void close() {
        client.close();
        worker.close();
        broker.close();
        ctx.close(Duration.ofSeconds(5));
    }
}
