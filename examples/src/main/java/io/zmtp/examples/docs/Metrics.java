package io.zmtp.examples.docs;

// tag::imports[]
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zmtp.micrometer.ZmtpSocketMeters;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketMetrics;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;

import java.time.Duration;

// in scope: ZmtpContext ctx
// end::imports[]

/** docs/metrics.md: a socket's counters, and the same as Micrometer meters. */
public final class Metrics {
    public static void main(String[] args) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            ZmtpSocket frontend = ctx.socket(SocketType.ROUTER);
            frontend.onMessage(frontend::send);
            String endpoint = frontend.bind("tcp://127.0.0.1:0").get();
            try (BlockingSocket client = ctx.blocking(SocketType.DEALER).connect(endpoint)) {
                client.send("ping");
                client.receiveStrings(Duration.ofSeconds(5));
            }
            long in = messagesIn(frontend);
            if (in != 1) {
                throw new IllegalStateException("messages in: " + in);
            }
            double received = meter(frontend);
            if (received != 1) {
                throw new IllegalStateException("zmtp.socket.messages in: " + received);
            }
        }
    }

    // tag::metrics[]
    static long messagesIn(ZmtpSocket frontend) {
        SocketMetrics m = frontend.metrics();                   // any thread; costs the socket nothing
        System.out.println(m.toLine());                         // in=1/4B out=1/4B queued-in=0 ...
        return m.messagesIn();
    }
    // end::metrics[]

    // tag::micrometer[]
    static double meter(ZmtpSocket frontend) {
        MeterRegistry registry = new SimpleMeterRegistry();     // your application's registry
        new ZmtpSocketMeters(frontend, "frontend").bindTo(registry);
        return registry.get("zmtp.socket.messages").tag("direction", "in").functionCounter().count();
    }
    // end::micrometer[]

    private Metrics() {
    }
}
