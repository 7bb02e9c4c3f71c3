package io.zmtp.cli;

import io.zmtp.cli.MessageLines.Mode;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The line format of {@code zmtp cat}. */
class MessageLinesTest {
    final MessageLines text = new MessageLines("\t", Mode.TEXT);
    final MessageLines zeroX = new MessageLines("\t", Mode.ZERO_X);
    final MessageLines hex = new MessageLines("\t", Mode.HEX);

    static String format(MessageLines lines, byte[]... frames) {
        ZmtpMessage m = ZmtpMessage.of(frames);
        try {
            return lines.format(m);
        } finally {
            m.release();
        }
    }

    static byte[][] parse(MessageLines lines, String line) {
        return parse(lines, line.getBytes(StandardCharsets.UTF_8));
    }

    static byte[][] parse(MessageLines lines, byte[] line) {
        ZmtpMessage m = lines.parse(line, 0, line.length);
        try {
            byte[][] f = new byte[m.size()][];
            for (int i = 0; i < f.length; i++) {
                f[i] = m.frameBytes(i);
            }
            return f;
        } finally {
            m.release();
        }
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ input

    @Test
    void textModeSendsEveryFrameAsTyped() {
        for (String typed : new String[] {"0x41", "0x", "0xAB", "0xzz", "\\x41", "\\t", "%41", "&#65;", "café"}) {
            assertArrayEquals(new byte[][] {b(typed), b("end")}, parse(text, typed + "\tend"), typed);
        }
    }

    @Test
    void textModeSendsBytesThatAreNotUtf8AsTheyAre() {
        byte[] line = {(byte) 0xff, 0x00, (byte) 0xc3, '\t', 0x7f, '\r', 'x'};
        assertArrayEquals(new byte[][] {{(byte) 0xff, 0, (byte) 0xc3}, {0x7f, '\r', 'x'}}, parse(text, line));
    }

    @Test
    void zeroXModeReadsFramesStartingWith0xAsHex() {
        assertArrayEquals(new byte[][] {{(byte) 0xab, 0x41}, b("text"), {}}, parse(zeroX, "0xaB41\ttext\t0x"));
        assertArrayEquals(new byte[][] {b("0X41"), b("x0x41")}, parse(zeroX, "0X41\tx0x41"),
                "only a frame starting with lowercase 0x is hex");
        assertThrows(IllegalArgumentException.class, () -> zeroX.parse("0xabc"), "odd number of digits");
        assertThrows(IllegalArgumentException.class, () -> zeroX.parse("ok\t0xzz"), "not hex digits");
        assertThrows(IllegalArgumentException.class, () -> zeroX.parse("0x١٢"), "non-ASCII digits");
    }

    @Test
    void hexModeRejectsWhatIsNotHex() {
        assertThrows(IllegalArgumentException.class, () -> hex.parse("0g"));
        assertThrows(IllegalArgumentException.class, () -> hex.parse("abc"));
        assertThrows(IllegalArgumentException.class, () -> hex.parse("0x41"), "no 0x in hex mode");
        assertArrayEquals(new byte[][] {{(byte) 0xde, (byte) 0xad}, {}}, parse(hex, "DEad\t"));
    }

    @Test
    void lineSplitting() {
        assertArrayEquals(new byte[][] {{}}, parse(text, ""), "an empty line is one empty frame");
        assertArrayEquals(new byte[][] {b("a"), {}, {}}, parse(text, "a\t\t"), "trailing empty frames");
        MessageLines colons = new MessageLines("::", Mode.TEXT);
        assertArrayEquals(new byte[][] {b("a"), b(":b"), {}}, parse(colons, "a:::b::"), "leftmost delimiter");
        MessageLines multibyte = new MessageLines("¦", Mode.TEXT);
        assertArrayEquals(new byte[][] {b("é"), b("|")}, parse(multibyte, "é¦|"), "a delimiter of two UTF-8 bytes");
    }

    // ------------------------------------------------------------------ output

    @Test
    void plainTextFramesArePrintedAsTheyAre() {
        assertEquals("hello\tcafé\t\tend\t0X41\t日本", format(text, b("hello"), b("café"), new byte[0], b("end"),
                b("0X41"), b("日本")));
    }

    @Test
    void framesThatAreNotPlainTextArePrintedAsHex() {
        assertEquals("0x00800041a7\thi", format(text, new byte[] {0, (byte) 0x80, 0, 0x41, (byte) 0xa7}, b("hi")));
        assertEquals("0x610a62", format(text, b("a\nb")), "a line break, under any delimiter");
        assertEquals("0x610d", format(text, b("a\r")), "a carriage return");
        assertEquals("0xc328", format(text, new byte[] {(byte) 0xc3, 0x28}), "invalid UTF-8");
        assertEquals("0x30783431", format(text, b("0x41")), "text that would read as hex");
        assertEquals("0xe280a8", format(text, b("\u2028")), "a line separator");
        assertEquals("0xc285", format(text, b("\u0085")), "a C1 control (next line)");
        assertEquals(format(text, b("0x41")), format(zeroX, b("0x41")), "both text modes print alike");
    }

    @Test
    void whatNeedsHexDependsOnTheDelimiter() {
        MessageLines pipe = new MessageLines("|", Mode.TEXT);
        assertEquals("a\tb|0x617c62", format(pipe, b("a\tb"), b("a|b")), "under |, a tab is text and | is hex");
        assertEquals("0x610962\ta|b", format(text, b("a\tb"), b("a|b")), "under a tab, the reverse");
        MessageLines colons = new MessageLines("::", Mode.TEXT);
        assertEquals("0x613a::0x623a::b", format(colons, b("a:"), b("b:"), b("b")),
                "a frame ending in part of the delimiter would split elsewhere");
        assertArrayEquals(new byte[][] {b("a"), b(":b")}, parse(colons, "a:::b"), "a: and b printed as text");
        assertEquals("0x0a|0x7c", format(new MessageLines("|", Mode.TEXT), b("\n"), b("|")));
    }

    @Test
    void hexModePrintsEveryFrameAsHex() {
        assertEquals("6869\t\t00ff", format(hex, b("hi"), new byte[0], new byte[] {0, (byte) 0xff}));
    }

    // ------------------------------------------------------------------ round trips

    /**
     * Every byte value, alone and inside text, in every position of a message, under each delimiter:
     * a line printed in a text mode reads back in --0x mode as the frames received (and as
     * themselves in text mode when every frame was printed as text); in hex mode, in hex mode.
     */
    @ParameterizedTest
    @ValueSource(strings = {"\t", "|", "::", " ", ",", "¦", "\u0001", "||"})
    void everyByteValueRoundTrips(String delimiter) {
        MessageLines textOut = new MessageLines(delimiter, Mode.TEXT);
        MessageLines zeroXIn = new MessageLines(delimiter, Mode.ZERO_X);
        MessageLines hexBoth = new MessageLines(delimiter, Mode.HEX);
        int printedAsText = 0;
        for (int v = 0; v < 256; v++) {
            byte x = (byte) v;
            byte[][][] messages = {
                {{x}},
                {b("a"), {x}, b("b")},
                {{x, x}, {}, {'0', x}, {x, ':'}, {':', x}},
                {concat(b("text "), new byte[] {x}, b(" end")), {'0', 'x', x}},
                {concat(delimiter.getBytes(StandardCharsets.UTF_8), new byte[] {x})},
            };
            for (byte[][] frames : messages) {
                String printed = format(textOut, frames);
                assertFalse(printed.contains("\n") || printed.contains("\r"), "one line: " + printed);
                assertArrayEquals(frames, parse(zeroXIn, printed), "--0x reads back " + printed);
                assertEquals(printed, format(zeroXIn, frames), "--0x prints as text mode does");
                if (!printed.contains("0x")) {
                    printedAsText++;
                    assertArrayEquals(frames, parse(textOut, printed), "text mode reads back " + printed);
                }
                String hexLine = format(hexBoth, frames);
                assertArrayEquals(frames, parse(hexBoth, hexLine), "hex mode reads back " + hexLine);
            }
        }
        assertTrue(printedAsText > 90, "most printable bytes are text: " + printedAsText);
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] all = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }

    @Test
    void delimitersThatCannotWorkAreRefused() {
        for (String d : new String[] {"", "\n", "a\r", "f", "0", "x", "|X|", "B"}) {
            for (Mode mode : Mode.values()) {
                assertThrows(IllegalArgumentException.class, () -> new MessageLines(d, mode), "'" + d + "' " + mode);
            }
        }
    }
}
