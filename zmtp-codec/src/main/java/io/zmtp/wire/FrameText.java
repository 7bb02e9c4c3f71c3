package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.nio.charset.StandardCharsets;

/** Renders frames for logs and for the command-line tools: text when printable, hex otherwise. */
public final class FrameText {
    private static final int MAX_SHOWN = 64;

    private FrameText() {
    }

    /** Whether every byte of the frame is printable ASCII. */
    public static boolean isPrintable(ByteBuf frame) {
        for (int i = frame.readerIndex(); i < frame.writerIndex(); i++) {
            byte b = frame.getByte(i);
            if (b < 0x20 || b > 0x7e) {
                return false;
            }
        }
        return true;
    }

    /** A short description of a frame: quoted text, or hex, cut after 64 bytes. */
    public static String describe(ByteBuf frame) {
        int n = frame.readableBytes();
        int shown = Math.min(n, MAX_SHOWN);
        String body;
        if (isPrintable(frame)) {
            body = '"' + frame.toString(frame.readerIndex(), shown, StandardCharsets.US_ASCII) + '"';
        } else {
            body = ByteBufUtil.hexDump(frame, frame.readerIndex(), shown);
        }
        return n > shown ? body + "...(" + n + " bytes)" : body;
    }

    /**
     * {@code text} (a string a remote peer supplied: a user name, a property, a reason) made safe
     * for a log line, an event or an exception message: printable ASCII stays as it is, a
     * backslash becomes {@code \\}, every other character (line breaks, escapes, non-ASCII)
     * becomes a backslash escape ({@code x} and two hex digits, or {@code u} and four), and the result is cut after 64 characters of
     * input. A peer can therefore neither forge log lines nor flood a line.
     */
    public static String escape(CharSequence text) {
        return escape(text, MAX_SHOWN);
    }

    /**
     * As {@link #escape(CharSequence)}, cut after {@code maxChars} characters of input instead of
     * 64: for longer text that may contain what a peer supplied (an authenticator's reason).
     */
    public static String escape(CharSequence text, int maxChars) {
        if (text == null) {
            return "null";
        }
        int n = text.length();
        int shown = Math.min(n, maxChars);
        StringBuilder sb = new StringBuilder(shown + 8);
        for (int i = 0; i < shown; i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                sb.append("\\\\");
            } else if (c >= 0x20 && c <= 0x7e) {
                sb.append(c);
            } else if (c <= 0xff) {
                sb.append(String.format("\\x%02x", (int) c));
            } else {
                sb.append(String.format("\\u%04x", (int) c));
            }
        }
        if (n > shown) {
            sb.append("...(").append(n).append(" chars)");
        }
        return sb.toString();
    }
}
