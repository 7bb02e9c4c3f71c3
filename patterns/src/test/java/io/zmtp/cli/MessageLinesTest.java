package io.zmtp.cli;

import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The line format of {@code zmtp cat}. */
class MessageLinesTest {
    final MessageLines text = new MessageLines("\t", false);
    final MessageLines hex = new MessageLines("\t", true);

    static String format(MessageLines lines, byte[]... frames) {
        ZmtpMessage m = ZmtpMessage.of(frames);
        try {
            return lines.format(m);
        } finally {
            m.release();
        }
    }

    static byte[][] parse(MessageLines lines, String line) {
        ZmtpMessage m = lines.parse(line);
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

    @Test
    void textFramesArePrintedAsTheyAre() {
        assertEquals("hello\tcafé\t\tend", format(text, b("hello"), b("café"), new byte[0], b("end")));
    }

    @Test
    void framesThatAreNotPlainTextArePrintedAsHex() {
        assertEquals("0x00800041a7\thi", format(text, new byte[] {0, (byte) 0x80, 0, 0x41, (byte) 0xa7}, b("hi")));
        assertEquals("0x6109620a", format(text, b("a\tb\n")), "control characters");
        assertEquals("0xc328", format(text, new byte[] {(byte) 0xc3, 0x28}), "invalid UTF-8");
        assertEquals("0x30783131", format(text, b("0x11")), "text that would read as hex");
    }

    @Test
    void aFrameHoldingTheDelimiterIsPrintedAsHex() {
        MessageLines pipe = new MessageLines("|", false);
        assertEquals("a|0x617c62", format(pipe, b("a"), b("a|b")));
    }

    @Test
    void everyPrintedLineParsesBackToTheSameFrames() {
        byte[][] frames = {new byte[] {0, 1, 2}, b("text"), new byte[0], b("0xzz"), b("x\ty"), b("ü")};
        assertArrayEquals(frames, parse(text, format(text, frames)));
        assertArrayEquals(frames, parse(hex, format(hex, frames)));
    }

    @Test
    void lineSplitting() {
        assertArrayEquals(new byte[][] {new byte[0]}, parse(text, ""), "an empty line is one empty frame");
        assertArrayEquals(new byte[][] {b("a"), new byte[0], new byte[0]}, parse(text, "a\t\t"), "trailing empty frames");
        assertArrayEquals(new byte[] {(byte) 0xab}, parse(text, "0xAB")[0], "0x and hex digit pairs are bytes");
        assertArrayEquals(b("0xabc"), parse(text, "0xabc")[0], "an odd number of digits is text");
        assertArrayEquals(new byte[0], parse(text, "0x")[0], "0x alone is an empty frame");
    }

    @Test
    void hexModeRejectsWhatIsNotHex() {
        assertThrows(IllegalArgumentException.class, () -> hex.parse("0g"));
        assertThrows(IllegalArgumentException.class, () -> hex.parse("abc"));
        assertArrayEquals(new byte[][] {new byte[] {(byte) 0xde, (byte) 0xad}, new byte[0]}, parse(hex, "DEad\t"));
    }

    @Test
    void delimitersThatCannotWorkAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new MessageLines("", false));
        assertThrows(IllegalArgumentException.class, () -> new MessageLines("\n", false));
        assertThrows(IllegalArgumentException.class, () -> new MessageLines("f", true));
    }
}
