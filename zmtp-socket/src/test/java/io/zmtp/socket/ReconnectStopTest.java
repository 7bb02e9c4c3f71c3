package io.zmtp.socket;

import io.zmtp.testing.Await;
import io.zmtp.testing.FreePorts;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZMQ_RECONNECT_STOP ({@link ReconnectStop}): a refused connect or a failed handshake stops
 * reconnecting when chosen, and only then. Real time, with a 20 ms reconnect interval: after the
 * stop, a window of ten intervals sees no further attempt.
 */
class ReconnectStopTest {
    private static final Duration INTERVAL = Duration.ofMillis(20);
    private final ZmtpContext ctx = ZmtpContext.create(1);
    private final List<AutoCloseable> closing = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() throws Exception {
        ctx.close(Duration.ofSeconds(5));
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    private static long count(List<SocketEvent> events, SocketEvent.Type type) {
        return events.stream().filter(e -> e.type() == type).count();
    }

    private ZmtpSocket dealer(List<SocketEvent> events, ReconnectStop... stop) {
        ZmtpSocket d = ctx.socket(SocketType.DEALER, SocketOptions.builder().linger(Duration.ZERO)
                .reconnectInterval(INTERVAL).reconnectIntervalMax(INTERVAL).reconnectStop(stop).build());
        d.monitor(events::add);
        return d;
    }

    @Test
    void aRefusedConnectStopsWhenChosen() {
        int port = FreePorts.next(); // nothing listens there: every connect is refused
        List<SocketEvent> events = new CopyOnWriteArrayList<>();
        get(dealer(events, ReconnectStop.CONNECTION_REFUSED).connect("tcp://127.0.0.1:" + port));
        eventually("reconnecting stopped", () -> count(events, SocketEvent.Type.RECONNECT_STOPPED) == 1);
        Await.holdsFor(INTERVAL.multipliedBy(10), () -> "no attempt after the stop: " + events,
                () -> count(events, SocketEvent.Type.CONNECT_FAILED) == 1);
        SocketEvent stopped = events.stream().filter(e -> e.type() == SocketEvent.Type.RECONNECT_STOPPED).findFirst()
                .orElseThrow();
        assertTrue(stopped.reason().contains("refused"), stopped.toString());

        List<SocketEvent> others = new CopyOnWriteArrayList<>();
        get(dealer(others).connect("tcp://127.0.0.1:" + port));
        eventually("without the choice, refused connects go on", () -> count(others, SocketEvent.Type.CONNECT_FAILED) >= 3);
        assertTrue(count(others, SocketEvent.Type.RECONNECT_STOPPED) == 0, others.toString());
    }

    @Test
    void aFailedHandshakeStopsWhenChosen() throws IOException {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        closing.add(server);
        AtomicInteger accepted = new AtomicInteger();
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    closing.add(s);
                    accepted.incrementAndGet();
                    OutputStream out = s.getOutputStream();
                    out.write(new byte[] {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A}); // not a greeting
                    out.flush();
                } catch (IOException e) {
                    return;
                }
            }
        }, "not-zmtp");
        t.setDaemon(true);
        t.start();
        String ep = "tcp://127.0.0.1:" + server.getLocalPort();

        List<SocketEvent> events = new CopyOnWriteArrayList<>();
        get(dealer(events, ReconnectStop.HANDSHAKE_FAILED).connect(ep));
        eventually("reconnecting stopped", () -> count(events, SocketEvent.Type.RECONNECT_STOPPED) == 1);
        Await.holdsFor(INTERVAL.multipliedBy(10), () -> "one connection only: " + accepted.get() + " " + events,
                () -> accepted.get() == 1 && count(events, SocketEvent.Type.CONNECTED) == 1);

        List<SocketEvent> others = new CopyOnWriteArrayList<>();
        get(dealer(others).connect(ep));
        eventually("without the choice, failed handshakes are retried",
                () -> count(others, SocketEvent.Type.HANDSHAKE_FAILED) >= 2);
        assertTrue(count(others, SocketEvent.Type.RECONNECT_STOPPED) == 0, others.toString());
    }

    @Test
    void aDisconnectStopsReconnectingChosenOrNot() {
        int port = FreePorts.next();
        for (ReconnectStop[] stop : List.of(new ReconnectStop[] {ReconnectStop.AFTER_DISCONNECT}, new ReconnectStop[0])) {
            List<SocketEvent> events = new CopyOnWriteArrayList<>();
            ZmtpSocket d = dealer(events, stop);
            String ep = "tcp://127.0.0.1:" + port;
            get(d.connect(ep));
            eventually("an attempt", () -> count(events, SocketEvent.Type.CONNECT_FAILED) >= 1);
            get(d.disconnect(ep));
            long attempts = count(events, SocketEvent.Type.CONNECT_FAILED);
            Await.holdsFor(INTERVAL.multipliedBy(10), () -> "no attempt after the disconnect: " + events,
                    () -> count(events, SocketEvent.Type.CONNECT_FAILED) == attempts);
        }
    }
}
