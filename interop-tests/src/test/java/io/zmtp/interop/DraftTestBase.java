package io.zmtp.interop;

import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.UnroutableMessageException;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.testing.Await;
import io.zmtp.testing.FreePorts;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.MulticastSocket;
import java.net.NetworkInterface;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The fixture of the draft socket types' interop tests (against libzmq 4.3.5 through Node, and
 * against JeroMQ 0.6.0): a context of our sockets per test, what a test opened closed after it,
 * and the waits these types need. A RADIO sends only to the groups its peers joined, and a JOIN
 * travels after the connection's handshake; a udp:// peer has no handshake at all; a restarted
 * peer is found again after a reconnect interval: so a test that must know a path is open sends
 * probes along it until one arrives (bounded by a deadline), then sends what it asserts on, and
 * the receiving side skips late probes.
 */
abstract class DraftTestBase {
    /** The body prefix of a probe, skipped where messages are counted. */
    static final String PROBE = "probe";
    /** How long one probe is given to arrive before the next is sent. */
    static final long PROBE_WAIT_MS = 100;

    ZmtpContext ctx;
    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeEach
    void startContext() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stopAll() throws Exception {
        Collections.reverse(opened);
        for (AutoCloseable c : opened) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // already closed or gone: the test's outcome is what matters
            }
        }
        ctx.close(Duration.ofSeconds(5));
    }

    /** Closes {@code c} after the test. */
    <C extends AutoCloseable> C keep(C c) {
        opened.add(c);
        return c;
    }

    /** One of our sockets, reconnecting quickly (a restarted peer is found within 200 ms). */
    BlockingSocket ours(SocketType type) {
        SocketOptions options = SocketOptions.builder().reconnectInterval(Duration.ofMillis(20))
                .reconnectIntervalMax(Duration.ofMillis(200)).linger(Duration.ZERO).build();
        BlockingSocket s = ctx.blocking(type, options);
        keep(() -> s.close(Duration.ZERO));
        return s;
    }

    /** A message as our socket received it: its routing id (0: none), group (null: none) and body. */
    record Received(int routingId, String group, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "[rid " + Integer.toUnsignedString(routingId) + ", group " + group + ", " + text() + "]";
        }
    }

    /** The next message of {@code s} within {@code ms}, or null. */
    static Received receive(BlockingSocket s, long ms) {
        ZmtpMessage m = s.receive(Duration.ofMillis(ms));
        if (m == null) {
            return null;
        }
        try {
            if (m.size() != 1) {
                throw new AssertionError(s.type() + " received a message of " + m.size() + " frames");
            }
            return new Received(m.routingId(), m.group(), m.frameBytes(0));
        } finally {
            m.release();
        }
    }

    /** The next message of {@code s} that is not a probe; fails the test when none comes in time. */
    static Received receiveSkippingProbes(BlockingSocket s) {
        long deadline = System.nanoTime() + Await.DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            Received r = receive(s, 200);
            if (r != null && !r.text().startsWith(PROBE)) {
                return r;
            }
        }
        throw new AssertionError("our " + s.type() + " received nothing but probes within " + Await.DEADLINE);
    }

    static void send(BlockingSocket s, String body) {
        s.send(ZmtpMessage.of(ByteMessages.b(body)));
    }

    static void sendTo(BlockingSocket s, int routingId, String body) {
        s.send(ZmtpMessage.of(ByteMessages.b(body)).routingId(routingId));
    }

    static void sendToGroup(BlockingSocket s, String group, String body) {
        s.send(ZmtpMessage.of(ByteMessages.b(body)).group(group));
    }

    /**
     * Sends probes (each with its number) until {@code arrived} holds, giving each
     * {@link #PROBE_WAIT_MS}; fails after the deadline, saying what it waited for. A probe our
     * socket refuses as unroutable (its peer's connection is not back yet) is tried again.
     */
    static void probeUntil(String what, ProbeSender send, BooleanSupplier arrived) {
        long deadline = System.nanoTime() + Await.DEADLINE.toNanos();
        for (int i = 0; ; i++) {
            try {
                send.send(PROBE + "-" + i);
            } catch (UnroutableMessageException e) {
                // the peer's connection is not (yet, again) there
            }
            long next = System.nanoTime() + PROBE_WAIT_MS * 1_000_000;
            while (System.nanoTime() < next) {
                if (arrived.getAsBoolean()) {
                    return;
                }
                Await.pause();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no probe arrived within " + Await.DEADLINE.toMillis() + " ms: " + what);
            }
        }
    }

    /** Sends one probe with the given body. */
    @FunctionalInterface
    interface ProbeSender {
        void send(String body);
    }

    /** Sends probes from our socket until it receives one (our end receives: the peer sends them). */
    static void probeUntilReceived(String what, ProbeSender send, BlockingSocket receiver) {
        probeUntil(what, send, () -> receive(receiver, 1) != null);
    }

    /** A udp port free now, for a udp:// bind (libzmq reports no port for a bind to port 0). */
    static int freeUdpPort() {
        return FreePorts.nextUdp();
    }

    /**
     * Skips the test unless a datagram sent to {@code group} on this machine comes back to a
     * socket that joined it (containers often have no multicast route): the reason is the test's.
     */
    static void assumeMulticast(String group) {
        String why;
        try (MulticastSocket s = new MulticastSocket(0)) {
            InetAddress g = InetAddress.getByName(group);
            s.joinGroup(new InetSocketAddress(g, 0), (NetworkInterface) null);
            s.setSoTimeout(1000);
            byte[] out = "multicast check".getBytes(StandardCharsets.US_ASCII);
            s.send(new DatagramPacket(out, out.length, g, s.getLocalPort()));
            DatagramPacket in = new DatagramPacket(new byte[64], 64);
            s.receive(in);
            return;
        } catch (SocketTimeoutException e) {
            why = "a datagram to " + group + " did not come back to its own member within 1 s";
        } catch (IOException e) {
            why = "multicast to " + group + " is not available here: " + e;
        }
        Assumptions.abort(why);
    }
}
