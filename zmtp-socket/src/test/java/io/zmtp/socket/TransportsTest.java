package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Our sockets against each other over each transport: tcp, ipc and inproc. */
class TransportsTest {
    static final Duration T = Duration.ofSeconds(10);
    ZmtpContext ctx;
    @TempDir
    Path tmp;

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() {
        ctx.close(Duration.ofSeconds(5));
    }

    String endpoint(String transport) {
        switch (transport) {
            case "tcp": return "tcp://127.0.0.1:0";
            case "ipc": return "ipc://" + tmp.resolve("s.ipc");
            default: return "inproc://test-" + System.nanoTime();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc", "inproc"})
    void dealerToRouterAndBack(String transport) {
        BlockingSocket router = ctx.blocking(SocketType.ROUTER);
        String ep = router.bind(endpoint(transport));
        if (transport.equals("tcp")) {
            assertNotEquals("tcp://127.0.0.1:0", ep, "the bound port is reported");
        }
        BlockingSocket dealer = ctx.blocking(SocketType.DEALER, SocketOptions.builder().identity("D1").build());
        dealer.connect(ep);
        dealer.send("hello", "", "world");
        List<String> got = router.receiveStrings(T);
        assertEquals(List.of("D1", "hello", "", "world"), got);
        router.send("D1", "reply");
        assertEquals(List.of("reply"), dealer.receiveStrings(T));
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc", "inproc"})
    void reqToRepAlternates(String transport) {
        BlockingSocket rep = ctx.blocking(SocketType.REP);
        String ep = rep.bind(endpoint(transport));
        BlockingSocket req = ctx.blocking(SocketType.REQ);
        req.connect(ep);
        for (int i = 0; i < 20; i++) {
            req.send("ping", Integer.toString(i));
            assertEquals(List.of("ping", Integer.toString(i)), rep.receiveStrings(T));
            rep.send("pong", Integer.toString(i));
            assertEquals(List.of("pong", Integer.toString(i)), req.receiveStrings(T));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc", "inproc"})
    void pubToSubFiltersByPrefix(String transport) throws Exception {
        BlockingSocket pub = ctx.blocking(SocketType.PUB);
        String ep = pub.bind(endpoint(transport));
        BlockingSocket sub = ctx.blocking(SocketType.SUB);
        sub.subscribe("A");
        sub.connect(ep);
        // Subscriptions travel after the handshake: publish until the first one gets through.
        long deadline = System.nanoTime() + T.toNanos();
        List<String> got = null;
        while (got == null && System.nanoTime() < deadline) {
            pub.send("A", "first");
            got = sub.receiveStrings(Duration.ofMillis(20));
        }
        assertEquals(List.of("A", "first"), got);
        pub.send("B", "not for us");
        pub.send("AB", "also for us");
        // Repeats of the first message may still be on their way (however late): skip those and
        // nothing else until the next one for us; "not for us", had it passed, would come first.
        receiveSkipping(sub, List.of("A", "first"), List.of("AB", "also for us"));
    }

    /**
     * Receives until {@code expected} within the deadline, skipping only copies of {@code skip};
     * fails on any other message.
     */
    static void receiveSkipping(BlockingSocket s, List<String> skip, List<String> expected) {
        long deadline = System.nanoTime() + T.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            assertTrue(left > 0, "received " + expected + " within " + T);
            List<String> got = s.receiveStrings(Duration.ofNanos(left));
            assertNotNull(got, "received " + expected + " within " + T);
            if (got.equals(expected)) {
                return;
            }
            assertEquals(skip, got, "only copies of " + skip + " come before " + expected);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc", "inproc"})
    void pushToTwoPullsRoundRobin(String transport) {
        BlockingSocket push = ctx.blocking(SocketType.PUSH);
        String ep = push.bind(endpoint(transport));
        BlockingSocket pull1 = ctx.blocking(SocketType.PULL).connect(ep);
        BlockingSocket pull2 = ctx.blocking(SocketType.PULL).connect(ep);
        awaitPeers(push.socket(), 2);
        for (int i = 0; i < 10; i++) {
            push.send("m" + i);
        }
        int a = 0;
        int b = 0;
        for (int i = 0; i < 5; i++) {
            if (pull1.receiveStrings(T) != null) {
                a++;
            }
            if (pull2.receiveStrings(T) != null) {
                b++;
            }
        }
        assertEquals(null, pull1.tryReceive());
        assertEquals(null, pull2.tryReceive());
        assertEquals(5, a, "round robin gives each PULL half");
        assertEquals(5, b);
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc", "inproc"})
    void pairTalksBothWays(String transport) {
        BlockingSocket a = ctx.blocking(SocketType.PAIR);
        String ep = a.bind(endpoint(transport));
        BlockingSocket b = ctx.blocking(SocketType.PAIR).connect(ep);
        b.send("to a");
        assertEquals(List.of("to a"), a.receiveStrings(T));
        a.send("to b");
        assertEquals(List.of("to b"), b.receiveStrings(T));
    }

    static void awaitPeers(ZmtpSocket s, int n) {
        long deadline = System.nanoTime() + T.toNanos();
        while (System.nanoTime() < deadline) {
            int count = BlockingSocket.await(s.eventLoop().submit(s::peerCount), T);
            if (count >= n) {
                return;
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
        throw new AssertionError(s + " did not reach " + n + " peers");
    }
}
