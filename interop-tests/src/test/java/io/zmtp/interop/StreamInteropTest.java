package io.zmtp.interop;

import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our STREAM socket against libzmq's ZMQ_STREAM, both ways round: raw bytes on the wire, no
 * ZMTP, the connect notification on both sides, data in both directions, and [id][empty] closing
 * the connection (seen by the other side as its disconnect notification).
 */
class StreamInteropTest extends LibzmqTestBase {
    static final Duration T = Duration.ofSeconds(10);

    private BlockingSocket ours() {
        return ctx.blocking(SocketType.STREAM, SocketOptions.builder().linger(Duration.ZERO)
                .reconnectInterval(Duration.ofMillis(20)).build());
    }

    /** Our next message: [id][empty], a notification. */
    private static byte[] notification(BlockingSocket s) {
        ZmtpMessage m = s.receive(T);
        assertNotNull(m, "a notification within " + T);
        try {
            assertEquals(2, m.size());
            assertEquals(0, m.frame(1).readableBytes(), "a notification, not data");
            return m.frameBytes(0);
        } finally {
            m.release();
        }
    }

    /** Our messages from {@code id} until {@code n} bytes came (TCP may cut them anywhere). */
    private static String data(BlockingSocket s, byte[] id, int n) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (b.size() < n) {
            ZmtpMessage m = s.receive(T);
            assertNotNull(m, "data within " + T);
            try {
                assertArrayEquals(id, m.frameBytes(0));
                assertTrue(m.frame(1).isReadable(), "data, not a notification");
                b.writeBytes(m.frameBytes(1));
            } finally {
                m.release();
            }
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    /** libzmq's messages until {@code n} bytes of data came; returns [id, data]. */
    private static byte[][] libzmqData(String sock, int n) {
        byte[] id = null;
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (b.size() < n) {
            List<byte[]> m = zmq.recv(sock, T.toMillis());
            assertNotNull(m, "libzmq received data within " + T);
            assertEquals(2, m.size());
            assertTrue(m.get(1).length > 0, "data, not a notification");
            if (id == null) {
                id = m.get(0);
            } else {
                assertArrayEquals(id, m.get(0));
            }
            b.writeBytes(m.get(1));
        }
        return new byte[][] {id, b.toByteArray()};
    }

    private static byte[] libzmqNotification(String sock) {
        List<byte[]> m = zmq.recv(sock, T.toMillis());
        assertNotNull(m, "libzmq received a notification within " + T);
        assertEquals(2, m.size());
        assertEquals(0, m.get(1).length, "a notification, not data");
        return m.get(0);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void libzmqStreamConnectsToOurs() {
        BlockingSocket ours = ours();
        String ep = ours.bind("tcp://127.0.0.1:0");
        zmq.socket("ls", "STREAM").opt("ls", "LINGER", 0);
        try {
            zmq.connect("ls", ep);
            byte[] theirIdForUs = libzmqNotification("ls");
            byte[] ourIdForThem = notification(ours);

            zmq.send("ls", theirIdForUs, utf8("hello from libzmq"));
            assertEquals("hello from libzmq", data(ours, ourIdForThem, 17));

            ours.send(ZmtpMessage.of(ourIdForThem, utf8("hello from netty")));
            byte[][] got = libzmqData("ls", 16);
            assertArrayEquals(theirIdForUs, got[0]);
            assertEquals("hello from netty", new String(got[1], StandardCharsets.UTF_8));

            // We close the connection: libzmq sees its disconnect notification, we ours.
            ours.send(ZmtpMessage.of(ourIdForThem, new byte[0]));
            assertArrayEquals(theirIdForUs, libzmqNotification("ls"));
            assertArrayEquals(ourIdForThem, notification(ours));
        } finally {
            zmq.close("ls");
        }
    }

    @Test
    void oursConnectsToALibzmqStream() {
        String ep = zmq.socket("lb", "STREAM").opt("lb", "LINGER", 0).bind("lb", "tcp://127.0.0.1:*");
        BlockingSocket ours = ours();
        try {
            ours.connect(ep);
            byte[] id = notification(ours);   // how the id of a connection we made becomes known
            byte[] theirId = libzmqNotification("lb");

            ours.send(ZmtpMessage.of(id, utf8("GET / HTTP/1.0\r\n\r\n")));
            byte[][] got = libzmqData("lb", 18);
            assertArrayEquals(theirId, got[0]);
            assertEquals("GET / HTTP/1.0\r\n\r\n", new String(got[1], StandardCharsets.UTF_8));

            zmq.send("lb", theirId, utf8("HTTP/1.0 200 OK\r\n\r\n"));
            assertEquals("HTTP/1.0 200 OK\r\n\r\n", data(ours, id, 19));

            // libzmq closes with [id][empty]: our disconnect notification for that id.
            // (libzmq closes once its socket next processes commands: the recv below; it tells
            // its own application nothing about a close it asked for.)
            zmq.send("lb", theirId, new byte[0]);
            zmq.recv("lb", 200);
            byte[] closed = notification(ours);
            assertTrue(Arrays.equals(id, closed), "the disconnect names the connection");
            // A connected STREAM reconnects, as libzmq's does: a new connection, a new id.
            byte[] again = notification(ours);
            assertTrue(!Arrays.equals(id, again), "the new connection has an id of its own");
        } finally {
            zmq.close("lb");
        }
    }
}
