package io.zmtp.socket;

import io.netty.channel.Channel;
import io.zmtp.testing.RawPeer;
import io.zmtp.wire.HeartbeatPolicy;
import io.zmtp.wire.InboundBudget;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static io.zmtp.socket.SocketTesting.onLoop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connections to a bound endpoint are bounded per endpoint and per remote address, and idle
 * peers that stop answering are dropped by the bound side's heartbeats: a peer cannot hold the
 * process's file descriptors, and a good client still connects and gets answers.
 */
class ConnectionLimitsTest extends ContextTest {

    /** A REQ from 127.0.0.1 sends one request to {@code ep} and gets the REP's echo within the deadline. */
    private void goodClientRoundTrips(String ep, String body) {
        BlockingSocket req = ctx.blocking(SocketType.REQ, SocketOptions.builder().linger(Duration.ZERO).build());
        try {
            req.connect(ep);
            req.send(body);
            assertEquals(List.of(body), req.receiveStrings(SocketTesting.T));
        } finally {
            req.close(Duration.ZERO);
        }
    }

    private ZmtpSocket echo(SocketOptions options) {
        ZmtpSocket rep = ctx.socket(SocketType.REP, options);
        rep.onMessage(m -> rep.send(m));
        return rep;
    }

    /** The local ports of the peers {@code rep} kept: its open channels, by their remote port. */
    private static Set<Integer> keptPorts(ZmtpSocket rep) {
        Set<Integer> ports = new HashSet<>();
        for (Channel ch : onLoop(rep, rep::openChannels)) {
            ports.add(((InetSocketAddress) ch.remoteAddress()).getPort());
        }
        return ports;
    }

    /** Whether a connection from {@code source} is closed (or reset while connecting) within 5 s. */
    private static boolean closedAtOnce(String ep, String source) throws java.io.IOException {
        return RawPeer.refusedWithin(ep, source, 5_000);
    }

    @Test
    void aFloodFromOneAddressGetsItsShareAndAGoodClientStillConnects() throws Exception {
        ZmtpSocket rep = echo(SocketOptions.builder().maxConnections(16).maxConnectionsPerAddress(4).build());
        SocketTesting.Events events = new SocketTesting.Events(rep);
        String ep = get(rep.bind("tcp://127.0.0.1:0"));
        List<RawPeer> flood = new ArrayList<>();
        try {
            for (int i = 0; i < 50; i++) {
                try {
                    flood.add(RawPeer.handshaken(ep, "127.0.0.2", "REQ"));
                } catch (java.io.IOException e) {
                    // reset before connect() returned: refused, as the REFUSED count shows
                }
            }
            eventually("46 connections refused", () -> events.count(SocketEvent.Type.REFUSED) == 46);
            assertEquals(4, onLoop(rep, rep::acceptedConnections));
            Set<Integer> kept = keptPorts(rep);
            assertEquals(4, kept.size(), "the address keeps its 4 connections");
            for (RawPeer p : flood) {
                if (kept.contains(p.localPort())) {
                    // a negative window, short: a kept connection is not closed
                    assertFalse(p.closedWithin(20), "a kept connection stays open");
                } else {
                    assertTrue(p.closedWithin(SocketTesting.T.toMillis()), "a refused connection is closed");
                }
            }
            SocketEvent refused = events.first(SocketEvent.Type.REFUSED);
            assertTrue(refused.reason().contains("maximum of 4"), refused.reason());
            goodClientRoundTrips(ep, "during");
        } finally {
            flood.forEach(RawPeer::close);
        }
        eventually("the flood's connections are released", () -> onLoop(rep, rep::acceptedConnections) == 0);
        goodClientRoundTrips(ep, "after");
    }

