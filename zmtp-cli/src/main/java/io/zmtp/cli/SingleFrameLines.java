package io.zmtp.cli;

import io.netty.buffer.Unpooled;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * {@code zmtp cat}'s lines for the thread-safe types (CLIENT, SERVER, RADIO, DISH, SCATTER,
 * GATHER, PEER, CHANNEL), whose messages are one frame each. The frame is read and printed as
 * {@link MessageLines} reads and prints any frame; in front of it, separated by the delimiter:
 * <ul>
 * <li>SERVER and PEER: the routing id of the peer, in decimal (1 to 4294967295, libzmq's
 *     unsigned 32-bit id) in every mode, both ways: {@code 1804289384<TAB>hello};</li>
 * <li>DISH prints and RADIO reads (unless {@code --group} gives the group of every line) the
 *     group, written as a frame is (so hex with {@code --hex}); it must be 1 to 255 bytes of
 *     UTF-8: {@code weather<TAB>sunny}. What a DISH prints reads back into a RADIO as it is;</li>
 * <li>the others: nothing, the line is the frame.</li>
 * </ul>
 * A line with one delimiter more than that would be a second frame, which these types cannot send:
 * it is refused (a frame holding the delimiter is written in hex, as {@link MessageLines} prints it).
 */
final class SingleFrameLines implements LineFormat {
    /** What leads the frame in a line. */
    enum Lead {
        /** Nothing: the line is the frame. */
        NONE,
        /** The routing id of the peer the message came from or goes to (SERVER, PEER). */
        ROUTING_ID,
        /** The message's group (DISH's output, RADIO's input). */
        GROUP
    }

    /** libzmq's limit on a group's length in bytes (ZMQ_GROUP_MAX_LENGTH). */
    static final int MAX_GROUP_BYTES = 255;

    private final MessageLines frames;
    private final SocketType type;
    private final Lead lead;
    private final String fixedGroup;

    /**
     * @param fixedGroup RADIO's {@code --group}: the group of every line sent, each line being the
     *     frame alone (null: a RADIO line leads with its group)
     */
    SingleFrameLines(MessageLines frames, SocketType type, String fixedGroup) {
        if (!type.isSingleFrame()) {
            throw new IllegalArgumentException(type + " messages are not single frames");
        }
        this.frames = frames;
        this.type = type;
        this.fixedGroup = fixedGroup;
        this.lead = switch (type) {
            case SERVER, PEER -> Lead.ROUTING_ID;
            case DISH -> Lead.GROUP;
            case RADIO -> fixedGroup == null ? Lead.GROUP : Lead.NONE;
            default -> Lead.NONE;
        };
    }

    Lead lead() {
        return lead;
    }

    @Override
    public ZmtpMessage parse(byte[] line, int from, int to) {
        int bodyFrom = from;
        int id = 0;
        String group = fixedGroup;
        if (lead != Lead.NONE) {
            int d = frames.delimiterAt(line, from, to);
            if (d < 0) {
                throw new IllegalArgumentException("a " + type + " line is " + leadName() + ", the delimiter, then "
                        + "the message");
            }
            if (lead == Lead.ROUTING_ID) {
                id = routingId(new String(line, from, d - from, StandardCharsets.UTF_8));
            } else {
                group = group(frames.parseFrame(line, from, d));
            }
            bodyFrom = d + frames.delimiterLength();
        }
        if (frames.delimiterAt(line, bodyFrom, to) >= 0) {
            throw new IllegalArgumentException(type + " sends one frame per message: the line has a delimiter "
                    + (lead == Lead.NONE ? "" : "after " + leadName() + " ") + "(a frame holding it is written "
                    + "0x and hex, with --0x)");
        }
        ZmtpMessage m = ZmtpMessage.of(frames.parseFrame(line, bodyFrom, to));
        if (id != 0) {
            m.routingId(id);
        }
        if (group != null) {
            m.group(group);
        }
        return m;
    }

    @Override
    public String format(ZmtpMessage m) {
        String body = frames.formatFrame(m.first());
        return switch (lead) {
            case ROUTING_ID -> Integer.toUnsignedString(m.routingId()) + frames.delimiter() + body;
            case GROUP -> {
                String g = m.group();
                yield (g == null ? "" : frames.formatFrame(Unpooled.wrappedBuffer(g.getBytes(StandardCharsets.UTF_8))))
                        + frames.delimiter() + body;
            }
            case NONE -> body;
        };
    }

    private String leadName() {
        return lead == Lead.ROUTING_ID ? "the routing id of a peer (a number)" : "the group";
    }

    /** A routing id as typed: 1 to 4294967295, in decimal. */
    static int routingId(String typed) {
        try {
            int id = Integer.parseUnsignedInt(typed);
            if (id != 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("a routing id is a number from 1 to 4294967295, not '" + typed + "'");
    }

    /** A group as given: 1 to 255 bytes of valid UTF-8. */
    static String group(byte[] bytes) {
        if (bytes.length == 0 || bytes.length > MAX_GROUP_BYTES) {
            throw new IllegalArgumentException("a group is 1 to " + MAX_GROUP_BYTES + " bytes, not " + bytes.length);
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("a group is UTF-8 text");
        }
    }

    /** A group given on the command line (--group, --join): 1 to 255 bytes once UTF-8 encoded. */
    static String group(String given) {
        return group(given.getBytes(StandardCharsets.UTF_8));
    }
}
