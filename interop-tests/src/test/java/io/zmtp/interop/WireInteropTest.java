package io.zmtp.interop;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.zmtp.testing.PeerBytes;
import io.zmtp.wire.HandshakeCompleted;
import io.zmtp.wire.HeartbeatPolicy;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpOptions;
import io.zmtp.wire.ZmtpVersion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The wire codec alone ({@link io.zmtp.wire.ZmtpCodec} in a plain Netty pipeline) against real
 * libzmq over one TCP connection, in both directions: we bind and libzmq connects, libzmq binds
 * and we connect.
 */
class WireInteropTest {
    static LibzmqPeer zmq;

    @BeforeAll
    static void startPeer() {
        zmq = LibzmqPeer.start();
    }

    @AfterAll
    static void stopPeer() {
        zmq.close();
    }

    /**
     * The messages every pair exchanges: one frame, several, empty frames, 4 KiB and 1 MiB (with
     * CURVE, frames from 256 bytes go through libsodium where it loads, as here).
     */
    static List<byte[][]> messages() {
        byte[] mib = new byte[1024 * 1024];
        new Random(7).nextBytes(mib);
        List<byte[][]> l = new ArrayList<>();
        l.add(new byte[][] {bytes("hello")});
        l.add(new byte[][] {bytes("a"), bytes("bb"), bytes("ccc")});
        l.add(new byte[][] {new byte[0]});
        l.add(new byte[][] {bytes("x"), new byte[0], bytes("y"), new byte[0]});
        l.add(new byte[][] {Arrays.copyOf(mib, 4096), bytes("after 4 KiB")});
        l.add(new byte[][] {bytes("big"), mib});
        return l;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static ZmtpMessage message(byte[]... frames) {
        ZmtpMessage m = ZmtpMessage.newMessage();
        for (byte[] f : frames) {
            ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(f.length);
            b.writeBytes(f);
            m.add(b);
        }
        return m;
    }

    static byte[][] frames(ZmtpMessage m) {
        byte[][] f = new byte[m.size()][];
        for (int i = 0; i < f.length; i++) {
            f[i] = m.frameBytes(i);
        }
        return f;
    }

    static byte[][] concat(byte[] first, byte[][] rest) {
        byte[][] all = new byte[rest.length + 1][];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    static void assertFrames(byte[][] expected, List<byte[]> actual) {
        assertNotNull(actual, "a message arrived");
        assertEquals(expected.length, actual.size(), "frame count");
        for (int i = 0; i < expected.length; i++) {
            assertArrayEquals(expected[i], actual.get(i), "frame " + i);
        }
    }

    static void assertFrames(byte[][] expected, ZmtpMessage actual) {
        assertNotNull(actual, "a message arrived");
        try {
            assertFrames(expected, Arrays.asList(frames(actual)));
        } finally {
            actual.release();
        }
    }

    @Test
    void ourDealerToLibzmqRouterThatBinds() throws Exception {
        zmq.socket("router", "ROUTER");
        String ep = zmq.bind("router", "tcp://127.0.0.1:*");
        int port = Integer.parseInt(ep.substring(ep.lastIndexOf(':') + 1));
        ZmtpOptions opts = ZmtpOptions.builder(SocketType.DEALER).identity("java-dealer").build();
        try (RawConnection us = RawConnection.connect(opts, "127.0.0.1", port)) {
            HandshakeCompleted hc = us.awaitHandshake();
            assertEquals(SocketType.ROUTER, hc.peerSocketType());
            assertEquals(ZmtpVersion.V3_1, hc.version(), "libzmq 4.3 speaks ZMTP 3.1");
            for (byte[][] msg : messages()) {
                us.send(message(msg));
                List<byte[]> got = zmq.recv("router", 10_000);
                assertFrames(concat(bytes("java-dealer"), msg), got); // libzmq sees our identity
                zmq.send("router", concat(bytes("java-dealer"), msg));
                assertFrames(msg, us.receive(10_000));
            }
        } finally {
            zmq.close("router");
        }
    }

    @Test
    void libzmqDealerToOurRouterThatBinds() throws Exception {
        try (RawConnection us = RawConnection.bind(ZmtpOptions.builder(SocketType.ROUTER).build())) {
            zmq.socket("dealer", "DEALER").opt("dealer", "IDENTITY", bytes("py-dealer"));
            zmq.connect("dealer", us.endpoint());
            HandshakeCompleted hc = us.awaitHandshake();
            assertEquals("py-dealer", new String(hc.peerIdentity(), StandardCharsets.UTF_8),
                    "we see libzmq's identity");
            assertEquals(SocketType.DEALER, hc.peerSocketType());
            for (byte[][] msg : messages()) {
                zmq.send("dealer", msg);
                assertFrames(msg, us.receive(10_000));
                us.send(message(msg));
                assertFrames(msg, zmq.recv("dealer", 10_000));
            }
        } finally {
            zmq.close("dealer");
        }
    }

    @Test
    void ourReqToLibzmqRepThatBinds() throws Exception {
        zmq.socket("rep", "REP");
        String ep = zmq.bind("rep", "tcp://127.0.0.1:*");
        int port = Integer.parseInt(ep.substring(ep.lastIndexOf(':') + 1));
        try (RawConnection us = RawConnection.connect(ZmtpOptions.builder(SocketType.REQ).build(), "127.0.0.1", port)) {
            us.awaitHandshake();
            for (byte[][] msg : messages()) {
                us.send(message(concat(new byte[0], msg))); // REQ puts an empty delimiter first
                List<byte[]> req = zmq.recv("rep", 10_000);
                assertFrames(msg, req); // REP strips it
                zmq.send("rep", req.toArray(new byte[0][]));
                assertFrames(concat(new byte[0], msg), us.receive(10_000));
            }
        } finally {
            zmq.close("rep");
        }
    }

    @Test
    void libzmqReqToOurRepThatBinds() throws Exception {
        try (RawConnection us = RawConnection.bind(ZmtpOptions.builder(SocketType.REP).build())) {
            zmq.socket("req", "REQ").connect("req", us.endpoint());
            assertEquals(SocketType.REQ, us.awaitHandshake().peerSocketType());
            for (byte[][] msg : messages()) {
                zmq.send("req", msg);
                ZmtpMessage req = us.receive(10_000);
                assertNotNull(req);
                byte[][] got = frames(req);
                req.release();
                assertArrayEquals(concat(new byte[0], msg), got, "libzmq REQ sends an empty delimiter");
                us.send(message(got));
                assertFrames(msg, zmq.recv("req", 10_000));
            }
        } finally {
            zmq.close("req");
        }
    }

    @Test
    void libzmqHeartbeatsKeepAConnectionToUsAlive() throws Exception {
        try (RawConnection us = RawConnection.bind(ZmtpOptions.builder(SocketType.ROUTER).build())) {
            zmq.socket("hb", "DEALER").opt("hb", "HEARTBEAT_IVL", 50).opt("hb", "HEARTBEAT_TIMEOUT", 500)
                    .monitor("hb").connect("hb", us.endpoint());
            us.awaitHandshake();
            // Twenty heartbeat intervals with no other traffic: libzmq drops us unless we PONG.
            assertNull(us.receive(1000));
            assertFalse(zmq.events("hb").contains("DISCONNECTED"), "libzmq kept the connection: " + zmq.events("hb"));
            assertTrue(us.isOpen());
            zmq.sendStrings("hb", "still here");
            assertFrames(new byte[][] {bytes("still here")}, us.receive(10_000));
        } finally {
            zmq.close("hb");
        }
    }

    @Test
    void libzmqThatBindsWithHeartbeatsKeepsOurConnectionAlive() throws Exception {
        zmq.socket("hbr", "ROUTER").opt("hbr", "HEARTBEAT_IVL", 50).opt("hbr", "HEARTBEAT_TIMEOUT", 500).monitor("hbr");
        String ep = zmq.bind("hbr", "tcp://127.0.0.1:*");
        int port = Integer.parseInt(ep.substring(ep.lastIndexOf(':') + 1));
        ZmtpOptions opts = ZmtpOptions.builder(SocketType.DEALER).identity("hb-dealer").build();
        try (RawConnection us = RawConnection.connect(opts, "127.0.0.1", port)) {
            us.awaitHandshake();
            assertNull(us.receive(1000));
            assertFalse(zmq.events("hbr").contains("DISCONNECTED"), "events: " + zmq.events("hbr"));
            us.send(message(bytes("alive")));
            assertFrames(new byte[][] {bytes("hb-dealer"), bytes("alive")}, zmq.recv("hbr", 10_000));
        } finally {
            zmq.close("hbr");
        }
    }

    /** The control for the two tests above: a peer that never answers PING is dropped by libzmq. */
    @Test
    void libzmqDropsAPeerThatDoesNotAnswerItsPings() throws Exception {
        zmq.socket("strict", "ROUTER").opt("strict", "HEARTBEAT_IVL", 50).opt("strict", "HEARTBEAT_TIMEOUT", 200)
                .monitor("strict");
        String ep = zmq.bind("strict", "tcp://127.0.0.1:*");
        int port = Integer.parseInt(ep.substring(ep.lastIndexOf(':') + 1));
        try (Socket mute = new Socket("127.0.0.1", port)) {
            OutputStream out = mute.getOutputStream();
            out.write(PeerBytes.create().greeting31().ready("Socket-Type", "DEALER", "Identity", "").toArray());
            out.flush();
            long deadline = System.currentTimeMillis() + 10_000;
            while (!zmq.events("strict").contains("DISCONNECTED") && System.currentTimeMillis() < deadline) {
                assertNull(zmq.recv("strict", 100));
            }
            assertTrue(zmq.events("strict").contains("DISCONNECTED"), "events: " + zmq.events("strict"));
        } finally {
            zmq.close("strict");
        }
    }

    @Test
    void libzmqAnswersOurPings() throws Exception {
        zmq.socket("quiet", "ROUTER");
        String ep = zmq.bind("quiet", "tcp://127.0.0.1:*");
        int port = Integer.parseInt(ep.substring(ep.lastIndexOf(':') + 1));
        ZmtpOptions opts = ZmtpOptions.builder(SocketType.DEALER)
                .heartbeat(HeartbeatPolicy.of(Duration.ofMillis(50), Duration.ofMillis(1000), Duration.ofMillis(500)))
                .build();
        try (RawConnection us = RawConnection.connect(opts, "127.0.0.1", port)) {
            us.awaitHandshake();
            // Without PONGs our own heartbeat timeout would close the connection within 550 ms.
            assertNull(us.receive(1000));
            assertFalse(us.failure.isDone(), "no heartbeat failure: " + us.failure.getNow(null));
            assertTrue(us.isOpen());
        } finally {
            zmq.close("quiet");
        }
    }

    @Test
    void libzmqThatConnectsAnswersOurPings() throws Exception {
        ZmtpOptions opts = ZmtpOptions.builder(SocketType.ROUTER)
                .heartbeat(HeartbeatPolicy.of(Duration.ofMillis(50), Duration.ZERO, Duration.ofMillis(500))).build();
        try (RawConnection us = RawConnection.bind(opts)) {
            zmq.socket("quiet2", "DEALER").connect("quiet2", us.endpoint());
            us.awaitHandshake();
            assertNull(us.receive(1000));
            assertFalse(us.failure.isDone(), "no heartbeat failure: " + us.failure.getNow(null));
            assertTrue(us.isOpen());
        } finally {
            zmq.close("quiet2");
        }
    }

    /** The control: our codec does drop a peer that never answers, so the tests above can fail. */
    @Test
    void weDropAPeerThatDoesNotAnswerOurPings() throws Exception {
        ZmtpOptions opts = ZmtpOptions.builder(SocketType.ROUTER)
                .heartbeat(HeartbeatPolicy.of(Duration.ofMillis(50), Duration.ZERO, Duration.ofMillis(200))).build();
        try (RawConnection us = RawConnection.bind(opts); Socket mute = new Socket("127.0.0.1", us.port())) {
            mute.getOutputStream().write(PeerBytes.create().greeting31().ready("Socket-Type", "DEALER").toArray());
            mute.getOutputStream().flush();
            us.awaitHandshake();
            assertEquals(io.zmtp.wire.ConnectionFailed.Kind.HEARTBEAT_TIMEOUT,
                    us.failure.get(10, java.util.concurrent.TimeUnit.SECONDS).kind());
        }
    }
}
