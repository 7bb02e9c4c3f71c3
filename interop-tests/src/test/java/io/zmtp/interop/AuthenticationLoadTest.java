package io.zmtp.interop;

import io.zmtp.security.AuthResult;
import io.zmtp.security.Authenticator;
import io.zmtp.security.PlainMechanism;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.AuthenticationWaits;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.zmtp.interop.ByteMessages.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A PLAIN server whose authenticator answers some clients later: the others are served
 * meanwhile, and the socket's bound of waiting handshakes holds against 10,000 at once from
 * another process.
 */
class AuthenticationLoadTest {
    static final Duration T = Duration.ofSeconds(60);

    /** Answers "slow" later (when the test says so) and everyone else at once. */
    static final class SlowForOne implements Authenticator {
        final AtomicInteger asked = new AtomicInteger();
        final ConcurrentLinkedQueue<CompletableFuture<AuthResult>> pending = new ConcurrentLinkedQueue<>();

        @Override
        public AuthResult authenticate(io.zmtp.security.AuthRequest request) {
            throw new AssertionError("asked asynchronously");
        }

        @Override
        public CompletableFuture<AuthResult> authenticateAsync(io.zmtp.security.AuthRequest request) {
            asked.incrementAndGet();
            if (!request.username().equals("slow")) {
                return CompletableFuture.completedFuture(AuthResult.allow(request.username()));
            }
            CompletableFuture<AuthResult> later = new CompletableFuture<>();
            pending.add(later);
            return later;
        }
    }

    static SocketOptions client(String user) {
        return SocketOptions.builder().mechanism(PlainMechanism.client(user, "x")).build();
    }

    @Test
    void aThousandPeersAreServedWhileOneWaitsForItsAnswer() throws Exception {
        SlowForOne auth = new SlowForOne();
        try (ZmtpContext server = ZmtpContext.create(1); ZmtpContext clients = ZmtpContext.create(1)) {
            ZmtpSocket router = server.socket(SocketType.ROUTER, SocketOptions.builder()
                    .mechanism(PlainMechanism.server(auth)).build());
            router.onMessage(router::send);                               // echo
            String ep = router.bind("tcp://127.0.0.1:0").syncUninterruptibly().getNow();
            BlockingSocket slow = clients.blocking(SocketType.DEALER, client("slow")).connect(ep);
            slow.send("slow");
            eventually("the slow client's request reached the authenticator", () -> auth.pending.size() == 1);
            long asked = System.nanoTime();

            int n = 1000;
            CountDownLatch served = new CountDownLatch(n);
            AtomicLong slowest = new AtomicLong();
            List<ZmtpSocket> others = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ZmtpSocket d = clients.socket(SocketType.DEALER, client("user" + i));
                long start = System.nanoTime();
                d.onMessage(m -> {
                    m.release();
                    slowest.accumulateAndGet(System.nanoTime() - start, Math::max);
                    served.countDown();
                });
                d.connect(ep);
                d.send("ping");
                others.add(d);
            }
            assertTrue(served.await(T.toSeconds(), TimeUnit.SECONDS), served.getCount() + " of " + n + " not served");
            assertFalse(auth.pending.peek().isDone(), "all were served while the slow answer was still awaited");
            System.out.printf("1000 peers served in %d ms (slowest round trip %d ms) while one waited%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked), TimeUnit.NANOSECONDS.toMillis(slowest.get()));

            // the answer comes 2 s after the question (or now, if serving the others took longer)
            long due = asked + TimeUnit.SECONDS.toNanos(2);
            CompletableFuture.delayedExecutor(Math.max(0, due - System.nanoTime()), TimeUnit.NANOSECONDS)
                    .execute(() -> auth.pending.peek().complete(AuthResult.allow("slow")));
            ZmtpMessage m = slow.receive(T);
            assertNotNull(m, "the slow client is served once allowed");
            assertEquals("slow", m.frame(0).toString(java.nio.charset.StandardCharsets.UTF_8));
            m.release();
            assertEquals(n + 1, auth.asked.get());
        }
    }

    @Test
    void tenThousandHandshakesAtOnceAndTheBoundHolds() throws Exception {
        SlowForOne auth = new SlowForOne();
        AtomicInteger refusedAtTheBound = new AtomicInteger();
        AtomicInteger otherFailures = new AtomicInteger();
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            ZmtpSocket router = ctx.socket(SocketType.ROUTER, SocketOptions.builder()
                    .mechanism(PlainMechanism.server(auth))
                    .maxConnections(20_000).maxHandshakes(20_000).maxHandshakesPerAddress(20_000).backlog(4096)
                    .authenticationTimeout(Duration.ofMinutes(5)).build());
            router.monitor(e -> {
                if (e.type() == SocketEvent.Type.HANDSHAKE_FAILED) {
                    if (e.failure() == ConnectionFailed.Kind.AUTHENTICATION && e.reason().contains("too many handshakes")) {
                        refusedAtTheBound.incrementAndGet();
                    } else {
                        otherFailures.incrementAndGet();
                    }
                }
            });
            router.onMessage(router::send);
            String ep = router.bind("tcp://127.0.0.1:0").syncUninterruptibly().getNow();
            int port = Integer.parseInt(ep.substring(ep.lastIndexOf(':') + 1));
            BlockingSocket good = ctx.blocking(SocketType.DEALER, client("good")).connect(ep);
            good.send("before");
            ZmtpMessage m = good.receive(T);
            assertNotNull(m, "a good peer is served before the flood");
            m.release();

            int n = 10_000;
            int bound = AuthenticationWaits.DEFAULT_MAX;
            try (PeerScript flood = PeerScript.start("plain_hellos.py", "127.0.0.1", Integer.toString(port),
                    Integer.toString(n))) {
                flood.awaitCount("sent ", 1, T.toMillis());
                assertEquals("sent " + n, flood.lines().get(0), String.valueOf(flood.lines()));
                io.zmtp.testing.Await.until(T, () -> "every handshake is waiting or refused: asked " + auth.asked.get()
                        + ", refused at the bound " + refusedAtTheBound.get() + ", other failures " + otherFailures.get(),
                        () -> auth.pending.size() + refusedAtTheBound.get() == n);
                assertEquals(bound, auth.pending.size(), "exactly the bound waits");
                assertEquals(1 + bound, auth.asked.get(), "the authenticator is never asked past the bound");
                assertEquals(n - bound, refusedAtTheBound.get());
                assertEquals(0, otherFailures.get());

                good.send("during");
                m = good.receive(T);
                assertNotNull(m, "the good peer's connection is served while the bound is full");
                m.release();

                // the answers come: every place is given back, and a new client gets in again
                CompletableFuture<AuthResult> f;
                while ((f = auth.pending.poll()) != null) {
                    f.complete(AuthResult.deny("400", "no"));
                }
                BlockingSocket late = ctx.blocking(SocketType.DEALER, client("late")).connect(ep);
                late.send("after");
                m = late.receive(T);
                assertNotNull(m, "a new client is let in once the places are free");
                m.release();
            }
        }
    }
}
