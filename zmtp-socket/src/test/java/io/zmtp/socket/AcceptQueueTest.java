package io.zmtp.socket;

import io.zmtp.transport.IoTransport;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.zmtp.socket.ListenersTest.port;
import static io.zmtp.socket.ListenersTest.waiting;
import static io.zmtp.socket.SocketTesting.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A bound endpoint's accept queue ({@link AcceptQueue}): a listener takes every connection the
 * kernel holds in one read, up to the queue's bound, and they are set up at later turns. Each
 * test holds the socket's loop while raw peers connect, so the kernel's queue holds them all
 * (counted in /proc/net/tcp), then looks at that queue from a task that runs right after the
 * loop's next turn of I/O.
 */
class AcceptQueueTest extends ContextTest {

    @BeforeEach
    void epollOrNio() {
        assumeTrue(new java.io.File("/proc/net/tcp").canRead(), "Linux's /proc/net/tcp counts the kernel's queue");
        // io_uring accepts in the kernel while the loop is held, so its queue is not there to count
        assumeTrue(ctx.transport() != IoTransport.IO_URING, "the kernel's queue stays full while the loop is held");
    }

    /** Netty 4.2's epoll listener took one connection per wake-up; one read now takes all 100. */
    @Test
    void oneTurnAcceptsEveryConnectionTheKernelHolds() throws Exception {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER, SocketOptions.DEFAULTS);
        AtomicInteger accepted = count(router, SocketEvent.Type.ACCEPTED);
        String ep = get(router.bind("tcp://127.0.0.1:0"));
        try (Crowd crowd = connectWhileHeld(router, port(ep), 100, () -> { })) {
            assertEquals(0, crowd.leftAfterOneTurn(), "the kernel's queue after one turn");
            SocketTesting.eventually("all 100 set up", () -> accepted.get() == 100);
        }
    }

    /** At its bound the queue stops the listener (the kernel holds the rest), and starts it again. */
    @Test
    void atItsBoundTheQueueStopsTheListenerUntilHalfAreSetUp() throws Exception {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER, SocketOptions.builder().acceptQueue(10).build());
        List<SocketEvent> full = new CopyOnWriteArrayList<>();
        AtomicInteger accepted = new AtomicInteger();
        router.monitor(e -> {
            if (e.type() == SocketEvent.Type.QUEUE_FULL) {
                full.add(e);
            } else if (e.type() == SocketEvent.Type.ACCEPTED) {
                accepted.incrementAndGet();
            }
        });
        String ep = get(router.bind("tcp://127.0.0.1:0"));
        int port = port(ep);
        try (Crowd crowd = connectWhileHeld(router, port, 30, () -> { })) {
            assertEquals(20, crowd.leftAfterOneTurn(), "ten accepted, twenty left in the kernel's queue");
            SocketTesting.eventually("all 30 accepted and set up", () -> accepted.get() == 30 && waiting(port) == 0);
            assertTrue(!full.isEmpty(), "QUEUE_FULL reported");
            String reason = full.get(0).reason();
            assertTrue(reason.startsWith("10 connections are accepted and waiting to be set up"), reason);
            assertTrue(reason.contains("acceptQueue"), "says what holds more: " + reason);
        }
    }

    /** An unbind closes the connections waiting to be set up: their peers see the end, no greeting. */
    @Test
    void anUnbindClosesTheConnectionsWaitingToBeSetUp() throws Exception {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER, SocketOptions.DEFAULTS);
        AtomicInteger accepted = count(router, SocketEvent.Type.ACCEPTED);
        String ep = get(router.bind("tcp://127.0.0.1:0"));
        int port = port(ep);
        // after the listener's read and before the queue's turn: unbind there
        try (Crowd crowd = connectWhileHeld(router, port, 5, () -> router.unbind(ep))) {
            assertEquals(0, crowd.leftAfterOneTurn(), "all five were accepted before the unbind");
            for (SocketChannel p : crowd.peers()) {
                p.configureBlocking(true);
                p.socket().setSoTimeout(10_000);
                ByteBuffer b = ByteBuffer.allocate(64);
                int n;
                try {
                    n = p.socket().getInputStream().read(b.array());
                } catch (IOException reset) {
                    n = -1;
                }
                assertEquals(-1, n, "closed, without a greeting");
            }
            assertEquals(0, accepted.get(), "none was set up");
            SocketTesting.eventually("the port closed", () -> {
                try (SocketChannel c = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
                    return false;
                } catch (IOException refused) {
                    return true;
                }
            });
        }
    }

    /** A ws:// port's listener sets each up as it accepts it, sixteen per read, not one per wake-up. */
    @Test
    void aWebSocketPortTakesSixteenConnectionsPerRead() throws Exception {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER, SocketOptions.DEFAULTS);
        String ep = get(router.bind("ws://127.0.0.1:0/zmq"));
        int port = Integer.parseInt(ep.replaceAll("^ws://[^:]+:(\\d+)/.*$", "$1"));
        try (Crowd crowd = connectWhileHeld(router, port, 20, () -> { })) {
            assertEquals(20 - WebSocketListener.ACCEPTS_PER_READ, crowd.leftAfterOneTurn(), "sixteen taken in one read");
        }
    }

    @Test
    void theQueueHoldsAtLeastOne() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SocketOptions.builder().acceptQueue(0));
        assertEquals("acceptQueue must be at least 1", e.getMessage());
        assertEquals(16_384, SocketOptions.DEFAULTS.acceptQueue());
    }

    /** Raw peers that connected while the loop was held, and the kernel's queue after the loop's next turn. */
    private record Crowd(List<SocketChannel> peers, int leftAfterOneTurn) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            for (SocketChannel p : peers) {
                p.close();
            }
        }
    }

    /**
     * Holds {@code router}'s loop while {@code n} raw peers connect to {@code port}, until the
     * kernel's queue holds them all; then lets go, and reads the kernel's queue from a task of the
     * loop that runs after its next turn of I/O (the listener's read) and before the tasks that
     * turn scheduled (the accept queue's set-ups), then runs {@code then} there: a task scheduled
     * while the loop is held waits for the next run of tasks, which follows the next turn of I/O.
     */
    private static Crowd connectWhileHeld(ZmtpSocket router, int port, int n, Runnable then) throws Exception {
        AtomicInteger left = new AtomicInteger(-1);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        router.eventLoop().execute(() -> {
            held.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            router.eventLoop().schedule(() -> {
                left.set(waiting(port));
                then.run();
            }, 0, TimeUnit.NANOSECONDS);
        });
        assertTrue(held.await(10, TimeUnit.SECONDS), "the router's loop is held");
        List<SocketChannel> peers = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                SocketChannel c = SocketChannel.open();
                c.configureBlocking(false);
                c.connect(new InetSocketAddress("127.0.0.1", port));
                peers.add(c);
            }
            for (SocketChannel c : peers) {
                SocketTesting.eventually("connected", () -> {
                    try {
                        return c.finishConnect();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
            }
            SocketTesting.eventually("the kernel's queue holds all " + n, () -> waiting(port) == n);
        } finally {
            release.countDown();
        }
        Crowd crowd = new Crowd(peers, -1);
        try {
            SocketTesting.eventually("looked after the turn", () -> left.get() >= 0);
        } catch (AssertionError e) {
            crowd.close();
            throw e;
        }
        return new Crowd(peers, left.get());
    }

    private static AtomicInteger count(ZmtpSocket s, SocketEvent.Type type) {
        AtomicInteger n = new AtomicInteger();
        s.monitor(e -> {
            if (e.type() == type) {
                n.incrementAndGet();
            }
        });
        return n;
    }
}
