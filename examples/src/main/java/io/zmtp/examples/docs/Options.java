package io.zmtp.examples.docs;

// tag::imports[]
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.HeartbeatPolicy;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.List;

// in scope: ZmtpContext ctx
// end::imports[]

/** docs/socket-options.md: options at creation, setters afterwards, a ROUTER that connects with an id. */
public final class Options {
    public static void main(String[] args) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            // tag::builder[]
            SocketOptions options = SocketOptions.builder()   // immutable once built; one for many sockets
                    .hwm(10_000)                              // ZMQ_SNDHWM and ZMQ_RCVHWM
                    .linger(Duration.ofSeconds(1))            // ZMQ_LINGER
                    .reconnectInterval(Duration.ofMillis(50)) // ZMQ_RECONNECT_IVL, doubling up to...
                    .reconnectIntervalMax(Duration.ofSeconds(2))
                    .heartbeat(HeartbeatPolicy.every(Duration.ofSeconds(5)))   // ZMQ_HEARTBEAT_IVL
                    .routerNotify(SocketOptions.NOTIFY_CONNECT | SocketOptions.NOTIFY_DISCONNECT)
                    .build();
            ZmtpSocket router = ctx.socket(SocketType.ROUTER, options);
            // end::builder[]
            String endpoint = router.bind("tcp://127.0.0.1:0").get();

            tune(router);

            BlockingSocket dealer = ctx.blocking(SocketType.DEALER,
                    SocketOptions.builder().identity("d1").build()).connect(endpoint);
            java.util.concurrent.BlockingQueue<List<String>> got = new java.util.concurrent.LinkedBlockingQueue<>();
            router.onMessage(m -> {
                got.add(List.of(m.frameString(0), m.size() > 1 ? m.frameString(1) : "?"));
                m.release();
            });
            List<String> notified = got.poll(5, java.util.concurrent.TimeUnit.SECONDS);   // [d1, ""]: connected
            check(List.of("d1", "").equals(notified), "router notify: " + notified);
            dealer.close();

            // tag::limits[]
            SocketOptions guarded = SocketOptions.builder()
                    .maxMessageSize(1 << 20)                  // 1 MiB, frames' bytes plus 64 per extra frame
                    .messagesPerTurn(128)                     // a flooding peer delays the others less
                    .maxHandshakesPerAddress(16)              // one host's connections still in their handshake
                    .handshakeTimeout(Duration.ofSeconds(5))
                    .build();
            ZmtpSocket frontend = ctx.socket(SocketType.ROUTER, guarded);
            // end::limits[]
            frontend.close();

            BlockingSocket server = connectNamed(ctx, router);
            List<String> connected;
            do {                                              // [d1, ""] when d1 went, then [server-1, ""]
                connected = got.poll(5, java.util.concurrent.TimeUnit.SECONDS);
            } while (connected != null && !connected.get(0).equals("server-1"));
            check(List.of("server-1", "").equals(connected), "notified by the connect's id: " + connected);
            router.send(ZmtpMessage.ofStrings("server-1", "hello")).get();
            ZmtpMessage m = server.receive(Duration.ofSeconds(5));
            check(m != null && "hello".equals(m.frameString(1)), "routed by the connect's id");
            m.release();
            server.close();
            router.close();
        }
    }

    // tag::setters[]
    static void tune(ZmtpSocket router) throws Exception {
        router.setSendHwm(50_000).get();                  // from any thread; done once the socket uses it
        router.setRouterMandatory(true);
    }
    // end::setters[]

    // tag::connect-id[]
    static BlockingSocket connectNamed(ZmtpContext ctx, ZmtpSocket router) {
        BlockingSocket server = ctx.blocking(SocketType.ROUTER);
        String serverEndpoint = server.bind("tcp://127.0.0.1:0");
        router.connect(serverEndpoint, "server-1".getBytes());   // ZMQ_CONNECT_ROUTING_ID
        return server;
    }
    // end::connect-id[]

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    private Options() {
    }
}
