package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.WriteBufferWaterMark;
import io.zmtp.testing.CodecHarness;
import io.zmtp.testing.PeerBytes;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import static io.zmtp.testing.PeerBytes.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ZmtpCodecTest {

    static final ZmtpOptions DEALER = ZmtpOptions.builder(SocketType.DEALER).build();

    /** The spec's example: a DEALER with no identity announces itself in 43 bytes. */
    static final byte[] SPEC_DEALER_READY = hex("04 29 05 52 45 41 44 59"
            + " 0B 53 6F 63 6B 65 74 2D 54 79 70 65 00 00 00 06 44 45 41 4C 45 52"
            + " 08 49 64 65 6E 74 69 74 79 00 00 00 00");

    static byte[] peerRouter31() {
        return PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER").toArray();
    }

    @Test
    void greetingGoesOutInTwoPartsAsLibzmqSendsIt() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            byte[] first = h.written();
            assertArrayEquals(hex("FF 00 00 00 00 00 00 00 00 7F 03"), first,
                    "signature and major version go first");
            h.feed(Arrays.copyOf(PeerBytes.create().greeting31().toArray(), 11));
            byte[] rest = h.written();
            assertEquals(53, rest.length);
            assertEquals(1, rest[0], "we announce minor version 1");
            assertEquals("NULL", new String(rest, 1, 4, StandardCharsets.US_ASCII));
            assertEquals(0, rest[21], "as-server is 0 for NULL");
        }
    }

    @Test
    void readyWithGreetingSendsReadyWithTheRestAndNotAgain() {
        try (CodecHarness h = new CodecHarness(ZmtpOptions.builder(SocketType.DEALER).readyWithGreeting(true).build())) {
            assertArrayEquals(hex("FF 00 00 00 00 00 00 00 00 7F 03"), h.written(),
                    "the signature still goes alone: a ZMTP 2.0 peer must see it before our revision");
            h.feed(Arrays.copyOf(PeerBytes.create().greeting31().toArray(), 11));
            byte[] rest = h.written();
            assertEquals(53 + SPEC_DEALER_READY.length, rest.length, "the rest of the greeting, then READY");
            assertArrayEquals(SPEC_DEALER_READY, Arrays.copyOfRange(rest, 53, rest.length));
            h.feed(Arrays.copyOfRange(peerRouter31(), 11, peerRouter31().length));
            assertEquals(0, h.written().length, "READY is not sent twice");
            assertNotNull(h.handshake(), "the handshake completes on the peer's READY");
        }
    }

    @Test
    void theGreetingEncodedOnceIsSentWholeOnEveryConnection() {
        // ZmtpOptions encodes the greeting's rest and NULL's READY at the first connection and
        // every later connection with the same options copies those bytes
        ZmtpOptions options = ZmtpOptions.builder(SocketType.DEALER).readyWithGreeting(true).build();
        byte[] first = null;
        for (int connection = 0; connection < 3; connection++) {
            try (CodecHarness h = new CodecHarness(options)) {
                assertArrayEquals(hex("FF 00 00 00 00 00 00 00 00 7F 03"), h.written());
                h.feed(Arrays.copyOf(PeerBytes.create().greeting31().toArray(), 11));
                byte[] rest = h.written();
                assertArrayEquals(SPEC_DEALER_READY, Arrays.copyOfRange(rest, 53, rest.length),
                        "connection " + connection);
                if (first == null) {
                    first = rest;
                }
                assertArrayEquals(first, rest, "connection " + connection + " sends what the first sent");
            }
        }
    }

    @Test
    void dealerReadyMatchesTheSpecExampleByteForByte() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.written();
            h.feed(PeerBytes.create().greeting31().toArray());
            byte[] out = h.written();
            byte[] ready = Arrays.copyOfRange(out, 53, out.length);
            assertEquals(43, ready.length);
            assertArrayEquals(SPEC_DEALER_READY, ready);
        }
    }

    @Test
    void routerReadyIsTheSpecReplyPlusTheIdentityLibzmqAdds() {
        // The spec's ROUTER reply has only Socket-Type; libzmq's ROUTER also sends Identity (REQ,
        // DEALER and ROUTER do), which matters when a ROUTER connects to a ROUTER. We do as libzmq.
        try (CodecHarness h = new CodecHarness(ZmtpOptions.builder(SocketType.ROUTER).build())) {
            h.feed(PeerBytes.create().greeting31().toArray());
            byte[] out = h.written();
            byte[] ready = Arrays.copyOfRange(out, 64, out.length);
            assertArrayEquals(hex("04 29 05 52 45 41 44 59 0B 53 6F 63 6B 65 74 2D 54 79 70 65 00 00 00 06"
                    + " 52 4F 55 54 45 52 08 49 64 65 6E 74 69 74 79 00 00 00 00"), ready);
        }
        try (CodecHarness h = new CodecHarness(ZmtpOptions.builder(SocketType.PUB).build())) {
            h.feed(PeerBytes.create().greeting31().toArray());
            byte[] out = h.written();
            assertArrayEquals(hex("04 19 05 52 45 41 44 59 0B 53 6F 63 6B 65 74 2D 54 79 70 65 00 00 00 03"
                    + " 50 55 42"), Arrays.copyOfRange(out, 64, out.length), "PUB sends no Identity");
        }
    }

    @Test
    void handshakeCompletesWithThePeersMetadata() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feed(PeerBytes.create().greeting(3, 1, "NULL", false, 0x2A)
                    .ready("Socket-Type", "ROUTER", "identity", "peer-7", "X-Colour", "blue").toArray());
            HandshakeCompleted hc = h.handshake();
            assertNotNull(hc, "handshake completes although padding bytes are not zero");
            assertEquals(ZmtpVersion.V3_1, hc.version());
            assertEquals(SocketType.ROUTER, hc.peerSocketType());
            assertEquals("peer-7", new String(hc.peerIdentity(), StandardCharsets.UTF_8),
                    "property names are case-insensitive");
            assertEquals("blue", hc.peerMetadata().getString("x-colour"));
            assertTrue(h.channel.isOpen());
        }
    }

    @Test
    void adaptsToAZmtp30Peer() {
        try (CodecHarness h = new CodecHarness(ZmtpOptions.builder(SocketType.SUB).build())) {
            h.feed(PeerBytes.create().greeting30().ready("Socket-Type", "PUB").toArray());
            assertEquals(ZmtpVersion.V3_0, h.handshake().version());
            h.written();
            h.channel.writeAndFlush(ZmtpSubscription.subscribe("news".getBytes(StandardCharsets.US_ASCII)));
            h.channel.writeAndFlush(ZmtpSubscription.cancel(new byte[0]));
            assertArrayEquals(hex("00 05 01 6E 65 77 73  00 01 00"), h.written(),
                    "a 3.0 peer gets subscriptions as 0x01/0x00-prefixed messages");
        }
    }

    @Test
    void subscriptionsGoToA31PeerAsCommands() {
        try (CodecHarness h = new CodecHarness(ZmtpOptions.builder(SocketType.SUB).build())) {
            h.feed(PeerBytes.create().greeting31().ready("Socket-Type", "PUB").toArray());
            h.written();
            h.channel.writeAndFlush(ZmtpSubscription.subscribe("ab".getBytes(StandardCharsets.US_ASCII)));
            h.channel.writeAndFlush(ZmtpSubscription.cancel("ab".getBytes(StandardCharsets.US_ASCII)));
            assertArrayEquals(hex("04 0C 09 53 55 42 53 43 52 49 42 45 61 62"
                    + " 04 09 06 43 41 4E 43 45 4C 61 62"), h.written());
        }
    }

    @Test
    void receivedSubscribeAndCancelCommandsBecomeSubscriptions() {
        try (CodecHarness h = new CodecHarness(ZmtpOptions.builder(SocketType.PUB).build())) {
            h.feed(PeerBytes.create().greeting31().ready("Socket-Type", "SUB")
                    .command("SUBSCRIBE", "A".getBytes(StandardCharsets.US_ASCII))
                    .command("SUBSCRIBE", new byte[0])
                    .command("CANCEL", "A".getBytes(StandardCharsets.US_ASCII)).toArray());
            assertEquals(3, h.received.size());
            ZmtpSubscription s0 = (ZmtpSubscription) h.received.get(0);
            ZmtpSubscription s1 = (ZmtpSubscription) h.received.get(1);
            ZmtpSubscription s2 = (ZmtpSubscription) h.received.get(2);
            assertTrue(s0.isSubscribe());
            assertEquals("A", s0.topic().toString(StandardCharsets.US_ASCII));
            assertTrue(s1.isSubscribe());
            assertEquals(0, s1.topic().readableBytes());
            assertFalse(s2.isSubscribe());
        }
    }

    @Test
    void decodesShortLongMultiAndEmptyFrames() {
        byte[] big = new byte[300];
        Arrays.fill(big, (byte) 'x');
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feed(PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER")
                    .frame(false, "hello")
                    .frame(true, "a").frame(true, "").frame(false, big)
                    .frame(false, new byte[0]).toArray());
            assertEquals(3, h.received.size());
            ZmtpMessage m0 = (ZmtpMessage) h.received.get(0);
            assertEquals(1, m0.size());
            assertEquals("hello", m0.frameString(0));
            ZmtpMessage m1 = (ZmtpMessage) h.received.get(1);
            assertEquals(3, m1.size());
            assertEquals("a", m1.frameString(0));
            assertTrue(m1.isFrameEmpty(1));
            assertArrayEquals(big, m1.frameBytes(2));
            ZmtpMessage m2 = (ZmtpMessage) h.received.get(2);
            assertEquals(1, m2.size());
            assertTrue(m2.isFrameEmpty(0));
            assertEquals("ROUTER", m0.properties().getString("Socket-Type"),
                    "each message carries the connection's properties");
        }
    }

    @Test
    void encodesShortAndLongFramesWithMoreFlags() {
        byte[] big = new byte[2000];
        Arrays.fill(big, (byte) 7);
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feed(peerRouter31());
            h.written();
            h.channel.writeAndFlush(ZmtpMessage.of("ab".getBytes(StandardCharsets.US_ASCII), new byte[0], big, big));
            byte[] expected = PeerBytes.create().frame(true, "ab").frame(true, new byte[0]).frame(true, big)
                    .frame(false, big).toArray();
            assertArrayEquals(expected, h.written());
            assertArrayEquals(hex("01 02 61 62 01 00 03 00 00 00 00 00 00 07 D0"), Arrays.copyOf(expected, 15),
                    "short frames have flags 0x01 with MORE; a long one with MORE has 0x03 and an 8-byte size");
            assertEquals(0x02, expected[15 + 2000], "the last long frame has flags 0x02");
        }
    }

    @Test
    void encoderDoesNotDisturbTheFramesIndexes() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feed(peerRouter31());
            h.written();
            byte[] big = new byte[5000];
            ZmtpMessage m = ZmtpMessage.of(Unpooled.wrappedBuffer("small".getBytes(StandardCharsets.US_ASCII)),
                    Unpooled.wrappedBuffer(big));
            m.retain();
            h.channel.writeAndFlush(m);
            assertEquals(5, m.frame(0).readableBytes());
            assertEquals(5000, m.frame(1).readableBytes());
            h.channel.writeAndFlush(m);
            byte[] once = PeerBytes.create().frame(true, "small").frame(false, big).toArray();
            byte[] twice = new byte[once.length * 2];
            System.arraycopy(once, 0, twice, 0, once.length);
            System.arraycopy(once, 0, twice, once.length, once.length);
            assertArrayEquals(twice, h.written(), "one message object can be written to several peers");
        }
    }

    @Test
    void writesBeforeTheHandshakeWaitForIt() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            ChannelFuture f = h.channel.writeAndFlush(ZmtpMessage.ofStrings("early"));
            h.written();
            assertFalse(f.isDone());
            h.feed(peerRouter31());
            byte[] out = h.written();
            byte[] tail = Arrays.copyOfRange(out, out.length - 7, out.length);
            assertArrayEquals(PeerBytes.create().frame(false, "early").toArray(), tail);
            assertTrue(f.isSuccess());
        }
    }

    @Test
    void writesBeforeTheHandshakeGoOutInTheOrderMade() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            ChannelFuture first = h.channel.write(ZmtpMessage.ofStrings("one"));
            ChannelFuture second = h.channel.writeAndFlush(ZmtpMessage.ofStrings("two", "2"));
            h.written();
            h.feed(peerRouter31());
            byte[] out = h.written();
            byte[] expected = PeerBytes.create().frame(false, "one").frame(true, "two").frame(false, "2").toArray();
            assertArrayEquals(expected, Arrays.copyOfRange(out, out.length - expected.length, out.length));
            assertTrue(first.isSuccess());
            assertTrue(second.isSuccess());
        }
    }

    @Test
    void writesBeforeTheHandshakeFailAndAreReleasedWhenThePeerLeaves() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            ZmtpMessage m = ZmtpMessage.ofStrings("early");
            m.retain(); // one reference for the codec, one to look at afterwards
            ChannelFuture f = h.channel.writeAndFlush(m);
            assertFalse(f.isDone());
            h.peerClosed();
            assertTrue(f.isDone());
            assertTrue(f.cause() instanceof java.nio.channels.ClosedChannelException, String.valueOf(f.cause()));
            assertEquals(1, m.refCnt(), "the codec released its reference");
            m.release();
        }
    }

    @Test
    void handshakeCompletedHandsOverAWriterIntoTheCodec() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feed(peerRouter31());
            h.written();
            ConnectionWriter w = h.handshake().writer();
            assertNotNull(w);
            w.write(ZmtpMessage.ofStrings("direct", "write"));
            assertNull(h.channel.readOutbound(), "nothing goes out before the flush");
            w.flush();
            assertArrayEquals(PeerBytes.create().frame(true, "direct").frame(false, "write").toArray(), h.written());
            assertNull(new HandshakeCompleted(ZmtpVersion.V3_1, "NULL", ZmtpMetadata.EMPTY).writer(),
                    "an event made outside the codec carries no writer");
        }
    }

    @Test
    void theWriterSaysWhatTheChannelSaysOfWritability() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feed(peerRouter31());
            h.written();
            h.channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(1024, 4096));
            ConnectionWriter w = h.handshake().writer();
            assertTrue(w.isWritable());
            // a body larger than a batch goes to the channel at once, unflushed: past the high water mark
            w.write(ZmtpMessage.of(new byte[16 * 1024]));
            assertFalse(h.channel.isWritable());
            assertFalse(w.isWritable(), "the codec heard the channel become unwritable");
            w.flush();
            h.channel.runPendingTasks(); // Netty may announce writable again from a task
            assertTrue(h.channel.isWritable());
            assertTrue(w.isWritable(), "and writable again");
            assertEquals(16 * 1024 + 9, h.written().length);
            h.peerClosed();
            assertFalse(w.isWritable(), "a closed channel takes no writes");
        }
    }

    @Test
    void pingIsAnsweredWithPongEchoingAtMost16BytesOfContext() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feed(peerRouter31());
            h.written();
            byte[] ping = new byte[2 + 20];
            ping[1] = 50; // TTL 5 s
            for (int i = 0; i < 20; i++) {
                ping[2 + i] = (byte) ('a' + i);
            }
            h.feed(PeerBytes.create().command("PING", ping).toArray());
            byte[] pong1 = Arrays.copyOfRange(ping, 2, 18);
            assertArrayEquals(PeerBytes.create().command("PONG", pong1).toArray(), h.written());
            // Two PINGs in one read owe one PONG: the later one's context.
            h.feed(PeerBytes.create().command("PING", ping).command("PING", hex("0000")).toArray());
            assertArrayEquals(PeerBytes.create().command("PONG", new byte[0]).toArray(), h.written());
            assertTrue(h.received.isEmpty(), "PING never reaches the application");
            h.feed(PeerBytes.create().command("PONG", new byte[3]).toArray());
            assertTrue(h.received.isEmpty(), "PONG never reaches the application");
            assertTrue(h.channel.isOpen());
        }
    }

    @Test
    void unknownCommandsAreTolerated() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feed(peerRouter31());
            // (JOIN was the example here until RADIO/DISH: now it closes any socket but a RADIO)
            h.feed(PeerBytes.create().command("XFUTURE", "g".getBytes(StandardCharsets.US_ASCII))
                    .frame(false, "after").toArray());
            assertEquals(1, h.received.size());
            assertTrue(h.channel.isOpen());
        }
    }

    @Test
    void commandsMayArriveBetweenTheFramesOfAMessage() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feed(peerRouter31());
            h.written();
            h.feed(PeerBytes.create().frame(true, "part1").command("PING", hex("0000")).frame(false, "part2").toArray());
            assertEquals(1, h.received.size());
            ZmtpMessage m = (ZmtpMessage) h.received.get(0);
            assertEquals(2, m.size());
            assertEquals("part2", m.frameString(1));
        }
    }

    @Test
    void everySplitPointDecodesTheSame() {
        byte[] big = new byte[400];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) i;
        }
        byte[] session = PeerBytes.create().greeting(3, 1, "NULL", false, 0x09)
                .ready("Socket-Type", "ROUTER", "Identity", "x")
                .frame(true, "a").frame(true, new byte[0]).frame(false, big)
                .command("PING", hex("0000 0102"))
                .frame(false, "z").toArray();
        String expected = decodeAll(session, new int[0]);
        assertTrue(expected.contains("\"z\""));
        for (int cut = 1; cut < session.length; cut++) {
            assertEquals(expected, decodeAll(session, new int[] {cut}), "split at " + cut);
        }
        int[] everyByte = new int[session.length - 1];
        for (int i = 0; i < everyByte.length; i++) {
            everyByte[i] = i + 1;
        }
        assertEquals(expected, decodeAll(session, everyByte), "one byte per read");
    }

    private static String decodeAll(byte[] session, int[] cuts) {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feedSplit(session, cuts);
            StringBuilder sb = new StringBuilder();
            sb.append(h.handshake()).append('|');
            for (Object o : h.received) {
                sb.append(o).append('|');
            }
            byte[] out = h.written();
            sb.append(ByteBufUtil.hexDump(out, out.length - 8, 8));
            assertNull(h.failure());
            return sb.toString();
        }
    }

    // ----------------------------------------------------------- malformed input

    private static ConnectionFailed expectFailure(ZmtpOptions options, byte[] input, String reasonPart) {
        try (CodecHarness h = new CodecHarness(options)) {
            h.feed(input);
            ConnectionFailed f = h.failure();
            assertNotNull(f, "connection should have failed");
            assertTrue(f.reason().contains(reasonPart), "reason '" + f.reason() + "' should mention '" + reasonPart + "'");
            assertFalse(h.channel.isOpen(), "connection closed");
            return f;
        }
    }

    @Test
    void badSignatureCloses() {
        ConnectionFailed f = expectFailure(DEALER, "GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII),
                "bad greeting signature");
        assertTrue(f.beforeHandshake());
    }

    @Test
    void zmtp1PeerCloses() {
        expectFailure(DEALER, hex("FF 00 00 00 00 00 00 00 01 00"), "ZMTP 1.0");
    }

    @Test
    void zmtp2PeerGetsAClearReasonAndClose() {
        expectFailure(DEALER, hex("FF 00 00 00 00 00 00 00 01 7F 01 05"), "ZMTP 2.0");
        expectFailure(DEALER, hex("FF 00 00 00 00 00 00 00 01 7F 02"), "only ZMTP 3.x");
    }

    @Test
    void mechanismMismatchCloses() {
        expectFailure(DEALER, PeerBytes.create().greeting(3, 1, "PLAIN", false, 0).toArray(), "mechanism mismatch");
    }

    @Test
    void reservedFlagBitsClose() {
        expectFailure(DEALER, PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER").raw(0x08, 0x01, 0x41).toArray(),
                "reserved flag bits");
    }

    @Test
    void commandWithTruncatedNameCloses() {
        expectFailure(DEALER, PeerBytes.create().greeting31().raw(0x04, 0x03, 0x05, 'R', 'E').toArray(), "truncated");
    }

    @Test
    void commandWithMoreFlagCloses() {
        expectFailure(DEALER, PeerBytes.create().greeting31().raw(0x05, 0x01, 0x00).toArray(), "MORE");
    }

    @Test
    void oversizedFrameClosesOnItsHeaderBeforeAnyBodyArrives() {
        ZmtpOptions small = ZmtpOptions.builder(SocketType.DEALER).maxMessageSize(1000).build();
        byte[] header = PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER")
                .raw(0x02).raw(hex("00 00 00 00 00 00 04 00")).toArray();
        expectFailure(small, header, "exceeds maxMessageSize");
        byte[] huge = PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER")
                .raw(0x02).raw(hex("7F FF FF FF FF FF FF FF")).toArray();
        expectFailure(DEALER, huge, "exceeds maxMessageSize");
        byte[] negative = PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER")
                .raw(0x02).raw(hex("FF FF FF FF FF FF FF FF")).toArray();
        expectFailure(DEALER, negative, "above 2^63-1");
    }

    @Test
    void multiFrameMessageOverTheLimitCloses() {
        ZmtpOptions small = ZmtpOptions.builder(SocketType.DEALER).maxMessageSize(100).build();
        expectFailure(small, PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER")
                .frame(true, new byte[60]).frame(false, new byte[60]).toArray(), "exceeds maxMessageSize");
    }

    @Test
    void oversizedHandshakeCommandCloses() {
        ZmtpOptions small = ZmtpOptions.builder(SocketType.DEALER).maxMetadataSize(256).build();
        expectFailure(small, PeerBytes.create().greeting31().raw(0x06).raw(hex("00 00 00 00 00 10 00 00")).toArray(),
                "command frame");
    }

    @Test
    void garbageAfterTheGreetingCloses() {
        expectFailure(DEALER, PeerBytes.create().greeting31().frame(false, "not a command").toArray(),
                "before the handshake");
        expectFailure(DEALER, PeerBytes.create().greeting31().command("HELLO", new byte[4]).toArray(),
                "expected READY");
        expectFailure(DEALER, PeerBytes.create().greeting31().command("READY", hex("05 41 42")).toArray(),
                "truncated");
    }

    @Test
    void readyAfterTheHandshakeCloses() {
        expectFailure(DEALER, PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER")
                .ready("Socket-Type", "ROUTER").toArray(), "READY after the handshake");
    }

    @Test
    void incompatibleSocketTypeGetsErrorThenClose() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feed(PeerBytes.create().greeting31().ready("Socket-Type", "PUB").toArray());
            byte[] out = h.written();
            byte[] expectedError = PeerBytes.create().command("ERROR",
                    ("\u0013Invalid socket type").getBytes(StandardCharsets.US_ASCII)).toArray();
            byte[] tail = Arrays.copyOfRange(out, out.length - expectedError.length, out.length);
            assertArrayEquals(expectedError, tail);
            assertEquals(ConnectionFailed.Kind.HANDSHAKE, h.failure().kind());
            assertNull(h.handshake());
            assertFalse(h.channel.isOpen());
        }
    }

    @Test
    void missingSocketTypeCloses() {
        expectFailure(DEALER, PeerBytes.create().greeting31().ready("X-Foo", "1").toArray(), "no Socket-Type");
    }

    @Test
    void errorMidStreamIsFatalAndSuppressesReconnect() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feed(PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER")
                    .frame(false, "before")
                    .command("ERROR", "\u0003bye".getBytes(StandardCharsets.US_ASCII))
                    .frame(false, "after").toArray());
            assertEquals(1, h.received.size(), "the message before ERROR is delivered, none after");
            ConnectionFailed f = h.failure();
            assertEquals(ConnectionFailed.Kind.PEER_ERROR, f.kind());
            assertTrue(f.reason().contains("bye"));
            assertTrue(f.suppressesReconnect());
            assertFalse(h.channel.isOpen());
            int readIndex = h.events.indexOf(f);
            assertTrue(readIndex > 0);
        }
    }

    @Test
    void errorDuringHandshakeIsFatal() {
        ConnectionFailed f = expectFailure(DEALER, PeerBytes.create().greeting31()
                .command("ERROR", "\u0003400".getBytes(StandardCharsets.US_ASCII)).toArray(), "400");
        assertEquals(ConnectionFailed.Kind.PEER_ERROR, f.kind());
        assertTrue(f.beforeHandshake());
    }

    @Test
    void peerHangingUpDuringTheHandshakeIsAHandshakeFailure() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feed(PeerBytes.create().greeting31().toArray());
            assertNull(h.failure());
            h.peerClosed();
            ConnectionFailed f = h.failure();
            assertNotNull(f, "a libzmq CURVE server hangs up on a wrong server key: the client must hear of it");
            assertEquals(ConnectionFailed.Kind.HANDSHAKE, f.kind());
            assertTrue(f.reason().contains("peer closed the connection during the NULL handshake"), f.reason());
            assertTrue(f.beforeHandshake());
            assertFalse(f.suppressesReconnect(), "a hang-up is not a refusal: reconnecting may help");
        }
    }

    @Test
    void closingOurselvesOrAfterTheHandshakeIsNotAFailure() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feed(PeerBytes.create().greeting31().toArray());
            h.channel.close();
            assertNull(h.failure(), "we closed: nothing failed");
        }
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feed(peerRouter31());
            h.peerClosed();
            assertNotNull(h.handshake());
            assertNull(h.failure(), "a disconnect after the handshake is only channelInactive");
        }
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.peerClosed();
            assertNull(h.failure(), "nor one before the greeting");
        }
    }

    @Test
    void partialMessageIsReleasedWhenTheConnectionDrops() {
        CodecHarness h = new CodecHarness(DEALER);
        ByteBuf pooled = PooledByteBufAllocator.DEFAULT.directBuffer();
        pooled.writeBytes(PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER").frame(true, "dangling")
                .frame(false, new byte[100]).toArray(), 0, 100);
        h.channel.writeInbound(pooled);
        h.channel.close();
        assertTrue(h.received.isEmpty());
        h.close();
        // the leak check after this test fails it if the dangling frame was not released
    }

    // ----------------------------------------------------------- timers

    @Test
    void handshakeTimeoutCloses() {
        ZmtpOptions opts = ZmtpOptions.builder(SocketType.DEALER).handshakeTimeout(Duration.ofMillis(500)).build();
        try (CodecHarness h = new CodecHarness(opts)) {
            h.feed(PeerBytes.create().greeting31().toArray());
            h.advance(400);
            assertTrue(h.channel.isOpen());
            h.advance(200);
            assertEquals(ConnectionFailed.Kind.HANDSHAKE_TIMEOUT, h.failure().kind());
            assertFalse(h.channel.isOpen());
        }
    }

    @Test
    void heartbeatsPingAtTheIntervalWithTheTtlAndCloseOnSilence() {
        ZmtpOptions opts = ZmtpOptions.builder(SocketType.DEALER)
                .heartbeat(HeartbeatPolicy.of(Duration.ofMillis(100), Duration.ofMillis(1500), Duration.ofMillis(250)))
                .build();
        try (CodecHarness h = new CodecHarness(opts)) {
            h.feed(peerRouter31());
            h.written();
            h.advance(100);
            assertArrayEquals(PeerBytes.create().command("PING", hex("00 0F")).toArray(), h.written(),
                    "PING carries the TTL in tenths of a second and an empty context");
            h.advance(100);
            h.feed(PeerBytes.create().command("PONG", new byte[0]).toArray());
            h.advance(200);
            assertTrue(h.channel.isOpen(), "traffic after the PING keeps the connection");
            h.advance(600);
            assertEquals(ConnectionFailed.Kind.HEARTBEAT_TIMEOUT, h.failure().kind());
            assertFalse(h.channel.isOpen());
        }
    }

    @Test
    void anyTrafficCountsAsLiveness() {
        ZmtpOptions opts = ZmtpOptions.builder(SocketType.DEALER)
                .heartbeat(HeartbeatPolicy.every(Duration.ofMillis(100))).build();
        try (CodecHarness h = new CodecHarness(opts)) {
            h.feed(peerRouter31());
            for (int i = 0; i < 10; i++) {
                h.advance(50);
                h.feed(PeerBytes.create().frame(false, "data").toArray());
            }
            assertTrue(h.channel.isOpen());
            assertNull(h.failure());
        }
    }

    @Test
    void peerTtlClosesASilentConnection() {
        try (CodecHarness h = new CodecHarness(DEALER)) {
            h.feed(peerRouter31());
            h.feed(PeerBytes.create().command("PING", hex("00 05")).toArray()); // 500 ms TTL
            h.advance(400);
            assertTrue(h.channel.isOpen());
            h.advance(200);
            assertEquals(ConnectionFailed.Kind.HEARTBEAT_TIMEOUT, h.failure().kind());
        }
    }

    @Test
    void noPingsToAZmtp30Peer() {
        ZmtpOptions opts = ZmtpOptions.builder(SocketType.DEALER)
                .heartbeat(HeartbeatPolicy.every(Duration.ofMillis(100))).build();
        try (CodecHarness h = new CodecHarness(opts)) {
            h.feed(PeerBytes.create().greeting30().ready("Socket-Type", "ROUTER").toArray());
            h.written();
            h.advance(1000);
            assertEquals(0, h.written().length);
            assertTrue(h.channel.isOpen());
        }
    }
}
