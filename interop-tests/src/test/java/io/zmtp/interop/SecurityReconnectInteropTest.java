package io.zmtp.interop;

import io.zmtp.security.Authenticator;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.wire.Mechanism;
import io.zmtp.security.PlainMechanism;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client that cannot get in does not hammer the server, whether the server is ours or libzmq's:
 * <ul>
 * <li>refused with ZMTP ERROR (a PLAIN password the server does not accept), it stops
 *     reconnecting at once: RECONNECT_STOPPED, and the server sees one attempt while a control
 *     client next to it keeps retrying;</li>
 * <li>dropped without ERROR (a CURVE client with the wrong server key: libzmq closes the
 *     connection, ours too), it retries with delays that double from the reconnect interval up
 *     to its maximum and stay there, although every TCP connect succeeds (only a successful
 *     handshake resets the delay), so the server sees at most one attempt per delay.</li>
 * </ul>
 * The client's reconnect interval is 20 ms with a maximum of 160 ms.
 */
class SecurityReconnectInteropTest {
    static final Duration INTERVAL = Duration.ofMillis(20);
    static final Duration INTERVAL_MAX = Duration.ofMillis(160);
    static final String USER = "admin";
    static final String PASSWORD = "secret";

    ZmtpContext ctx;
    LibzmqPeer zmq;
    final List<ZmtpSocket> sockets = new ArrayList<>();

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() {
        ctx.close(Duration.ofSeconds(5));
        if (zmq != null) {
            zmq.close();
        }
    }

    /** An event and when our monitor saw it. */
    record Seen(SocketEvent event, long nanos) {
        SocketEvent.Type type() {
            return event.type();
        }
    }

    /** A server that counts the connections it accepts. */
    interface Server {
        String endpoint();

        int accepted();
    }

    Server server(String kind, String mechanism) {
        return kind.equals("ours") ? ourServer(mechanism) : libzmqServer(mechanism);
    }

    Server ourServer(String mechanism) {
        Mechanism m = mechanism.equals("PLAIN")
                ? PlainMechanism.server(Authenticator.plainAccounts(Map.of(USER, PASSWORD)))
                : CurveMechanism.server(CurveKeyPair.generate(), Authenticator.allowAll());
        ZmtpSocket router = ctx.socket(SocketType.ROUTER, SocketOptions.builder().mechanism(m).linger(Duration.ZERO)
                .build());
        List<SocketEvent> events = new CopyOnWriteArrayList<>();
        router.monitor(events::add);
        String ep = router.bind("tcp://127.0.0.1:0").syncUninterruptibly().getNow();
        return new Server() {
            @Override
            public String endpoint() {
                return ep;
            }

            @Override
            public int accepted() {
                return (int) events.stream().filter(e -> e.type() == SocketEvent.Type.ACCEPTED).count();
            }
        };
    }

    Server libzmqServer(String mechanism) {
        if (zmq == null) {
            zmq = LibzmqPeer.start();
            zmq.zapStart().zapAllowPlain(USER, PASSWORD);
        }
        String id = "server-" + mechanism.toLowerCase();
        zmq.socket(id, "ROUTER").opt(id, "LINGER", 0).monitor(id);
        if (mechanism.equals("PLAIN")) {
            zmq.opt(id, "PLAIN_SERVER", 1);
        } else {
            zmq.opt(id, "CURVE_SERVER", 1).optText(id, "CURVE_SECRETKEY", zmq.curveKeypair()[1]);
        }
        String ep = zmq.bind(id, "tcp://127.0.0.1:*");
        LibzmqPeer peer = zmq;
        return new Server() {
            @Override
            public String endpoint() {
                return ep;
            }

            @Override
            public int accepted() {
                return (int) peer.events(id).stream().filter("ACCEPTED"::equals).count();
            }
        };
    }

    /** Our DEALER client connected to {@code endpoint}, its events recorded from the start. */
    ZmtpSocket client(Mechanism mechanism, String endpoint, List<Seen> seen) {
        ZmtpSocket dealer = ctx.socket(SocketType.DEALER, SocketOptions.builder().mechanism(mechanism)
                .reconnectInterval(INTERVAL).reconnectIntervalMax(INTERVAL_MAX).linger(Duration.ZERO).build());
        dealer.monitor(e -> seen.add(new Seen(e, System.nanoTime())));
        dealer.connect(endpoint).syncUninterruptibly();
        return dealer;
    }

    static long count(List<Seen> seen, SocketEvent.Type t) {
        return seen.stream().filter(s -> s.type() == t).count();
    }

    static List<SocketEvent.Type> types(List<Seen> seen) {
        return seen.stream().map(Seen::type).toList();
    }

    static void eventually(String what, IntSupplier value, int atLeast) {
        ByteMessages.eventually(() -> what + ": " + value.getAsInt() + ", waiting for " + atLeast,
                () -> value.getAsInt() >= atLeast);
    }

