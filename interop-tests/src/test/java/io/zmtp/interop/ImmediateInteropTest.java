package io.zmtp.interop;

import io.netty.util.concurrent.Future;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.testing.FreePorts;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where a DEALER's messages go while its peers are connecting (libzmq's ZMQ_IMMEDIATE), ours
 * against libzmq's two settings, in three situations: sending before the peer has bound, sending
 * with one of two endpoints down, and sending while the peer restarts. Ours never gives a message
 * to a peer whose handshake has not completed (libzmq's IMMEDIATE=1), and a send made while no
 * peer is connected waits in the socket until one is (as libzmq's default queues it), so each
 * situation delivers everything. The test asserts ours and prints the three rows that
 * docs/socket-options.md quotes:
 *
 * <pre>
 * mvn -B -ntp -o -Dsurefire.forks=1 -pl interop-tests -am verify -Dtest=io.zmtp.interop.ImmediateInteropTest \
 *     -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
class ImmediateInteropTest extends LibzmqTestBase {
    private static final int COUNT = 1000;
    private static final AtomicInteger IDS = new AtomicInteger();
    private static final List<String> ROWS = new ArrayList<>();

    @AfterAll
    static void printFigures() {
        System.out.println("| sender | bound late: taken / delivered | one of two endpoints down: delivered to the live one |"
                + " peer restarted: taken / delivered |");
        ROWS.forEach(System.out::println);
    }

    static String libzmq(String type) {
        String id = type.toLowerCase() + "i" + IDS.incrementAndGet();
        zmq.socket(id, type).opt(id, "LINGER", 0).opt(id, "RECONNECT_IVL", 20).opt(id, "RECONNECT_IVL_MAX", 200);
        return id;
    }

    ZmtpSocket ourDealer() {
        return ctx.socket(SocketType.DEALER, SocketOptions.builder().identity("dealer").linger(Duration.ZERO)
                .reconnectInterval(Duration.ofMillis(20)).reconnectIntervalMax(Duration.ofMillis(200)).build());
    }

    /** A libzmq ROUTER bound to {@code port}; returns its id. */
    static String router(int port) {
        String r = libzmq("ROUTER");
        zmq.bind(r, "tcp://127.0.0.1:" + port);
        return r;
    }

    /**
     * Messages the ROUTER receives from a DEALER of ours or libzmq's ({@code ours}). Ours is
     * asserted to deliver all: each of {@code COUNT} may take up to 10 s to come, then a short
     * window in which a duplicate would show. libzmq's rows are figures, and with IMMEDIATE=1 it
     * drops some: none if the first does not come within 3 s (the DEALER reconnects within
     * 200 ms), else until half a second passes without one.
     */
    static int drain(String router, boolean ours) {
        if (ours) {
            int n = Integer.parseInt(zmq.call("drain " + router + " 10000 " + COUNT, 120_000));
            return n + Integer.parseInt(zmq.call("drain " + router + " 200", 120_000)); // a negative window
        }
        if (zmq.recv(router, 3000) == null) {
            return 0;
        }
        return 1 + Integer.parseInt(zmq.call("drain " + router + " 500", 120_000));
    }

    /** Sends {@code COUNT} messages; their futures (each completes when written to a peer, or fails). */
    static List<Future<Void>> sendAll(ZmtpSocket dealer) {
        List<Future<Void>> sends = new ArrayList<>();
        for (int i = 0; i < COUNT; i++) {
            sends.add(dealer.send("m" + i));
        }
        return sends;
    }

    /** How many of {@code sends} succeeded, once each is done (up to 10 s each). */
    static int taken(List<Future<Void>> sends) {
        int n = 0;
        for (Future<Void> f : sends) {
            if (f.awaitUninterruptibly(10, TimeUnit.SECONDS) && f.isSuccess()) {
                n++;
            }
        }
        return n;
    }

    /** How many of {@code COUNT} messages a libzmq DEALER takes without blocking (ZMQ_DONTWAIT). */
    static int libzmqSendAll(String dealer) {
        return Integer.parseInt(zmq.call("trysendseq " + dealer + " m " + COUNT));
    }

    @Test
    void whereADealersMessagesGoWhilePeersConnect() throws Exception {
        // ours
        String bound = bindLate(null);
        String split = oneEndpointDown(null);
        String restart = peerRestarts(null);
        ROWS.add("| ours (send) | " + bound + " | " + split + " | " + restart + " |");
        assertEquals(COUNT + " / " + COUNT, bound, "sent before the peer bound: all delivered once it did");
        assertEquals(COUNT + "", split, "nothing waits for the endpoint that is down");
        assertEquals(COUNT + " / " + COUNT, restart, "sent while the peer was away: all delivered when it came back");
        for (int immediate : new int[] {0, 1}) {
            ROWS.add("| libzmq " + zmq.version() + " IMMEDIATE=" + immediate + " (zmq_send DONTWAIT) | "
                    + bindLate(immediate) + " | " + oneEndpointDown(immediate) + " | " + peerRestarts(immediate) + " |");
        }
    }

    /** The DEALER connects, sends, and only then does the ROUTER bind: taken / delivered. */
    String bindLate(Integer libzmqImmediate) {
        int port = FreePorts.next();
        String ep = "tcp://127.0.0.1:" + port;
        List<Future<Void>> ours = null;
        int taken = 0;
        if (libzmqImmediate == null) {
            ZmtpSocket dealer = ourDealer();
            dealer.connect(ep);
            ours = sendAll(dealer);
        } else {
            String dealer = libzmq("DEALER");
            zmq.opt(dealer, "IMMEDIATE", libzmqImmediate).connect(dealer, ep);
            taken = libzmqSendAll(dealer);
        }
        String router = router(port);
        int delivered = drain(router, ours != null);
        return (ours != null ? taken(ours) : taken) + " / " + delivered;
    }

    /** The DEALER connects to a live ROUTER and to a port nobody listens on: what the live one gets. */
    String oneEndpointDown(Integer libzmqImmediate) {
        String router = libzmq("ROUTER");
        String live = zmq.bind(router, "tcp://127.0.0.1:*");
        String dead = "tcp://127.0.0.1:" + FreePorts.next();
        if (libzmqImmediate == null) {
            ZmtpSocket dealer = ourDealer();
            dealer.connect(dead);
            dealer.connect(live);
            sendAll(dealer);
        } else {
            String dealer = libzmq("DEALER");
            zmq.opt(dealer, "IMMEDIATE", libzmqImmediate).monitor(dealer);
            zmq.connect(dealer, dead).connect(dealer, live);
            try {
                assertTrue(zmq.awaitEvent(dealer, "HANDSHAKE_SUCCEEDED", 10_000), "libzmq DEALER connected");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            libzmqSendAll(dealer);
        }
        return String.valueOf(drain(router, libzmqImmediate == null));
    }

    /**
     * The DEALER talks to a ROUTER, the ROUTER goes away, the DEALER sees the disconnect and
     * sends, then a ROUTER binds the same port again: taken / delivered.
     */
    String peerRestarts(Integer libzmqImmediate) throws Exception {
        int port = FreePorts.next();
        String ep = "tcp://127.0.0.1:" + port;
        String first = router(port);
        List<Future<Void>> ours = null;
        int taken = 0;
        if (libzmqImmediate == null) {
            ZmtpSocket dealer = ourDealer();
            CountDownLatch gone = new CountDownLatch(1);
            dealer.monitor(e -> {
                if (e.type() == SocketEvent.Type.DISCONNECTED) {
                    gone.countDown();
                }
            });
            dealer.connect(ep);
            dealer.send("hello");
            assertEquals(List.of("dealer", "hello"), zmq.recvStrings(first, ByteMessages.T));
            zmq.close(first);
            assertTrue(gone.await(10, TimeUnit.SECONDS), "our DEALER saw the disconnect");
            ours = sendAll(dealer);
        } else {
            String dealer = libzmq("DEALER");
            zmq.opt(dealer, "IMMEDIATE", libzmqImmediate).opt(dealer, "ROUTING_ID", ByteMessages.b("dealer"));
            zmq.monitor(dealer);
            zmq.connect(dealer, ep).sendStrings(dealer, "hello");
            assertEquals(List.of("dealer", "hello"), zmq.recvStrings(first, ByteMessages.T));
            zmq.close(first);
            assertTrue(zmq.awaitEvent(dealer, "DISCONNECTED", 10_000), "libzmq DEALER saw the disconnect");
            taken = libzmqSendAll(dealer);
        }
        String second = router(port);
        int delivered = drain(second, ours != null);
        return (ours != null ? taken(ours) : taken) + " / " + delivered;
    }
}
