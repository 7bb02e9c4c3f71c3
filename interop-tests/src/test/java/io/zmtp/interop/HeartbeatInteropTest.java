package io.zmtp.interop;

import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.SocketOptions;
import io.zmtp.testing.PeerBytes;
import io.zmtp.wire.HeartbeatPolicy;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.zmtp.interop.ByteMessages.assertMessage;
import static io.zmtp.interop.ByteMessages.msg;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZMTP heartbeats between our sockets and libzmq: libzmq with ZMQ_HEARTBEAT_IVL keeps an idle
 * connection to our socket (we answer its PINGs), and libzmq answers the PINGs our
 * {@link SocketOptions.Builder#heartbeat heartbeat} option sends; each for either side binding.
 * Intervals are 50 ms with a 400 ms timeout (long beside the stalls of a busy machine), and each
 * connection idles 600 ms, longer than the timeout. The control test
 * shows that our socket does drop a peer that never answers, so the others can fail.
 */
class HeartbeatInteropTest extends LibzmqTestBase {
    static final HeartbeatPolicy OURS = HeartbeatPolicy.of(Duration.ofMillis(50), Duration.ZERO, Duration.ofMillis(400));
    <E extends SocketEnd> E keep(E e) {
        ends.add(e);
        return e;
    }

    static List<SocketEvent> events(SocketEnd.Ours ours) {
        List<SocketEvent> l = new CopyOnWriteArrayList<>();
        ours.socket().monitor(l::add);
        return l;
    }

    static boolean has(List<SocketEvent> events, SocketEvent.Type t) {
        return events.stream().anyMatch(e -> e.type() == t);
    }

    @ParameterizedTest(name = "libzmq binds: {0}")
    @ValueSource(booleans = {false, true})
    void libzmqHeartbeatsKeepItsIdleConnectionToOurSocketAlive(boolean libzmqBinds) {
        SocketEnd.Ours router = keep(SocketEnd.ours(ctx, SocketType.ROUTER, null));
        List<SocketEvent> ourEvents = events(router);
        SocketEnd.Libzmq dealer = keep(SocketEnd.libzmq(zmq, SocketType.DEALER, "hb-dealer"))
                .opt("HEARTBEAT_IVL", 50).opt("HEARTBEAT_TIMEOUT", 400).opt("HEARTBEAT_TTL", 800);
        zmq.monitor(dealer.id);
        if (libzmqBinds) {
            router.connect(dealer.bind("tcp", tmp));
        } else {
            dealer.connect(router.bind("tcp", tmp));
        }
        dealer.send(msg("hello"));
        assertMessage(msg("hb-dealer", "hello"), router.recv(), "connected");

        assertNull(router.recv(600), "twelve heartbeat intervals with no traffic but PING/PONG");
        List<String> theirEvents = zmq.events(dealer.id);
        assertFalse(theirEvents.contains("DISCONNECTED"), "libzmq kept the connection: " + theirEvents);
        assertFalse(has(ourEvents, SocketEvent.Type.DISCONNECTED), "we kept it: " + ourEvents);
        dealer.send(msg("still here"));
        assertMessage(msg("hb-dealer", "still here"), router.recv(), "after the idle time");
        router.send(msg("hb-dealer", "and back"));
        assertMessage(msg("and back"), dealer.recv(), "reply after the idle time");
    }

    @ParameterizedTest(name = "libzmq binds: {0}")
    @ValueSource(booleans = {false, true})
    void libzmqAnswersOurSocketsPings(boolean libzmqBinds) {
        SocketEnd.Ours dealer = keep(SocketEnd.ours(ctx, SocketType.DEALER, "our-dealer",
                SocketOptions.builder().heartbeat(OURS)));
        List<SocketEvent> ourEvents = events(dealer);
        SocketEnd.Libzmq router = keep(SocketEnd.libzmq(zmq, SocketType.ROUTER, null));
        if (libzmqBinds) {
            dealer.connect(router.bind("tcp", tmp));
        } else {
            router.connect(dealer.bind("tcp", tmp));
        }
        dealer.send(msg("hello"));
        assertMessage(msg("our-dealer", "hello"), router.recv(), "connected");

        // Without PONGs our 400 ms heartbeat timeout would close the connection in this time.
        assertNull(dealer.recv(600));
        assertFalse(has(ourEvents, SocketEvent.Type.DISCONNECTED), "libzmq answered our PINGs: " + ourEvents);
        router.send(msg("our-dealer", "still here"));
        assertMessage(msg("still here"), dealer.recv(), "after the idle time");
    }

    /**
     * A bound socket's default heartbeats ({@link SocketOptions#DEFAULT_BOUND_HEARTBEAT}: PING
     * every interval with a TTL of three intervals, drop after one interval without an answer),
     * scaled from 30 s to 250 ms (a busy machine may stall a process for a fair part of 100 ms) so
     * the test idles only a few intervals: an idle libzmq peer with
     * libzmq's defaults (no heartbeats of its own) answers our PINGs, honours our TTL and stays.
     */
    @Test
    void ourBoundSocketsDefaultHeartbeatsKeepAnIdleLibzmqPeerWithDefaultSettings() {
        HeartbeatPolicy d = SocketOptions.DEFAULT_BOUND_HEARTBEAT;
        assertTrue(d.enabled() && d.ttl().equals(d.interval().multipliedBy(3)) && d.timeout().equals(d.interval()));
        Duration ivl = Duration.ofMillis(250);
        SocketEnd.Ours router = keep(SocketEnd.ours(ctx, SocketType.ROUTER, null,
                SocketOptions.builder().heartbeat(HeartbeatPolicy.of(ivl, ivl.multipliedBy(3), ivl))));
        List<SocketEvent> ourEvents = events(router);
        SocketEnd.Libzmq dealer = keep(SocketEnd.libzmq(zmq, SocketType.DEALER, "idle-dealer"));
        zmq.monitor(dealer.id);
        dealer.connect(router.bind("tcp", tmp));
        dealer.send(msg("hello"));
        assertMessage(msg("idle-dealer", "hello"), router.recv(), "connected");

        assertNull(router.recv(1500), "six heartbeat intervals with no traffic but PING/PONG");
        List<String> theirEvents = zmq.events(dealer.id);
        assertFalse(theirEvents.contains("DISCONNECTED"), "libzmq kept the connection: " + theirEvents);
        assertFalse(has(ourEvents, SocketEvent.Type.DISCONNECTED), "we kept it: " + ourEvents);
        router.send(msg("idle-dealer", "still here"));
        assertMessage(msg("still here"), dealer.recv(), "after the idle time");
    }

    /** The control: the same socket options against a peer that completes the handshake and then goes mute. */
    @Test
    void ourSocketDropsAPeerThatNeverAnswersItsPings() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            SocketEnd.Ours dealer = keep(SocketEnd.ours(ctx, SocketType.DEALER, null,
                    SocketOptions.builder().heartbeat(OURS)));
            List<SocketEvent> ourEvents = events(dealer);
            dealer.connect("tcp://127.0.0.1:" + server.getLocalPort());
            try (Socket mute = server.accept()) {
                OutputStream out = mute.getOutputStream();
                out.write(PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER").toArray());
                out.flush();
                ByteMessages.eventually(() -> "DISCONNECTED in " + ourEvents, () -> has(ourEvents, SocketEvent.Type.DISCONNECTED));
                SocketEvent d = ourEvents.stream().filter(e -> e.type() == SocketEvent.Type.DISCONNECTED).findFirst()
                        .orElseThrow();
                assertTrue(d.reason() != null && d.reason().contains("PING"),
                        "dropped for its silence: " + d);
            }
        }
    }
}
