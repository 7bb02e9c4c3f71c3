package io.zmtp.socket;

import io.zmtp.testing.RawPeer;
import io.zmtp.wire.ReadGate;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static io.zmtp.socket.SocketTesting.T;
import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static io.zmtp.socket.SocketTesting.onLoop;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** STREAM: raw TCP peers with a routing id per connection, against plain java.net sockets. */
class StreamSocketTest extends ContextTest {

    /** One received STREAM message: the routing id and the data (empty: a connect or disconnect). */
    record Received(byte[] id, byte[] data) {
        String text() {
            return new String(data, StandardCharsets.UTF_8);
        }
    }

    /**
     * Collects a reactor STREAM socket's messages (released at once). The handler runs on the
     * event loop, where a failed assertion would only be logged: it records every frame as it
     * came, and {@link #next} checks the shape on the test thread.
     */
    static final class StreamInbox {
        final BlockingQueue<List<byte[]>> queue = new LinkedBlockingQueue<>();

        StreamInbox(ZmtpSocket s) {
            s.onMessage(m -> {
                try {
                    List<byte[]> frames = new ArrayList<>(m.size());
                    for (int i = 0; i < m.size(); i++) {
                        frames.add(m.frameBytes(i));
                    }
                    queue.add(frames);
                } finally {
                    m.release();
                }
            });
        }

        Received next() throws InterruptedException {
            List<byte[]> frames = queue.poll(T.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(frames, "a STREAM message within " + T);
            assertEquals(2, frames.size(), "a STREAM message has two frames");
            return new Received(frames.get(0), frames.get(1));
        }

        /** The next message that is a notification (empty data). */
        Received nextNotification() throws InterruptedException {
            Received r = next();
            assertEquals(0, r.data().length, "a notification, got data " + r.text());
            return r;
        }

        /** Data of {@code id} until {@code n} bytes came (reads may cut the stream anywhere). */
        String data(byte[] id, int n) throws InterruptedException {
            StringBuilder sb = new StringBuilder();
            while (sb.length() < n) {
                Received r = next();
                assertArrayEquals(id, r.id(), "data from the expected connection");
                assertTrue(r.data().length > 0, "data, not a notification");
                sb.append(r.text());
            }
            return sb.toString();
        }
    }

    static ZmtpMessage to(byte[] id, String data) {
        return ZmtpMessage.of(id, data.getBytes(StandardCharsets.UTF_8));
    }

    static Socket client(String endpoint) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", RawPeer.port(endpoint)), (int) T.toMillis());
        s.setSoTimeout((int) T.toMillis());
        return s;
    }

    static String readExactly(Socket s, int n) throws IOException {
        InputStream in = s.getInputStream();
        byte[] b = in.readNBytes(n);
        assertEquals(n, b.length, "bytes before the end of the stream");
        return new String(b, StandardCharsets.UTF_8);
    }

    static void write(Socket s, String text) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    @Test
    void plainTcpClientsEachHaveARoutingIdAndAreAnsweredOnTheirOwnConnection() throws Exception {
        ZmtpSocket stream = ctx.socket(SocketType.STREAM);
        assertInstanceOf(StreamSocket.class, stream);
        StreamInbox inbox = new StreamInbox(stream);
        String ep = get(stream.bind("tcp://127.0.0.1:0"));
        List<Socket> clients = new ArrayList<>();
        List<byte[]> ids = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                clients.add(client(ep));
                ids.add(inbox.nextNotification().id());   // connect notification, in accept order
            }
            Set<String> distinct = new HashSet<>();
            for (byte[] id : ids) {
                assertEquals(5, id.length, "a generated id of five bytes");
                distinct.add(Arrays.toString(id));
            }
            assertEquals(3, distinct.size(), "each connection has its own id");
            for (int i = 0; i < 3; i++) {
                String hello = "hello " + i;
                write(clients.get(i), hello);
                assertEquals(hello, inbox.data(ids.get(i), hello.length()));
                get(stream.send(to(ids.get(i), "answer " + i)));
            }
            for (int i = 0; i < 3; i++) {
                assertEquals("answer " + i, readExactly(clients.get(i), ("answer " + i).length()));
            }

            // A client that hangs up: its disconnect notification, the others still served.
            clients.get(0).close();
            Received gone = inbox.nextNotification();
            assertArrayEquals(ids.get(0), gone.id());
            eventually("the closed connection has no peer left", () -> !onLoop(stream,
                    () -> ((StreamSocket) stream).hasPeer(ids.get(0))));
            assertThrows(UnroutableMessageException.class,
                    () -> SocketTesting.get(stream.send(to(ids.get(0), "too late"))));

            // [id][empty] closes that connection, after what was sent before it.
            stream.send(to(ids.get(2), "bye"));
            get(stream.send(ZmtpMessage.of(ids.get(2), new byte[0])));
            assertEquals("bye", readExactly(clients.get(2), 3));
            assertEquals(-1, clients.get(2).getInputStream().read(), "the connection was closed");
            assertArrayEquals(ids.get(2), inbox.nextNotification().id());

