package io.zmtp.cli;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.zmtp.wire.ZmtpMessage;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * How {@code zmtp cat} turns a line into a message and a message into a line: one message per
 * line, frames separated by a delimiter (a tab by default). A line is bytes: it is split at each
 * occurrence of the delimiter's UTF-8 bytes, from the left, and never decoded as a whole.
 *
 * <p>Output, in the two text modes: a frame that is <em>plain text</em> is written as its bytes;
 * any other frame is written as {@code 0x} and its bytes in lowercase hex. A frame is plain text
 * when it is valid UTF-8 (the empty frame included) with no control character other than tab (U+0000 to
 * U+001F, U+007F to U+009F), no line or paragraph separator (U+2028, U+2029), does not start with
 * {@code 0x}, and does not run into the delimiter: the delimiter appended to it is first found
 * where it was appended (so it contains no delimiter, and with a delimiter such as {@code ::} it
 * does not end with {@code :}). So a tab is ordinary text under {@code -d '|'}, and a {@code |}
 * inside a frame makes it hex there; a line break is always hex.
 *
 * <p>Input, by mode:
 * <ul>
 * <li>{@link Mode#TEXT}: every frame is sent as typed, byte for byte; nothing is interpreted.</li>
 * <li>{@link Mode#ZERO_X}: a frame starting with {@code 0x} must be {@code 0x} and an even number
 *     of hex digits (either case), and is those bytes; any other frame is sent as typed. Every line
 *     printed in a text mode reads back as the frames received.</li>
 * <li>{@link Mode#HEX}: every frame is written and read as hex digits (an empty frame is empty).</li>
 * </ul>
 */
final class MessageLines implements LineFormat {
    /** How input frames are read (and, for HEX, how frames are printed). */
    enum Mode {
        /** Frames are sent as typed; frames that are not plain text are printed as 0x and hex. */
        TEXT,
        /** As TEXT, and an input frame written 0x and hex is those bytes: printed lines read back. */
        ZERO_X,
        /** Every frame is hex digits, both ways. */
        HEX
    }

    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] HEX_MARK = {'0', 'x'};

    private final String delimiter;
    private final byte[] delimiterBytes;
    private final Mode mode;

    MessageLines(String delimiter, Mode mode) {
        if (delimiter.isEmpty()) {
            throw new IllegalArgumentException("the frame delimiter must not be empty");
        }
        if (delimiter.indexOf('\n') >= 0 || delimiter.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("the frame delimiter must not contain a line break");
        }
        if (delimiter.chars().anyMatch(c -> Character.digit(c, 16) >= 0 || c == 'x' || c == 'X')) {
            throw new IllegalArgumentException("the frame delimiter must not contain a hex digit or x "
                    + "(frames may be written in hex)");
        }
        this.delimiter = delimiter;
        this.delimiterBytes = delimiter.getBytes(StandardCharsets.UTF_8);
        this.mode = mode;
    }

    Mode mode() {
        return mode;
    }

    /** The message of one input line (UTF-8 text; see {@link #parse(byte[], int, int)}). */
    ZmtpMessage parse(String line) {
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        return parse(b, 0, b.length);
    }

    /**
     * The message of one input line, without its line break: every delimiter separates two frames
     * (none is dropped; an empty line is one empty frame). Throws IllegalArgumentException, having
     * made nothing, when a frame is not what the mode reads.
     */
    @Override
    public ZmtpMessage parse(byte[] line, int from, int to) {
        List<byte[]> frames = new ArrayList<>();
        int start = from;
        int i;
        while ((i = delimiterAt(line, start, to)) >= 0) {
            frames.add(parseFrame(line, start, i));
            start = i + delimiterBytes.length;
        }
        frames.add(parseFrame(line, start, to));
        return ZmtpMessage.of(frames.toArray(new byte[0][]));
    }

    /** Where the first delimiter in {@code line[from, to)} starts, or -1 if there is none. */
    int delimiterAt(byte[] line, int from, int to) {
        for (int i = from; i <= to - delimiterBytes.length; i++) {
            if (startsWith(line, i, to, delimiterBytes)) {
                return i;
            }
        }
        return -1;
    }

    /** The delimiter's length in bytes. */
    int delimiterLength() {
        return delimiterBytes.length;
    }

    /** The delimiter between frames, as printed. */
    String delimiter() {
        return delimiter;
    }

    /** One frame given as a command-line argument (a subscription), read as input frames are. */
    byte[] parseFrame(String frame) {
        byte[] b = frame.getBytes(StandardCharsets.UTF_8);
        return parseFrame(b, 0, b.length);
    }

    /** One input frame, {@code b[from, to)}, read as this mode reads frames. */
    byte[] parseFrame(byte[] b, int from, int to) {
        switch (mode) {
            case HEX:
                return hex(b, from, to, "a frame");
            case ZERO_X:
                if (startsWith(b, from, to, HEX_MARK)) {
                    return hex(b, from + 2, to, "a frame starting with 0x");
                }
                return Arrays.copyOfRange(b, from, to);
            default:
                return Arrays.copyOfRange(b, from, to);
        }
    }

    private static byte[] hex(byte[] b, int from, int to, String what) {
        String digits = new String(b, from, to - from, StandardCharsets.ISO_8859_1);
        if ((digits.length() & 1) != 0 || !digits.chars().allMatch(c -> Character.digit(c, 16) >= 0 && c < 128)) {
            throw new IllegalArgumentException(what + " must be an even number of hex digits, not '"
                    + new String(b, from, to - from, StandardCharsets.UTF_8) + "'");
        }
        return HEX.parseHex(digits);
    }

    private static boolean startsWith(byte[] b, int at, int to, byte[] prefix) {
        if (to - at < prefix.length) {
            return false;
        }
        for (int k = 0; k < prefix.length; k++) {
            if (b[at + k] != prefix[k]) {
                return false;
            }
        }
        return true;
    }

    /** Whether typed text in TEXT mode looks like the hex form (sent as text all the same). */
    boolean looksLikeHex(ZmtpMessage m) {
        for (int i = 0; i < m.size(); i++) {
            ByteBuf f = m.frame(i);
            int n = f.readableBytes();
            if (n >= 4 && (n & 1) == 0 && f.getByte(f.readerIndex()) == '0' && f.getByte(f.readerIndex() + 1) == 'x'
                    && f.forEachByte(f.readerIndex() + 2, n - 2, c -> Character.digit(c, 16) >= 0) == -1) {
                return true;
            }
        }
        return false;
    }

    /** The line of a message, without a line break (the message stays the caller's). */
    @Override
    public String format(ZmtpMessage m) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < m.size(); i++) {
            if (i > 0) {
                sb.append(delimiter);
            }
            appendFrame(sb, m.frame(i));
        }
        return sb.toString();
    }

    /** One frame as this mode prints it (to name a routing id in a report). */
    String formatFrame(ByteBuf frame) {
        StringBuilder sb = new StringBuilder();
        appendFrame(sb, frame);
        return sb.toString();
    }

    private void appendFrame(StringBuilder sb, ByteBuf frame) {
        if (mode != Mode.HEX) {
            String text = plainText(frame);
            if (text != null) {
                sb.append(text);
                return;
            }
            sb.append("0x");
        }
        sb.append(ByteBufUtil.hexDump(frame));
    }

    /** The frame as text if it is plain text (see the class comment), else null. */
    private String plainText(ByteBuf frame) {
        String s;
        try {
            ByteBuffer b = frame.nioBuffer(frame.readerIndex(), frame.readableBytes());
            s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(b).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
        if (s.startsWith("0x") || (s + delimiter).indexOf(delimiter) != s.length()) {
            return null;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((Character.isISOControl(c) && c != '\t') || c == '\u2028' || c == '\u2029') {
                return null;
            }
        }
        return s;
    }
}
