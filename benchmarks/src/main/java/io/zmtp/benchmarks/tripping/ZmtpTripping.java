package io.zmtp.benchmarks.tripping;

import io.zmtp.patterns.tripping.TrippingBroker;
import io.zmtp.patterns.tripping.TrippingClient;
import io.zmtp.patterns.tripping.TrippingWorker;
import io.zmtp.security.Authenticator;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.socket.SocketOptions;
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
        SocketOptions brokerOptions = SocketOptions.DEFAULTS;
        SocketOptions peerOptions = SocketOptions.DEFAULTS;
        if (curve) {
            CurveKeyPair brokerKeys = CurveKeyPair.generate();
            brokerOptions = SocketOptions.builder().mechanism(CurveMechanism.server(brokerKeys, Authenticator.allowAll())).build();
            peerOptions = SocketOptions.builder().mechanism(CurveMechanism.client(brokerKeys.publicKey(), CurveKeyPair.generate())).build();
        }
        broker = new TrippingBroker(ctx, brokerOptions, brokerOptions);
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
        worker = new TrippingWorker(ctx, bound[1], peerOptions);
        client = new TrippingClient(ctx, bound[0], peerOptions);
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
