package io.zmtp.interop;

import io.zmtp.security.Authenticator;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.security.PlainMechanism;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.PubSocket;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.testing.Await;
import io.zmtp.wire.Mechanism;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The opt-in ZMTP 2.0 fallback against a real ZMTP 2.0 implementation, JeroMQ 0.3.6 (a port of
 * libzmq 3.2) in a JVM of its own ({@link Zmtp20PeerProcess}): REQ/REP and PUB/SUB with our
 * socket on either side, and the refusals: fallback off, or on with PLAIN or CURVE.
 */
class Zmtp20FallbackInteropTest {
    static final Duration T = Duration.ofSeconds(10);

    ZmtpContext ctx;
    final List<SocketEvent> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() {
        ctx.close(Duration.ofSeconds(5));
    }

    private BlockingSocket ours(SocketType type, SocketOptions.Builder options) {
        BlockingSocket s = ctx.blocking(type, options.linger(Duration.ZERO).reconnectInterval(Duration.ofMillis(20))
                .reconnectIntervalMax(Duration.ofMillis(200)).build());
        s.socket().monitor(events::add);
        return s;
    }

    private BlockingSocket ours(SocketType type) {
        return ours(type, SocketOptions.builder().zmtp20Fallback(true));
    }

    private static List<String> receive(BlockingSocket s) {
        List<String> m = s.receiveStrings(T);
        assertNotNull(m, "a message within " + T);
        return m;
    }

    private SocketEvent awaitEvent(SocketEvent.Type type) {
        Await.until(() -> "event " + type + " (seen " + events + ")",
                () -> events.stream().anyMatch(e -> e.type() == type));
        return events.stream().filter(e -> e.type() == type).findFirst().orElseThrow();
    }

    @Test
    void aZmtp20RequesterIsAnsweredByOurRep() throws Exception {
        BlockingSocket rep = ours(SocketType.REP);
        String ep = rep.bind("tcp://127.0.0.1:0");
        try (Zmtp20PeerProcess req = Zmtp20PeerProcess.start("REQ")) {
            assertTrue(req.version.startsWith("3."), "JeroMQ 0.3 emulates libzmq 3.x: " + req.version);
            req.connect(ep);
            for (int i = 0; i < 3; i++) {
                req.send("hello " + i);
                assertEquals(List.of("hello " + i), receive(rep));
                rep.send("world " + i);
                assertEquals(List.of("world " + i), req.recv(T.toMillis()));
            }
        }
        awaitEvent(SocketEvent.Type.HANDSHAKE_SUCCEEDED);
    }

    @Test
    void ourRequesterIsAnsweredByAZmtp20Rep() throws Exception {
        try (Zmtp20PeerProcess rep = Zmtp20PeerProcess.start("REP")) {
            String ep = rep.bind("tcp://127.0.0.1:*");
            BlockingSocket req = ours(SocketType.REQ);
            req.connect(ep);
            for (int i = 0; i < 3; i++) {
                req.send("ping " + i);
                assertEquals(List.of("ping " + i), rep.recv(T.toMillis()));
                rep.send("pong " + i);
                assertEquals(List.of("pong " + i), receive(req));
            }
        }
    }

    @Test
    void ourSubscriberGetsWhatItSubscribedToFromAZmtp20Publisher() throws Exception {
        try (Zmtp20PeerProcess pub = Zmtp20PeerProcess.start("PUB")) {
            String ep = pub.bind("tcp://127.0.0.1:*");
            BlockingSocket sub = ours(SocketType.SUB);
            sub.subscribe("a");
            sub.connect(ep);
            // A libzmq 3.x publisher filters on its side: anything arriving proves our
            // subscription (a 2.0 message, 0x01 + prefix) reached it. Publish until it has.
            List<String> got = null;
            long deadline = System.nanoTime() + T.toNanos();
            for (int i = 0; got == null; i++) {
                assertTrue(System.nanoTime() < deadline, "a published message within " + T);
                pub.send("b-" + i);
                pub.send("a-" + i);
                got = sub.receiveStrings(Duration.ofMillis(50));
            }
            assertTrue(got.get(0).startsWith("a-"), String.valueOf(got));
            pub.send("b-last");
            pub.send("a-last");
            List<String> m;
            while (!(m = receive(sub)).get(0).equals("a-last")) {
                assertTrue(m.get(0).startsWith("a-"), "only what was subscribed to: " + m);
            }
        }
    }

    @Test
    void aZmtp20SubscriberGetsWhatItSubscribedToFromOurPublisher() throws Exception {
        BlockingSocket pub = ours(SocketType.PUB);
        String ep = pub.bind("tcp://127.0.0.1:0");
        try (Zmtp20PeerProcess sub = Zmtp20PeerProcess.start("SUB")) {
            sub.subscribe("a");
            sub.connect(ep);
            PubSocket ourPub = (PubSocket) pub.socket();
            Await.until("our PUB holds the 2.0 subscriber's subscription", () -> {
                try {
                    return ourPub.eventLoop().submit(ourPub::subscriptionCount).get() == 1;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            pub.send("b-1");
            pub.send("a-1");
            pub.send("b-2");
            pub.send("a-2");
            assertEquals(List.of("a-1"), sub.recv(T.toMillis()));
            assertEquals(List.of("a-2"), sub.recv(T.toMillis()));
        }
    }

    @Test
    void withTheFallbackOffAZmtp20PeerIsRefusedWithAClearReason() throws Exception {
        BlockingSocket rep = ours(SocketType.REP, SocketOptions.builder());
        String ep = rep.bind("tcp://127.0.0.1:0");
        try (Zmtp20PeerProcess req = Zmtp20PeerProcess.start("REQ")) {
            req.connect(ep);
            req.send("hello");
            String reason = awaitEvent(SocketEvent.Type.HANDSHAKE_FAILED).reason();
            assertTrue(reason.contains("ZMTP 2.0") && reason.contains("zmtp20Fallback"), reason);
            assertNull(rep.receive(Duration.ofMillis(200)), "nothing from the refused peer");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"PLAIN", "CURVE"})
    void withSecurityTheFallbackRefusesTheDowngrade(String mechanismName) throws Exception {
        Mechanism mechanism = mechanismName.equals("PLAIN") ? PlainMechanism.server(Authenticator.allowAll())
                : CurveMechanism.server(CurveKeyPair.generate(), Authenticator.allowAll());
        BlockingSocket rep = ours(SocketType.REP, SocketOptions.builder().zmtp20Fallback(true).mechanism(mechanism));
        String ep = rep.bind("tcp://127.0.0.1:0");
        try (Zmtp20PeerProcess req = Zmtp20PeerProcess.start("REQ")) {
            req.connect(ep);
            req.send("hello");
            String reason = awaitEvent(SocketEvent.Type.HANDSHAKE_FAILED).reason();
            assertTrue(reason.contains(mechanismName) && reason.contains("no security"), reason);
            assertNull(rep.receive(Duration.ofMillis(200)), "nothing from the refused peer");
        }
    }
}
