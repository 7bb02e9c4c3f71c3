package io.zmtp.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zmtp.security.Authenticator;
import io.zmtp.security.PlainMechanism;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.testing.Await;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** The binder's meters carry the socket's counters, tagged by socket, type and direction or kind. */
class ZmtpSocketMetersTest {
    private static final Duration T = Duration.ofSeconds(10);

    private static double counter(SimpleMeterRegistry r, String name, String... tags) {
        FunctionCounter c = r.find(name).tags(tags).functionCounter();
        assertNotNull(c, name + " " + String.join(",", tags));
        return c.count();
    }

    private static double gauge(SimpleMeterRegistry r, String name, String... tags) {
        Gauge g = r.find(name).tags(tags).gauge();
        assertNotNull(g, name + " " + String.join(",", tags));
        return g.value();
    }

    @Test
    void metersShowTrafficQueuesAndHandshakeFailures() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            BlockingSocket pull = ctx.blocking(SocketType.PULL, SocketOptions.builder()
                    .mechanism(PlainMechanism.server(Authenticator.plainAccounts(Map.of("admin", "secret")))).build());
            String ep = pull.bind("tcp://127.0.0.1:0");
            new ZmtpSocketMeters(pull.socket(), "sink").bindTo(registry);
            BlockingSocket push = ctx.blocking(SocketType.PUSH, SocketOptions.builder()
                    .mechanism(PlainMechanism.client("admin", "secret")).build());
            new ZmtpSocketMeters(push.socket(), "source").bindTo(registry);
            push.connect(ep);
            for (int i = 0; i < 4; i++) {
                push.send(ZmtpMessage.of(new byte[25]));
            }
            ZmtpSocket intruder = ctx.socket(SocketType.PUSH, SocketOptions.builder()
                    .mechanism(PlainMechanism.client("admin", "wrong")).build());
            intruder.connect(ep);

            Await.until(T, () -> "the sink's meters: " + registry.getMetersAsString(),
                    () -> gauge(registry, "zmtp.socket.queued", "socket", "sink", "direction", "in") == 4
                            && counter(registry, "zmtp.socket.handshake.failures", "socket", "sink", "kind", "authentication") == 1);
            assertEquals(4, counter(registry, "zmtp.socket.messages", "socket", "sink", "type", "PULL", "direction", "in"));
            assertEquals(100, counter(registry, "zmtp.socket.bytes", "socket", "sink", "direction", "in"));
            assertEquals(1, gauge(registry, "zmtp.socket.peers", "socket", "sink"));
            assertEquals(1, counter(registry, "zmtp.socket.handshakes", "socket", "sink"));
            assertEquals(0, counter(registry, "zmtp.socket.handshake.failures", "socket", "sink", "kind", "protocol"));
            assertEquals(4, counter(registry, "zmtp.socket.messages", "socket", "source", "type", "PUSH", "direction", "out"));
            assertEquals(100, counter(registry, "zmtp.socket.bytes", "socket", "source", "direction", "out"));
            assertEquals(0, counter(registry, "zmtp.socket.drops", "socket", "source", "reason", "hwm"));

            for (int i = 0; i < 4; i++) {
                pull.receive(T).release();
            }
            assertEquals(0, gauge(registry, "zmtp.socket.queued", "socket", "sink", "direction", "in"));
        }
    }
}
