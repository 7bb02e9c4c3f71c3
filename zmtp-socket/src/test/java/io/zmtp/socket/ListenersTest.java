package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import static io.zmtp.socket.SocketTesting.T;
import static io.zmtp.socket.SocketTesting.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Several listening sockets per bound tcp:// endpoint ({@link SocketOptions.Builder#listeners}):
 * the kernel holds as many listeners on the port as asked, all serve, an unbind closes them all,
 * and the port stays closed to a bind that does not share it. The listeners are counted where the
 * kernel lists them, /proc/net/tcp (Linux, where SO_REUSEPORT spreads connections).
 */
class ListenersTest extends ContextTest {

    @BeforeEach
    void linuxOnly() {
        assumeTrue(Files.isReadable(Path.of("/proc/net/tcp")), "needs Linux's /proc/net/tcp");
    }

    @Test
    void threeListenersShareThePortServeAndAllCloseAtUnbind() throws Exception {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER, SocketOptions.builder().listeners(3).build());
        router.onMessage(m -> router.send(m));
        String ep = get(router.bind("tcp://127.0.0.1:0"));
        int port = port(ep);
        assertEquals(3, listening(port), "listening sockets on the port");

        List<BlockingSocket> dealers = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            dealers.add(ctx.blocking(SocketType.DEALER).connect(ep));
        }
        Set<String> back = new HashSet<>();
        for (int i = 0; i < dealers.size(); i++) {
            dealers.get(i).send("dealer " + i);
        }
        for (BlockingSocket d : dealers) {
            back.add(d.receiveStrings(T).get(0));
        }
        assertEquals(30, back.size(), "every dealer served, whichever listener took its connection");

        get(router.unbind(ep));
        // under NIO the JDK closes a listening socket at its selector's next turn after the close
        SocketTesting.eventually("no listener left after the unbind", () -> listening(port) == 0);
        assertThrows(IOException.class, () -> {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            }
        }, "the port refuses connections");
    }

    @Test
    void thePortStaysClosedToABindThatDoesNotShareIt() {
        ZmtpSocket shared = ctx.socket(SocketType.ROUTER, SocketOptions.builder().listeners(2).build());
        String ep = get(shared.bind("tcp://127.0.0.1:0"));
        ZmtpSocket exclusive = ctx.socket(SocketType.ROUTER);
        ExecutionException e = assertThrows(ExecutionException.class, () -> exclusive.bind(ep).get());
        assertTrue(String.valueOf(e.getCause().getMessage()).contains("cannot bind"), e.getCause().toString());

        // and the default, one listener, binds exclusively: no group may join it
        ZmtpSocket alone = ctx.socket(SocketType.ROUTER);
        String ep2 = get(alone.bind("tcp://127.0.0.1:0"));
        ZmtpSocket group = ctx.socket(SocketType.ROUTER, SocketOptions.builder().listeners(3).build());
        assertThrows(ExecutionException.class, () -> group.bind(ep2).get());
        assertEquals(1, listening(port(ep2)));
    }

    /**
     * An endpoint that finds the kernel's queue of waiting connections full when it next accepts
     * says so (QUEUE_FULL, with the queue's length and bound): the router's loop is held while
     * more peers connect than a backlog of 4 queues, then let go. Over epoll: under io_uring the
     * kernel runs the loop's pending accepts while the loop is held, so the queue does not stay
     * full to be seen, and NIO cannot read it.
     */
    @Test
    void aFullQueueOfWaitingConnectionsIsReported() throws Exception {
        assumeTrue(ctx.transport() == io.zmtp.transport.IoTransport.EPOLL, "the queue stays full to be seen over epoll");
        ZmtpSocket router = ctx.socket(SocketType.ROUTER, SocketOptions.builder().backlog(4).build());
        List<SocketEvent> full = new java.util.concurrent.CopyOnWriteArrayList<>();
        router.monitor(e -> {
            if (e.type() == SocketEvent.Type.QUEUE_FULL) {
                full.add(e);
            }
        });
        String ep = get(router.bind("tcp://127.0.0.1:0"));
        int port = port(ep);
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        router.eventLoop().execute(() -> {
            held.countDown();
            try {
                release.await(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(held.await(10, java.util.concurrent.TimeUnit.SECONDS), "the router's loop is held");
        List<java.nio.channels.SocketChannel> peers = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                java.nio.channels.SocketChannel c = java.nio.channels.SocketChannel.open();
                c.configureBlocking(false);
                c.connect(new InetSocketAddress("127.0.0.1", port));
                peers.add(c);
            }
            // a listener's queue holds its bound and one more: five of the ten wait in it
            SocketTesting.eventually("the kernel's queue full", () -> waiting(port) >= 5);
            assertTrue(full.isEmpty(), "nothing accepted, nothing reported yet");
        } finally {
            release.countDown();
        }
        SocketTesting.eventually("QUEUE_FULL reported", () -> !full.isEmpty());
        String reason = full.get(0).reason();
        assertTrue(reason.matches(".*queue of connections waiting to be accepted holds [45] of its 4:.*"), reason);
        assertTrue(reason.contains("listeners") && reason.contains("somaxconn"), "says what queues more: " + reason);
        assertEquals(ep, full.get(0).endpoint());
        for (java.nio.channels.SocketChannel c : peers) {
            c.close();
        }
    }

    @Test
    void listenersAreOneToSixtyFour() {
        SocketOptions.Builder b = SocketOptions.builder();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.listeners(0));
        assertEquals("listeners must be 1-64, not 0", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.listeners(65));
        assertEquals(64, b.listeners(64).build().listeners());
        assertEquals(1, SocketOptions.DEFAULTS.listeners());
    }

    static int port(String endpoint) {
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    /** Sockets in state LISTEN on 127.0.0.1:port. */
    static int listening(int port) {
        return listenQueues(port).size();
    }

    /** Connections waiting to be accepted on 127.0.0.1:port, in all its listeners' queues. */
    static int waiting(int port) {
        return listenQueues(port).stream().mapToInt(Integer::intValue).sum();
    }

    /**
     * Each socket in state LISTEN on 127.0.0.1:port with its queue (rx_queue: the connections
     * waiting to be accepted), as the kernel lists them: IPv4 sockets in /proc/net/tcp, dual-stack
     * ones (Netty's epoll default) at the mapped address in tcp6.
     */
    static List<Integer> listenQueues(int port) {
        String v4 = String.format(Locale.ROOT, "0100007F:%04X", port);
        String mapped = String.format(Locale.ROOT, "0000000000000000FFFF00000100007F:%04X", port);
        List<Integer> queues = new ArrayList<>();
        try {
            for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                if (!Files.isReadable(Path.of(table))) {
                    continue;
                }
                for (String line : Files.readAllLines(Path.of(table))) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > 4 && (f[1].equals(v4) || f[1].equals(mapped)) && f[3].equals("0A")) {
                        queues.add(Integer.parseInt(f[4].substring(f[4].indexOf(':') + 1), 16));
                    }
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return queues;
    }
}