    /**
     * A PLAIN client with a wrong password is refused with ERROR and never comes back. Beside it
     * a control client, dropped without ERROR, retries meanwhile: the refused one would have had
     * the time for several attempts.
     */
    @ParameterizedTest(name = "server: {0}")
    @ValueSource(strings = {"ours", "libzmq"})
    void aClientRefusedWithErrorStopsReconnecting(String kind) {
        Server plain = server(kind, "PLAIN");
        Server curve = server(kind, "CURVE");
        List<Seen> refused = new CopyOnWriteArrayList<>();
        List<Seen> control = new CopyOnWriteArrayList<>();
        client(PlainMechanism.client(USER, "guess"), plain.endpoint(), refused);
        client(CurveMechanism.client(CurveKeyPair.generate().publicKey(), CurveKeyPair.generate()), curve.endpoint(),
                control);

        // the control's fifth attempt comes at least 20 + 40 + 80 + 160 ms after its first
        eventually("control reconnects", () -> (int) count(control, SocketEvent.Type.RECONNECT_SCHEDULED), 4);
        eventually("control attempts seen by its server", curve::accepted, 5);

        assertEquals(List.of(SocketEvent.Type.CONNECTED, SocketEvent.Type.HANDSHAKE_FAILED,
                SocketEvent.Type.RECONNECT_STOPPED), types(refused), "one attempt, refused, no retry: " + refused);
        SocketEvent stopped = refused.get(2).event();
        assertTrue(stopped.reason().contains("ERROR \"400\""), stopped.reason());
        assertEquals(1, plain.accepted(), "the PLAIN server saw one connection from the refused client");
        if (zmq != null) {
            assertEquals(1, zmq.zapLog().stream().filter("PLAIN:400"::equals).count(),
                    "libzmq's ZAP handler was asked once: " + zmq.zapLog());
        }
    }

    /**
     * A CURVE client with the wrong server key is dropped without ERROR after each HELLO; it keeps
     * trying, but the reconnect delay doubles up to the maximum and stays there.
     */
    @ParameterizedTest(name = "server: {0}")
    @ValueSource(strings = {"ours", "libzmq"})
    void handshakeFailuresWithoutErrorBackOffToTheMaximumDelay(String kind) {
        Server curve = server(kind, "CURVE");
        List<Seen> seen = new CopyOnWriteArrayList<>();
        ZmtpSocket client = client(CurveMechanism.client(CurveKeyPair.generate().publicKey(), CurveKeyPair.generate()),
                curve.endpoint(), seen);

        eventually("reconnects scheduled", () -> (int) count(seen, SocketEvent.Type.RECONNECT_SCHEDULED), 7);
        client.close(Duration.ZERO).syncUninterruptibly();

        List<Long> delays = seen.stream().filter(s -> s.type() == SocketEvent.Type.RECONNECT_SCHEDULED)
                .map(s -> s.event().delay().toMillis()).toList();
        List<Long> expected = new ArrayList<>();
        for (long d = INTERVAL.toMillis(); expected.size() < delays.size(); d = Math.min(2 * d, INTERVAL_MAX.toMillis())) {
            expected.add(d);
        }
        assertEquals(expected, delays, "each delay doubles up to the maximum, never reset by a TCP connect");

        List<Seen> attempts = seen.stream().filter(s -> s.type() == SocketEvent.Type.CONNECTED).toList();
        assertTrue(attempts.size() >= delays.size(), "every delay was followed by a connect: " + types(seen));
        for (Seen s : seen) {
            if (s.type() == SocketEvent.Type.HANDSHAKE_FAILED) {
                assertEquals("peer closed the connection during the CURVE handshake", s.event().reason());
            }
        }
        assertTrue(count(seen, SocketEvent.Type.HANDSHAKE_FAILED) >= delays.size(), types(seen).toString());
        assertEquals(0, count(seen, SocketEvent.Type.HANDSHAKE_SUCCEEDED));
        assertEquals(0, count(seen, SocketEvent.Type.RECONNECT_STOPPED), "no ERROR: retrying is right");
        // each attempt waited for its delay: at most one attempt per delay reaches the server
        for (int i = 1; i < attempts.size(); i++) {
            long gapMs = (attempts.get(i).nanos() - attempts.get(i - 1).nanos()) / 1_000_000;
            assertTrue(gapMs >= delays.get(i - 1), "attempt " + i + " came " + gapMs + " ms after the previous one, "
                    + "its delay was " + delays.get(i - 1) + " ms");
        }
        int connects = attempts.size();
        eventually("attempts seen by the server", curve::accepted, connects);
        assertEquals(connects, curve.accepted(), "the server saw exactly the client's attempts");
    }
}
