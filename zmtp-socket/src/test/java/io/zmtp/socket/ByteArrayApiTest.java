package io.zmtp.socket;

import io.zmtp.wire.Frames;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.zmtp.socket.SocketTesting.T;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The garbage-collected way in: byte-array frames in JeroMQ's shape (sendMore/send,
 * recv/hasReceiveMore, whole {@link Frames}), copied once, nothing to release. LeakCheck fails
 * any test here that leaves a pooled buffer behind.
 */
class ByteArrayApiTest {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aMultipartMessageGoesFrameByFrameAndComesBackFrameByFrame() {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            BlockingSocket pull = ctx.blocking(SocketType.PULL);
            String ep = pull.bind("tcp://127.0.0.1:0");
            BlockingSocket push = ctx.blocking(SocketType.PUSH);
            push.connect(ep);

            byte[] first = utf8("first");
            push.sendMore(first).sendMore(new byte[0]).send("last");
            first[0] = 'X';   // copied at sendMore: changing it afterwards changes nothing sent
            push.send(new byte[] {1, 2, 3});

            assertArrayEquals(utf8("first"), pull.recv(T));
            assertTrue(pull.hasReceiveMore());
            assertArrayEquals(new byte[0], pull.recv(T));
            assertTrue(pull.hasReceiveMore());
            assertEquals("last", pull.recvStr(T));
            assertFalse(pull.hasReceiveMore());
            assertArrayEquals(new byte[] {1, 2, 3}, pull.recv(T));
            assertFalse(pull.hasReceiveMore());
            assertNull(pull.recv(Duration.ofMillis(50)), "no message: null after the timeout");
        }
    }

    @Test
    void wholeFramesMessagesTravelBetweenTheBlockingAndTheReactorApi() throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            // the reactor side, in byte arrays too: MessageHandler.ofFrames copies and releases
            ZmtpSocket rep = ctx.socket(SocketType.REP);
            BlockingQueue<Frames> seen = new ArrayBlockingQueue<>(4);
            rep.onMessage(MessageHandler.ofFrames(request -> {
                seen.add(request);
                rep.send(request.add("echoed").toMessage());
            }));
            String ep = rep.bind("tcp://127.0.0.1:0").syncUninterruptibly().getNow();
            BlockingSocket req = ctx.blocking(SocketType.REQ);
            req.connect(ep);

            req.send(Frames.ofStrings("a", "b"));
            Frames reply = req.receiveFrames(T);
            assertNotNull(reply);
            assertEquals(List.of("a", "b", "echoed"), reply.toStrings());
            assertEquals(Frames.ofStrings("a", "b"), seen.poll(10, TimeUnit.SECONDS));

            // REQ's alternation holds on the byte-array path as on the message path
            req.send("again");
            assertThrows(IllegalStateException.class, () -> req.send("too soon"));
            assertEquals(List.of("again", "echoed"), req.receiveFrames(T).toStrings());
        }
    }

    @Test
    void mixingAHalfBuiltOrHalfReadMessageWithWholeMessagesIsRefused() {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            BlockingSocket pull = ctx.blocking(SocketType.PULL);
            String ep = pull.bind("tcp://127.0.0.1:0");
            BlockingSocket push = ctx.blocking(SocketType.PUSH);
            push.connect(ep);

            push.sendMore("part");
            assertThrows(IllegalStateException.class, () -> push.send(Frames.ofStrings("whole")));
            ZmtpMessage whole = ZmtpMessage.ofStrings("whole");
            assertThrows(IllegalStateException.class, () -> push.send(whole, T));
            whole.release();   // refused: still the caller's
            push.send("end");
            push.send(Frames.ofStrings("x", "y"));

            assertEquals("part", pull.recvStr(T));
            assertThrows(IllegalStateException.class, () -> pull.receive(T));
            assertThrows(IllegalStateException.class, () -> pull.receiveFrames(T));
            assertEquals("end", pull.recvStr(T));
            assertEquals(List.of("x", "y"), pull.receiveFrames(T).toStrings());
        }
    }

    /**
     * A send that times out is abandoned: the caller has nothing to release (a byte-array send
     * returns false, no message), and the message is not sent later either. (That the socket
     * released its copy cannot be seen from here: Frames wraps heap arrays, which the leak
     * detector does not track.)
     */
    @Test
    void aSendThatTimesOutAtTheHighWaterMarkIsAbandonedNotSentLater() {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            // a PUSH with no peer cannot send: the outbox fills, then sends time out
            BlockingSocket push = ctx.blocking(SocketType.PUSH, SocketOptions.builder().sendHwm(1).build());
            List<String> taken = new java.util.ArrayList<>();
            String timedOut = null;
            for (int i = 0; i < 64 && timedOut == null; i++) {
                if (push.send(Frames.ofStrings("m" + i), Duration.ofMillis(20))) {
                    taken.add("m" + i);
                } else {
                    timedOut = "m" + i;
                }
            }
            assertNotNull(timedOut, "a send timed out once the outbox was full");
            // a peer comes: what was taken arrives in order, then the next send; the timed-out one never
            BlockingSocket pull = ctx.blocking(SocketType.PULL);
            push.connect(pull.bind("tcp://127.0.0.1:0"));
            push.send("after");
            List<String> got = new java.util.ArrayList<>();
            for (List<String> m = pull.receiveStrings(T); !List.of("after").equals(m); m = pull.receiveStrings(T)) {
                assertNotNull(m, "\"after\" within " + T + ", got " + got);
                got.add(m.get(0));
            }
            assertEquals(taken, got, "the messages taken, and not " + timedOut);
        }
    }

    @Test
    void framesConvertToAndFromMessagesWithOneCopy() {
        byte[] a = utf8("alpha");
        Frames f = Frames.of(a, new byte[0], utf8("omega"));
        ZmtpMessage m = f.toMessage();
        try {
            a[0] = 'A';   // the message holds a copy
            assertEquals(3, m.size());
            assertEquals("alpha", m.frameString(0));
            assertEquals(0, m.frame(1).readableBytes());
            assertEquals("omega", m.frameString(2));
            Frames back = Frames.copyOf(m);
            assertEquals(List.of("alpha", "", "omega"), back.toStrings());
            assertEquals(10, back.byteSize());
        } finally {
            m.release();
        }
        assertEquals(List.of("id", "", "x"), Frames.ofStrings("x").push(new byte[0]).push(utf8("id")).toStrings());
        assertEquals(List.of("x"), Frames.ofStrings("id", "", "x").dropFirst(2).toStrings());
        assertEquals(Frames.ofStrings("a"), Frames.empty().add("a"));
        assertThrows(NullPointerException.class, () -> Frames.of(new byte[][] {null}));
    }
}