            write(clients.get(1), "still here");
            assertEquals("still here", inbox.data(ids.get(1), 10));
            get(stream.send(to(ids.get(1), "yes")));
            assertEquals("yes", readExactly(clients.get(1), 3));
        } finally {
            for (Socket c : clients) {
                c.close();
            }
        }
    }

    @Test
    void aConnectedStreamLearnsItsConnectionIdFromTheConnectNotification() throws Exception {
        ZmtpSocket stream = ctx.socket(SocketType.STREAM);
        StreamInbox inbox = new StreamInbox(stream);
        try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            server.setSoTimeout((int) T.toMillis());
            get(stream.connect("tcp://127.0.0.1:" + server.getLocalPort()));
            try (Socket peer = server.accept()) {
                peer.setSoTimeout((int) T.toMillis());
                byte[] id = inbox.nextNotification().id();
                get(stream.send(to(id, "GET / HTTP/1.0\r\n\r\n")));
                assertEquals("GET / HTTP/1.0\r\n\r\n", readExactly(peer, 18));
                write(peer, "HTTP/1.0 200 OK\r\n\r\n");
                assertEquals("HTTP/1.0 200 OK\r\n\r\n", inbox.data(id, 19));
            }
            Received closed = inbox.nextNotification();
            assertEquals(5, closed.id().length);
        }
    }

    /**
     * The gateway STREAM exists for: a plain HTTP client (the JDK's HttpClient) gets its answer
     * from a STREAM socket that reads the request head, answers, and closes with [id][empty].
     */
    @Test
    void anHttpGatewayAnswersAPlainHttpClient() throws Exception {
        ZmtpSocket stream = ctx.socket(SocketType.STREAM);
        java.util.Map<String, StringBuilder> requests = new java.util.HashMap<>();
        List<String> seenRequests = new java.util.concurrent.CopyOnWriteArrayList<>();
        stream.onMessage(m -> {
            try {
                byte[] id = m.frameBytes(0);
                String key = Arrays.toString(id);
                if (!m.frame(1).isReadable()) {
                    requests.remove(key);   // connect or disconnect
                    return;
                }
                StringBuilder head = requests.computeIfAbsent(key, k -> new StringBuilder());
                head.append(m.frameString(1));
                int end = head.indexOf("\r\n\r\n");
                if (end < 0) {
                    return;
                }
                String requestLine = head.substring(0, head.indexOf("\r\n"));
                seenRequests.add(requestLine);
                String body = "you asked for " + requestLine.split(" ")[1];
                String response = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                        + body.length() + "\r\nConnection: close\r\n\r\n" + body;
                stream.trySend(to(id, response));
                stream.trySend(ZmtpMessage.of(id, new byte[0]));
            } finally {
                m.release();
            }
        });
        String ep = get(stream.bind("tcp://127.0.0.1:0"));
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
                .version(java.net.http.HttpClient.Version.HTTP_1_1).connectTimeout(T).build();
        for (String path : List.of("/a", "/b/c")) {
            java.net.http.HttpResponse<String> r = http.send(java.net.http.HttpRequest
                    .newBuilder(java.net.URI.create("http://127.0.0.1:" + RawPeer.port(ep) + path)).timeout(T).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertEquals("you asked for " + path, r.body());
        }
        assertEquals(List.of("GET /a HTTP/1.1", "GET /b/c HTTP/1.1"), seenRequests);
    }

    @Test
    void withoutNotifyOnlyDataArrives() throws Exception {
        ZmtpSocket stream = ctx.socket(SocketType.STREAM, SocketOptions.builder().streamNotify(false).build());
        StreamInbox inbox = new StreamInbox(stream);
        String ep = get(stream.bind("tcp://127.0.0.1:0"));
        byte[] id;
        try (Socket c = client(ep)) {
            write(c, "x");
            Received r = inbox.next();
            assertEquals("x", r.text(), "the first message is data, not a connect notification");
            id = r.id();
            get(stream.send(to(id, "y")));
            assertEquals("y", readExactly(c, 1));
        }
        // The socket has let the connection go: a disconnect notification would have been
        // delivered (on the loop, in the same step) by now.
        eventually("the closed connection has no peer left", () -> !onLoop(stream,
                () -> ((StreamSocket) stream).hasPeer(id)));
        assertNull(inbox.queue.poll(), "no disconnect notification");
    }

    @Test
    void aReadHoldsAtMostMaxMessageSizeBytes() throws Exception {
        ZmtpSocket stream = ctx.socket(SocketType.STREAM, SocketOptions.builder().maxMessageSize(100).build());
        StreamInbox inbox = new StreamInbox(stream);
        String ep = get(stream.bind("tcp://127.0.0.1:0"));
        try (Socket c = client(ep)) {
            byte[] id = inbox.nextNotification().id();
            byte[] big = new byte[10_000];
            Arrays.fill(big, (byte) 'a');
            c.getOutputStream().write(big);
            int got = 0;
            while (got < big.length) {
                Received r = inbox.next();
                assertArrayEquals(id, r.id());
                assertTrue(r.data().length <= 100, "a read of " + r.data().length + " bytes");
                got += r.data().length;
            }
            assertEquals(big.length, got);
        }
    }

    @Test
    void inprocIsRefused() {
        ZmtpSocket stream = ctx.socket(SocketType.STREAM);
        Exception e = assertThrows(RuntimeException.class, () -> get(stream.bind("inproc://raw")));
        assertTrue(String.valueOf(e.getMessage()).contains("raw TCP") || String.valueOf(e.getCause()).contains("raw TCP"),
                String.valueOf(e));
    }

    @Test
    void atTheConnectionLimitTheRawPeerHeardFromLongestAgoMakesRoom() throws Exception {
        ZmtpSocket stream = ctx.socket(SocketType.STREAM, SocketOptions.builder().maxConnections(2).build());
        StreamInbox inbox = new StreamInbox(stream);
        SocketTesting.Events events = new SocketTesting.Events(stream);
        String ep = get(stream.bind("tcp://127.0.0.1:0"));
        try (Socket a = client(ep); Socket b = client(ep)) {
            byte[] ida = inbox.nextNotification().id();
            byte[] idb = inbox.nextNotification().id();
            write(a, "spoke");   // a is heard from: b is now the one heard from longest ago
            assertEquals("spoke", inbox.data(ida, 5));
            byte[] idc;
            try (Socket c = client(ep)) {
                idc = inbox.nextNotification().id();
                events.await(SocketEvent.Type.EVICTED);
                int r;
                try {
                    r = b.getInputStream().read();
                } catch (IOException reset) {
                    r = -1;
                }
                assertEquals(-1, r, "the silent peer made room");
                assertArrayEquals(idb, inbox.nextNotification().id(), "the application is told it left");
                write(c, "third");
                assertEquals("third", inbox.data(idc, 5));
            }
            // c's leaving is told before a speaks again, so it cannot come between
            assertArrayEquals(idc, inbox.nextNotification().id(), "the application is told c left");
            write(a, "served");
            assertEquals("served", inbox.data(ida, 6));
        }
    }

    /**
     * A peer that floods faster than the application consumes is paused at the receive high-water
     * mark (its bytes wait in TCP), and a good peer is still answered once the application reads.
     */
    @Test
    void aFloodingPeerIsPausedAtTheHighWaterMarkWhileAGoodPeerIsServed() throws Exception {
        BlockingSocket stream = ctx.blocking(SocketType.STREAM, SocketOptions.builder().receiveHwm(8).build());
        String ep = stream.bind("tcp://127.0.0.1:0");
        AtomicLong flooded = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        Socket flooder = client(ep);
        Thread flood = new Thread(() -> {
            byte[] chunk = new byte[16 * 1024];
            try {
                OutputStream out = flooder.getOutputStream();
                while (!stop.get()) {
                    out.write(chunk);
                    flooded.addAndGet(chunk.length);
                }
            } catch (IOException closed) {
                // the test closed the socket
            }
        }, "stream-flooder");
        flood.setDaemon(true);
        flood.start();
        try (Socket good = client(ep)) {
            // Nothing consumes: reading from the connections pauses at the mark.
            ZmtpSocket s = stream.socket();
            eventually("reading paused at the receive high-water mark", () -> onLoop(s, () -> {
                for (Pipe p : s.pipes()) {
                    if (!ReadGate.isPaused(((ChannelPipe) p).channel(), ReadGate.SOCKET)) {
                        return false;
                    }
                }
                return s.pipes().size() == 2;
            }));
            long whilePaused = flooded.get();
            write(good, "ping");

            // The application reads again: the good peer's request is answered within the
            // deadline while the flood goes on.
            ByteArrayOutputStream fromGood = new ByteArrayOutputStream();
            byte[] goodId = null;
            long deadline = System.nanoTime() + T.toNanos();
            while (fromGood.size() < 4) {
                assertTrue(System.nanoTime() < deadline, "the good peer's request within " + T);
                ZmtpMessage m = stream.receive(T);
                assertNotNull(m);
                try {
                    if (m.frame(1).isReadable() && m.frame(1).getByte(m.frame(1).readerIndex()) == 'p') {
                        goodId = m.frameBytes(0);
                        fromGood.write(m.frameBytes(1));
                    } else if (goodId != null && Arrays.equals(goodId, m.frameBytes(0))) {
                        fromGood.write(m.frameBytes(1));
                    }
                } finally {
                    m.release();
                }
            }
            assertEquals("ping", fromGood.toString(StandardCharsets.UTF_8));
            stream.send(to(goodId, "pong"));
            assertEquals("pong", readExactly(good, 4));
            // The flood was held back while nothing read (its bytes waited in TCP), not refused:
            // its connection is still one of the socket's two peers, and the flooder still writes.
            assertEquals(2, (int) onLoop(s, () -> s.pipes().size()), "the flooder's connection is kept, not closed");
            assertTrue(flood.isAlive(), "the flooder still writes");
            assertTrue(whilePaused > 0, "the flooder wrote before the pause");
        } finally {
            stop.set(true);
            flooder.close();
            flood.join(T.toMillis());
        }
    }
}
