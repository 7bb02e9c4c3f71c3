package io.zmtp.socket;

import io.zmtp.security.Authenticator;
import io.zmtp.security.PlainMechanism;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static io.zmtp.socket.SocketTesting.T;
import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static io.zmtp.socket.SocketTesting.onLoop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ZmtpSocket#metrics()}: each counter against traffic whose figures are known. */
class SocketMetricsTest {

    @Test
    void messagesAndBytesInAndOutAreCountedOnBothSides() {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            BlockingSocket pull = ctx.blocking(SocketType.PULL);
            String ep = pull.bind("tcp://127.0.0.1:0");
            BlockingSocket push = ctx.blocking(SocketType.PUSH);
            push.connect(ep);
            long bytes = 0;
            for (int i = 0; i < 10; i++) {
                push.send(ZmtpMessage.of(new byte[i], new byte[100]));   // two frames: i + 100 bytes
                bytes += i + 100;
            }
            for (int i = 0; i < 10; i++) {
                ZmtpMessage m = pull.receive(T);
                assertNotNull(m);
                m.release();
            }
            long expected = bytes;
            SocketMetrics in = pull.socket().metrics();
            assertEquals(10, in.messagesIn());
            assertEquals(expected, in.bytesIn());
            assertEquals(0, in.messagesOut());
            assertEquals(1, in.peers());
            assertEquals(0, in.queuedIn());
            eventually(() -> "sender's counters: " + push.socket().metrics(),
                    () -> push.socket().metrics().messagesOut() == 10);
            SocketMetrics out = push.socket().metrics();
            assertEquals(expected, out.bytesOut());
            assertEquals(0, out.messagesIn());
            assertEquals(1, out.handshakesSucceeded());
            assertEquals(0, out.hwmDrops());
            assertEquals(0, out.handshakeFailuresTotal());
        }
    }

    @Test
    void messagesWaitingForTheApplicationCountAsQueuedIn() {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            BlockingSocket pull = ctx.blocking(SocketType.PULL);
            String ep = pull.bind("tcp://127.0.0.1:0");
            BlockingSocket push = ctx.blocking(SocketType.PUSH);
            push.connect(ep);
            for (int i = 0; i < 5; i++) {
                push.send("m" + i);
            }
            eventually(() -> "five waiting: " + pull.socket().metrics(), () -> pull.socket().metrics().queuedIn() == 5);
            pull.receive(T).release();
            assertEquals(4, pull.socket().metrics().queuedIn());
        }
    }

    @Test
    void messagesBehindAFullConnectionCountAsQueuedOutUntilTheyAreWritten() {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            ZmtpSocket pull = ctx.socket(SocketType.PULL);
            java.util.concurrent.atomic.AtomicInteger received = new java.util.concurrent.atomic.AtomicInteger();
            pull.onMessage(m -> {
                m.release();
                received.incrementAndGet();
            });
            pull.pauseReceiving();   // the peer reads nothing: kernel buffers fill, then Netty's, then the backlog
            String ep = get(pull.bind("tcp://127.0.0.1:0"));
            ZmtpSocket push = ctx.socket(SocketType.PUSH);
            get(push.connect(ep));
            eventually("connected", () -> push.metrics().peers() == 1);
            int n = 400;
            for (int i = 0; i < n; i++) {
                push.send(ZmtpMessage.of(new byte[64 * 1024]));
            }
            eventually(() -> "a backlog forms: " + push.metrics(), () -> push.metrics().queuedOut() > 0);
            // once the socket has taken every send, each is either written or waiting, never both
            eventually(() -> "every send written or waiting: " + push.metrics(), () -> onLoop(push, () -> {
                SocketMetrics m = push.metrics();
                return m.messagesOut() + m.queuedOut() == n;
            }));
            SocketMetrics held = push.metrics();
            assertTrue(held.queuedOut() > 0 && held.messagesOut() < n, "what waits is not counted as written: " + held);
            pull.resumeReceiving();
            eventually(() -> "all delivered: " + push.metrics(), () -> received.get() == n);
            eventually(() -> "the queues empty: " + push.metrics(),
                    () -> push.metrics().queuedOut() == 0 && push.metrics().messagesOut() == n);
            assertEquals((long) n * 64 * 1024, push.metrics().bytesOut());
        }
    }

    @Test
    void aPublisherCountsWhatItDropsAtTheHighWaterMark() {
        // one loop for both ends: the ten sends below run in one task, so the subscriber takes
        // nothing meanwhile and the inproc pipe holds exactly PUB's send mark + SUB's receive mark
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            ZmtpSocket pub = ctx.socket(SocketType.PUB, SocketOptions.builder().sendHwm(1).build());
            get(pub.bind("inproc://metrics-hwm"));
            SubSocket sub = (SubSocket) ctx.socket(SocketType.SUB, SocketOptions.builder().receiveHwm(1).build());
            get(sub.subscribe(new byte[0]));
            get(sub.connect("inproc://metrics-hwm"));
            eventually("the subscription reached the publisher", () -> onLoop(pub, () -> ((PubSocket) pub).subscriptionCount() == 1));
            onLoop(pub, () -> {
                for (int i = 0; i < 10; i++) {
                    assertTrue(pub.trySend(ZmtpMessage.ofStrings("tick")));   // PUB drops, never waits
                }
                return null;
            });
            SocketMetrics m = pub.metrics();
            assertEquals(2, m.messagesOut(), m.toString());
            assertEquals(8, m.hwmDrops(), m.toString());
        }
    }

    @Test
    void aPeerThatRestartsCountsADisconnectReconnectsAndASecondHandshake() {
        SocketOptions fast = SocketOptions.builder().reconnectInterval(Duration.ofMillis(20))
                .reconnectIntervalMax(Duration.ofMillis(50)).build();
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            ZmtpSocket router = ctx.socket(SocketType.ROUTER);
            String ep = get(router.bind("tcp://127.0.0.1:0"));
            ZmtpSocket dealer = ctx.socket(SocketType.DEALER, fast);
            get(dealer.connect(ep));
            eventually(() -> "first handshake: " + dealer.metrics(), () -> dealer.metrics().handshakesSucceeded() == 1);

            get(router.close(Duration.ZERO));
            eventually(() -> "disconnect and retries: " + dealer.metrics(),
                    () -> dealer.metrics().disconnects() == 1 && dealer.metrics().reconnects() >= 2);
            assertEquals(0, dealer.metrics().peers());

            ZmtpSocket restarted = ctx.socket(SocketType.ROUTER);
            get(restarted.bind(ep));
            eventually(() -> "second handshake: " + dealer.metrics(), () -> dealer.metrics().handshakesSucceeded() == 2);
            assertEquals(1, dealer.metrics().peers());
        }
    }

    @Test
    void aWrongPlainPasswordCountsAsAuthenticationOnTheServerAndPeerErrorOnTheClient() {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            ZmtpSocket server = ctx.socket(SocketType.ROUTER, SocketOptions.builder()
                    .mechanism(PlainMechanism.server(Authenticator.plainAccounts(Map.of("admin", "secret")))).build());
            String ep = get(server.bind("tcp://127.0.0.1:0"));
            ZmtpSocket client = ctx.socket(SocketType.DEALER, SocketOptions.builder()
                    .mechanism(PlainMechanism.client("admin", "wrong")).build());
            get(client.connect(ep));
            eventually(() -> "server: " + server.metrics(),
                    () -> server.metrics().handshakeFailures(ConnectionFailed.Kind.AUTHENTICATION) == 1);
            eventually(() -> "client: " + client.metrics(),
                    () -> client.metrics().handshakeFailures(ConnectionFailed.Kind.PEER_ERROR) == 1);
            SocketMetrics s = server.metrics();
            assertEquals(1, s.handshakeFailuresTotal(), s.toString());
            assertEquals(0, s.handshakesSucceeded());
            assertTrue(s.toLine().contains("authentication=1"), s.toLine());
        }
    }

    @Test
    void theSnapshotIsAValueThatDoesNotChangeAfterwards() {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            ZmtpSocket s = ctx.socket(SocketType.PUSH);
            SocketMetrics m = s.metrics();
            assertEquals(ConnectionFailed.Kind.values().length, m.handshakeFailures().size());
            assertThrows(UnsupportedOperationException.class,
                    () -> m.handshakeFailures().put(ConnectionFailed.Kind.PROTOCOL, 1L));
        }
    }

    @Test
    void theCodecRunsWithoutMicrometerOnTheClassPath() {
        // Micrometer is optional: the binder lives in zmtp-micrometer, and nothing in zmtp-socket
        // refers to it, so every test of this module (this one included) runs without it.
        assertThrows(ClassNotFoundException.class,
                () -> Class.forName("io.micrometer.core.instrument.MeterRegistry"));
    }

    @Test
    void aMessagePastMaxMessageSizeIsCountedAsTooLargeAndAGoodPeerIsStillServed() {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            BlockingSocket pull = ctx.blocking(SocketType.PULL, SocketOptions.builder().maxMessageSize(1024).build());
            java.util.List<SocketEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
            pull.socket().monitor(events::add);
            String ep = pull.bind("tcp://127.0.0.1:0");
            BlockingSocket big = ctx.blocking(SocketType.PUSH);
            BlockingSocket good = ctx.blocking(SocketType.PUSH);
            big.connect(ep);
            good.connect(ep);
            big.send(ZmtpMessage.of(new byte[600], new byte[600])); // 1,264 counted: past 1 KiB
            eventually(() -> "counted: " + pull.socket().metrics(), () -> pull.socket().metrics().tooLarge() == 1);
            SocketEvent lost = events.stream().filter(e -> e.failure() == ConnectionFailed.Kind.MESSAGE_TOO_LARGE)
                    .findFirst().orElseThrow(() -> new AssertionError("no event says why: " + events));
            assertEquals(SocketEvent.Type.DISCONNECTED, lost.type());
            assertTrue(lost.reason().contains("maxMessageSize 1024"), lost.reason());
            assertTrue(pull.socket().metrics().toLine().contains("too-large=1"), pull.socket().metrics().toLine());
            good.send("small");
            ZmtpMessage m = pull.receive(T);
            assertNotNull(m, "the good peer is still served");
            assertEquals("small", m.frameString(0));
            m.release();
            assertEquals(1, pull.socket().metrics().tooLarge(), "one loss, counted once");
        }
    }
}
