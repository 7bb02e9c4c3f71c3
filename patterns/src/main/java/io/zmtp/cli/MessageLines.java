package io.zmtp.cli;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.zmtp.wire.ZmtpMessage;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * How {@code zmtp cat} turns a line into a message and a message into a line: one message per
 * line, frames separated by a delimiter (a tab by default).
 *
 * <p>In hex mode every frame is written and read as hex digits (an empty frame is empty).
 *
 * <p>In text mode a frame is written as its UTF-8 text when that is unambiguous: valid UTF-8
 * with no control characters, not containing the delimiter and not starting with {@code 0x}.
 * Any other frame (a ROUTER's generated routing id, binary data) is written as {@code 0x}
 * followed by its bytes in hex. Reading accepts the same: a frame of the form {@code 0x} and an
 * even number of hex digits is those bytes, anything else is UTF-8 text. So every printed line
 * can be sent back as it is, a routing id included.
 */
final class MessageLines {
    private static final HexFormat HEX = HexFormat.of();
    private static final Pattern HEX_FRAME = Pattern.compile("0x(?:[0-9a-fA-F]{2})*");
    private static final String HEX_MARK = "0x";

    private final String delimiter;
    private final Pattern split;
    private final boolean hex;

    MessageLines(String delimiter, boolean hex) {
        if (delimiter.isEmpty()) {
            throw new IllegalArgumentException("the frame delimiter must not be empty");
        }
        if (delimiter.indexOf('\n') >= 0 || delimiter.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("the frame delimiter must not contain a line break");
        }
        if (hex && delimiter.chars().anyMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new IllegalArgumentException("in hex mode the frame delimiter must not contain hex digits");
        }
        this.delimiter = delimiter;
        this.split = Pattern.compile(Pattern.quote(delimiter));
        this.hex = hex;
    }

    String delimiter() {
        return delimiter;
    }

    /** The message of one input line (every delimiter separates two frames; none is dropped). */
    ZmtpMessage parse(String line) {
        String[] frames = split.split(line, -1);
        byte[][] bytes = new byte[frames.length][];
        for (int i = 0; i < frames.length; i++) {
            bytes[i] = parseFrame(frames[i]);
        }
        return ZmtpMessage.of(bytes);
    }

    /** One frame as written on a line: hex in hex mode; in text mode {@code 0x...} or text. */
    byte[] parseFrame(String frame) {
        if (hex) {
            if ((frame.length() & 1) != 0) {
                throw new IllegalArgumentException("odd number of hex digits in '" + frame + "'");
            }
            return HEX.parseHex(frame);
        }
        if (HEX_FRAME.matcher(frame).matches()) {
            return HEX.parseHex(frame, 2, frame.length());
        }
        return frame.getBytes(StandardCharsets.UTF_8);
    }

    /** The line of a message (the message stays the caller's). */
    String format(ZmtpMessage m) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < m.size(); i++) {
            if (i > 0) {
                sb.append(delimiter);
            }
            appendFrame(sb, m.frame(i));
        }
        return sb.toString();
    }

    private void appendFrame(StringBuilder sb, ByteBuf frame) {
        if (!hex) {
            String text = text(frame);
            if (text != null) {
                sb.append(text);
                return;
            }
            sb.append(HEX_MARK);
        }
        sb.append(ByteBufUtil.hexDump(frame));
    }

    /** The frame as text if it can be written as text unambiguously, else null. */
    private String text(ByteBuf frame) {
        String s;
        try {
            ByteBuffer b = frame.nioBuffer(frame.readerIndex(), frame.readableBytes());
            s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(b).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
        if (s.startsWith(HEX_MARK) || s.contains(delimiter)) {
            return null;
        }
        for (int i = 0; i < s.length(); i++) {
            if (Character.isISOControl(s.charAt(i))) {
                return null;
            }
        }
        return s;
    }
}
