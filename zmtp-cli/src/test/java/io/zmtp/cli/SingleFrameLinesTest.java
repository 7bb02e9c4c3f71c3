package io.zmtp.cli;

import io.zmtp.cli.MessageLines.Mode;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The line format of {@code zmtp cat} for the thread-safe types: a routing id or a group, then one frame. */
class SingleFrameLinesTest {
    final MessageLines text = new MessageLines("\t", Mode.TEXT);
    final MessageLines zeroX = new MessageLines("\t", Mode.ZERO_X);
    final MessageLines hex = new MessageLines("\t", Mode.HEX);

    static SingleFrameLines lines(MessageLines frames, SocketType type) {
        return new SingleFrameLines(frames, type, null);
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Parses {@code line}, checks it is one frame, and hands it to {@code check}. */
    static void parsed(SingleFrameLines lines, String line, Consumer<ZmtpMessage> check) {
        byte[] bytes = b(line);
        ZmtpMessage m = lines.parse(bytes, 0, bytes.length);
        try {
            assertEquals(1, m.size(), "one frame");
            check.accept(m);
        } finally {
            m.release();
        }
    }

    static IllegalArgumentException refused(SingleFrameLines lines, String line) {
        byte[] bytes = b(line);
        return assertThrows(IllegalArgumentException.class, () -> lines.parse(bytes, 0, bytes.length), line);
    }

    static String format(SingleFrameLines lines, ZmtpMessage m) {
        try {
            return lines.format(m);
        } finally {
            m.release();
        }
    }

    @Test
    void serverAndPeerLinesLeadWithTheDecimalRoutingId() {
        for (SocketType t : new SocketType[] {SocketType.SERVER, SocketType.PEER}) {
            parsed(lines(text, t), "42\thello world", m -> {
                assertEquals(42, m.routingId());
                assertEquals("hello world", m.frameString(0));
            });
            parsed(lines(text, t), "4294967295\t", m -> {
                assertEquals(-1, m.routingId(), "libzmq's ids are unsigned 32-bit: the largest is -1 as an int");
                assertEquals(0, m.frame(0).readableBytes(), "an empty text is an empty frame");
            });
        }
    }

    @Test
    void theRoutingIdIsDecimalInEveryModeAndTheTextFollowsTheMode() {
        parsed(lines(hex, SocketType.SERVER), "10\t00ff", m -> {
            assertEquals(10, m.routingId(), "not hex");
            assertArrayEquals(new byte[] {0, (byte) 0xff}, m.frameBytes(0));
        });
        parsed(lines(zeroX, SocketType.SERVER), "7\t0x41", m -> assertEquals("A", m.frameString(0)));
        assertEquals("7\t0x00ff", format(lines(zeroX, SocketType.SERVER), ZmtpMessage.of(new byte[] {0, (byte) 0xff}).routingId(7)));
        assertEquals("7\t00ff", format(lines(hex, SocketType.SERVER), ZmtpMessage.of(new byte[] {0, (byte) 0xff}).routingId(7)));
        assertEquals("4294967295\thi", format(lines(text, SocketType.PEER), ZmtpMessage.of(b("hi")).routingId(-1)));
    }

    @Test
    void aServerLineWithoutAValidRoutingIdIsRefused() {
        SocketType t = SocketType.SERVER;
        assertTrue(refused(lines(text, t), "hello").getMessage().startsWith("a SERVER line is the routing id"));
        for (String id : new String[] {"0", "-1", "4294967296", "x", "", "0x10"}) {
            assertTrue(refused(lines(text, t), id + "\thi").getMessage().startsWith("a routing id is a number"), id);
        }
        assertTrue(refused(lines(text, t), "5\ta\tb").getMessage().startsWith("SERVER sends one frame per message"));
    }

    @Test
    void radioLinesLeadWithTheGroupReadAsAFrame() {
        parsed(lines(text, SocketType.RADIO), "weather\tsunny", m -> {
            assertEquals("weather", m.group());
            assertEquals("sunny", m.frameString(0));
        });
        parsed(lines(hex, SocketType.RADIO), "6869\t00", m -> assertEquals("hi", m.group()));
        assertTrue(refused(lines(text, SocketType.RADIO), "\tx").getMessage().contains("1 to 255 bytes, not 0"));
        assertTrue(refused(lines(text, SocketType.RADIO), "g".repeat(256) + "\tx").getMessage()
                .contains("not 256"));
        assertTrue(refused(lines(zeroX, SocketType.RADIO), "0xff\tx").getMessage().contains("UTF-8"));
        assertTrue(refused(lines(text, SocketType.RADIO), "no group").getMessage().startsWith("a RADIO line is the group"));
    }

    @Test
    void radioWithAGroupGivenSendsEachLineAsTheTextToIt() {
        SingleFrameLines radio = new SingleFrameLines(text, SocketType.RADIO, "weather");
        parsed(radio, "sunny", m -> {
            assertEquals("weather", m.group());
            assertEquals("sunny", m.frameString(0));
        });
        assertTrue(refused(radio, "a\tb").getMessage().startsWith("RADIO sends one frame per message"));
    }

    @Test
    void dishPrintsTheGroupAsAFrameAndWhatItPrintsReadsBackIntoARadio() {
        SingleFrameLines dish = lines(zeroX, SocketType.DISH);
        String line = format(dish, ZmtpMessage.of(new byte[] {1, 2}).group("tab\there"));
        assertEquals("0x7461620968657265\t0x0102", line, "a group holding the delimiter is hex");
        parsed(lines(zeroX, SocketType.RADIO), line, m -> {
            assertEquals("tab\there", m.group());
            assertArrayEquals(new byte[] {1, 2}, m.frameBytes(0));
        });
    }

    @Test
    void clientScatterGatherAndChannelLinesAreTheFrameAlone() {
        for (SocketType t : new SocketType[] {SocketType.CLIENT, SocketType.SCATTER, SocketType.GATHER,
            SocketType.CHANNEL}) {
            SingleFrameLines l = lines(text, t);
            assertEquals(SingleFrameLines.Lead.NONE, l.lead(), t.name());
            parsed(l, "just text", m -> {
                assertEquals("just text", m.frameString(0));
                assertEquals(0, m.routingId());
                assertNull(m.group());
            });
            assertTrue(refused(l, "a\tb").getMessage().startsWith(t + " sends one frame per message"));
        }
        assertEquals("0x7461620a", format(lines(text, SocketType.CLIENT), ZmtpMessage.of(b("tab\n"))));
    }

    @Test
    void onlyTheThreadSafeTypesHaveThisFormat() {
        assertThrows(IllegalArgumentException.class, () -> lines(text, SocketType.DEALER));
    }
}