    @Test
    void aBusyAddressIsRefusedOnlyWhileItHoldsItsMaximumOfHandshakes() throws Exception {
        ZmtpSocket rep = echo(SocketOptions.builder().maxHandshakesPerAddress(4).build());
        SocketTesting.Events events = new SocketTesting.Events(rep);
        String ep = get(rep.bind("tcp://127.0.0.1:0"));
        List<RawPeer> peers = new ArrayList<>();
        try {
            // A worker host: many peers from one address, each past its handshake, all let in.
            // Each is handshaken before the next connects: a transport that accepts a burst of
            // connections before it reads any (io_uring) would otherwise hold them all in their
            // handshakes at once, which is the case the bound is for.
            for (int i = 0; i < 20; i++) {
                peers.add(RawPeer.handshaken(ep, "127.0.0.2", "REQ"));
                int n = i + 1;
                eventually(n + " handshaken", () -> events.count(SocketEvent.Type.HANDSHAKE_SUCCEEDED) == n);
            }
            assertEquals(20, onLoop(rep, rep::acceptedConnections));
            // Four that never greet hold the address's handshakes: the next from it is refused at once.
            List<RawPeer> stalled = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                stalled.add(RawPeer.connect(ep, "127.0.0.2"));
                int n = 21 + i;
                eventually(n + " accepted", () -> onLoop(rep, rep::acceptedConnections) == n);
            }
            peers.addAll(stalled);
            assertTrue(closedAtOnce(ep, "127.0.0.2"), "a fifth handshake from the address is refused");
            events.await(SocketEvent.Type.REFUSED);
            SocketEvent refused = events.first(SocketEvent.Type.REFUSED);
            assertNotNull(refused);
            assertTrue(refused.reason().contains("maximum of 4 connections in their handshake"), refused.reason());
            goodClientRoundTrips(ep, "another address is served");
            // Once one of the four goes, the address gets a handshake again.
            stalled.get(0).close();
            eventually("the stalled peer is released", () -> onLoop(rep, rep::acceptedConnections) == 24 - 1);
            peers.add(RawPeer.handshaken(ep, "127.0.0.2", "REQ"));
            eventually("21 handshaken from the address", () -> events.count(SocketEvent.Type.HANDSHAKE_SUCCEEDED) == 22);
            assertEquals(1, events.count(SocketEvent.Type.REFUSED));
        } finally {
            peers.forEach(RawPeer::close);
        }
        eventually("every connection is released", () -> onLoop(rep, rep::acceptedConnections) == 0);
    }

    @Test
    void atItsMaximumOfHandshakesTheEndpointClosesTheOldestStillInItsHandshake() throws Exception {
        ZmtpSocket rep = echo(SocketOptions.builder().maxHandshakes(3).build());
        SocketTesting.Events events = new SocketTesting.Events(rep);
        String ep = get(rep.bind("tcp://127.0.0.1:0"));
        List<RawPeer> peers = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                peers.add(RawPeer.handshaken(ep, "127.0.0.2", "REQ")); // past their handshakes: not counted
                int n = i + 1;
                eventually(n + " handshaken", () -> events.count(SocketEvent.Type.HANDSHAKE_SUCCEEDED) == n);
            }
            List<RawPeer> stalled = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                stalled.add(RawPeer.connect(ep, "127.0.0." + (3 + i)));
                int n = 11 + i;
                eventually(n + " accepted", () -> onLoop(rep, rep::acceptedConnections) == n);
            }
            peers.addAll(stalled);
            goodClientRoundTrips(ep, "served at the maximum of handshakes");
            assertTrue(stalled.get(0).closedWithin(5_000), "the oldest stalled connection made room");
            events.await(SocketEvent.Type.EVICTED);
            Set<Integer> kept = keptPorts(rep);
            for (RawPeer p : peers) {
                if (p != stalled.get(0)) {
                    assertTrue(kept.contains(p.localPort()), "every other connection stays: " + kept);
                }
            }
            SocketEvent evicted = events.first(SocketEvent.Type.EVICTED);
            assertNotNull(evicted);
            assertTrue(evicted.reason().contains("still in its handshake")
                    && evicted.reason().contains("maximum of 3 connections in their handshake"), evicted.reason());
            assertEquals(1, events.count(SocketEvent.Type.EVICTED));
            assertEquals(0, events.count(SocketEvent.Type.REFUSED));
        } finally {
            peers.forEach(RawPeer::close);
        }
        eventually("every connection is released", () -> onLoop(rep, rep::acceptedConnections) == 0);
    }

    @Test
    void theDefaultsLetACrowdInAndBoundOnlyItsHandshakes() {
        SocketOptions d = SocketOptions.DEFAULTS;
        assertEquals(65_536, d.maxConnections());
        assertEquals(0, d.maxConnectionsPerAddress(), "no bound on one address's handshaken peers");
        assertEquals(4096, d.maxHandshakes());
        assertEquals(1024, d.maxHandshakesPerAddress());
        assertEquals(io.netty.util.NetUtil.SOMAXCONN, d.backlog(), "the system's largest listen queue");
    }

    @Test
    void atTheEndpointsMaximumTheOldestConnectionStillInItsHandshakeMakesRoom() throws Exception {
        ZmtpSocket rep = echo(SocketOptions.builder().maxConnections(4).build());
        SocketTesting.Events events = new SocketTesting.Events(rep);
        String ep = get(rep.bind("tcp://127.0.0.1:0"));
        List<RawPeer> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                stalled.add(RawPeer.connect(ep, "127.0.0." + (2 + i))); // connected, never a greeting
                int n = i + 1;
                eventually(n + " accepted", () -> onLoop(rep, rep::acceptedConnections) == n);
            }
            // Without eviction the good client would wait for a handshake timeout (30 s) to free a slot.
            goodClientRoundTrips(ep, "served at the maximum");
            assertTrue(stalled.get(0).closedWithin(5_000), "the oldest stalled connection made room");
            Set<Integer> kept = keptPorts(rep);
            for (RawPeer p : stalled.subList(1, 4)) {
                assertTrue(kept.contains(p.localPort()), "younger stalled connections stay: " + kept);
            }
            events.await(SocketEvent.Type.EVICTED);
            SocketEvent evicted = events.first(SocketEvent.Type.EVICTED);
            assertTrue(evicted.reason().contains("still in its handshake") && evicted.reason().contains("maximum of 4"),
                    evicted.reason());
            assertEquals(0, events.count(SocketEvent.Type.REFUSED));
        } finally {
            stalled.forEach(RawPeer::close);
        }
        eventually("every connection is released", () -> onLoop(rep, rep::acceptedConnections) == 0);
    }

    @Test
    void atTheEndpointsMaximumWithEveryPeerHandshakenThePeerHeardFromLongestAgoMakesRoom() throws Exception {
        ZmtpSocket rep = echo(SocketOptions.builder().maxConnections(4).build());
        SocketTesting.Events events = new SocketTesting.Events(rep);
        String ep = get(rep.bind("tcp://127.0.0.1:0"));
        List<RawPeer> holders = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                holders.add(RawPeer.handshaken(ep, "127.0.0." + (2 + i), "REQ"));
            }
            eventually("4 handshaken", () -> events.count(SocketEvent.Type.HANDSHAKE_SUCCEEDED) == 4);
            // The first holder speaks (a request: empty delimiter, then "x"): the second is now the
            // one heard from longest ago.
            holders.get(0).send(new byte[] {0x01, 0x00, 0x00, 0x01, 'x'});
            eventually("the request was read", () -> rep.metrics().messagesIn() == 1);
            goodClientRoundTrips(ep, "served at the maximum");
            assertTrue(holders.get(1).closedWithin(5_000), "the peer heard from longest ago made room");
            assertTrue(keptPorts(rep).contains(holders.get(0).localPort()), "the peer that spoke stays");
            events.await(SocketEvent.Type.EVICTED);
            SocketEvent evicted = events.first(SocketEvent.Type.EVICTED);
            assertTrue(evicted.reason().contains("silent for") && evicted.reason().contains("maximum of 4"),
                    evicted.reason());
        } finally {
            holders.forEach(RawPeer::close);
        }
        eventually("every connection is released", () -> onLoop(rep, rep::acceptedConnections) == 0);
    }

    @Test
    void outOfDescriptorsTheOldestConnectionStillInItsHandshakeIsClosedAndAcceptingGoesOn() throws Exception {
        ZmtpSocket rep = echo(SocketOptions.DEFAULTS);
        SocketTesting.Events events = new SocketTesting.Events(rep);
        String ep = get(rep.bind("tcp://127.0.0.1:0"));
        io.netty.channel.Channel server = onLoop(rep, () -> rep.serverChannel(ep));
        try (RawPeer oldest = RawPeer.connect(ep, "127.0.0.2"); RawPeer younger = RawPeer.connect(ep, "127.0.0.3")) {
            eventually("2 accepted", () -> onLoop(rep, rep::acceptedConnections) == 2);
            // What Netty's accept loop reports when accept(2) fails with EMFILE.
            onLoop(rep, () -> {
                server.pipeline().fireExceptionCaught(new java.io.IOException("accept(..) failed: Too many open files"));
                return null;
            });
            assertTrue(oldest.closedWithin(5_000), "the oldest stalled connection freed a descriptor");
            assertTrue(keptPorts(rep).contains(younger.localPort()), "one descriptor is enough: the younger one stays");
            SocketEvent evicted = events.first(SocketEvent.Type.EVICTED);
            assertNotNull(evicted);
            assertTrue(evicted.reason().contains("out of file descriptors"), evicted.reason());
            eventually("accepting goes on at once", () -> onLoop(rep, () -> server.config().isAutoRead()));
            goodClientRoundTrips(ep, "after the failure");
        }
    }

    @Test
    void aHandshakenPeerThatNeverAnswersIsDroppedByTheBoundSidesHeartbeat() throws Exception {
        ZmtpSocket rep = echo(SocketOptions.builder()
                .heartbeat(HeartbeatPolicy.of(Duration.ofMillis(100), Duration.ZERO, Duration.ofMillis(200))).build());
        SocketTesting.Events events = new SocketTesting.Events(rep);
        String ep = get(rep.bind("tcp://127.0.0.1:0"));
        BlockingSocket req = ctx.blocking(SocketType.REQ, SocketOptions.builder().linger(Duration.ZERO)
                .heartbeat(HeartbeatPolicy.of(Duration.ofMillis(100), Duration.ZERO, Duration.ofMillis(200))).build());
        try (RawPeer idle = RawPeer.handshaken(ep, "127.0.0.2", "REQ")) {
            req.connect(ep);
            req.send("first");
            assertEquals(List.of("first"), req.receiveStrings(SocketTesting.T));
            assertTrue(idle.closedWithin(5_000), "the silent peer is dropped after PING + timeout");
            events.await(SocketEvent.Type.DISCONNECTED);
            SocketEvent d = events.first(SocketEvent.Type.DISCONNECTED);
            assertTrue(d.reason().contains("PING"), d.reason());
            eventually("only the good client is left", () -> onLoop(rep, rep::acceptedConnections) == 1);
            // The good client answered every PING meanwhile (our codec answers PINGs), so it stayed.
            req.send("second");
            assertEquals(List.of("second"), req.receiveStrings(SocketTesting.T));
            assertEquals(1, events.count(SocketEvent.Type.DISCONNECTED));
        } finally {
            req.close(Duration.ZERO);
        }
    }

    @Test
    void failingAcceptsPauseAcceptingForAWhileAndThenItResumes() {
        ZmtpSocket rep = echo(SocketOptions.DEFAULTS);
        String ep = get(rep.bind("tcp://127.0.0.1:0"));
        io.netty.channel.Channel server = onLoop(rep, () -> rep.serverChannel(ep));
        // What Netty's accept loop does when accept(2) fails with EMFILE, many times over.
        // checked in the same loop task: the pause's own timer (10 ms) cannot run in between
        boolean paused = onLoop(rep, () -> {
            for (int i = 0; i < 100; i++) {
                server.pipeline().fireExceptionCaught(new java.io.IOException("Too many open files"));
            }
            return !server.config().isAutoRead();
        });
        assertTrue(paused, "accepting is paused");
        eventually("accepting resumes after the pause", () -> onLoop(rep, () -> server.config().isAutoRead()));
        assertTrue(server.isOpen(), "the endpoint is still bound");
        goodClientRoundTrips(ep, "after the failures");
    }

    @Test
    void boundEndpointsHeartbeatByDefaultAndConnectionsTheSocketMakesDoNot() {
        SocketOptions d = SocketOptions.DEFAULTS;
        assertTrue(d.zmtpOptions(SocketType.REP, true, new InboundBudget(1 << 20)).heartbeat().enabled());
        assertEquals(Duration.ofSeconds(30), d.zmtpOptions(SocketType.REP, true, new InboundBudget(1 << 20)).heartbeat().interval());
        assertFalse(d.zmtpOptions(SocketType.REQ, false, new InboundBudget(1 << 20)).heartbeat().enabled());
        SocketOptions off = SocketOptions.builder().heartbeat(HeartbeatPolicy.OFF).build();
        assertFalse(off.zmtpOptions(SocketType.REP, true, new InboundBudget(1 << 20)).heartbeat().enabled(), "an explicit setting applies to both");
        assertNotNull(d.tcpKeepAlive());
    }
}
