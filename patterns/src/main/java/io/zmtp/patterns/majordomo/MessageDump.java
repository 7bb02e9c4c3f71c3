package io.zmtp.patterns.majordomo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.zmtp.wire.ZmtpMessage;

import java.nio.charset.StandardCharsets;

/**
 * Renders a message frame by frame as the guide's dump does: a rule, then one line per frame with
 * its size in brackets and its content, as text when every byte is printable, in hex otherwise.
 * <pre>
 * ----------------------------------------
 * [000]
 * [006] MDPW01
 * [001] 01
 * [004] echo
 * </pre>
 */
public final class MessageDump {
    private static final int MAX_SHOWN = 256;

    private MessageDump() {
    }

    /** The whole message, one line per frame after a rule, each line ending with a newline. */
    public static String format(ZmtpMessage msg) {
        StringBuilder sb = new StringBuilder(64 + 16 * msg.size());
        sb.append("----------------------------------------\n");
        for (int i = 0; i < msg.size(); i++) {
            ByteBuf f = msg.frame(i);
            sb.append('[').append(String.format("%03d", f.readableBytes())).append(']');
            if (f.isReadable()) {
                sb.append(' ').append(frameText(f));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** One frame: text when printable, hex otherwise, cut after 256 bytes. */
    public static String frameText(ByteBuf f) {
        int n = f.readableBytes();
        int shown = Math.min(n, MAX_SHOWN);
        boolean text = true;
        for (int i = 0; i < shown; i++) {
            byte b = f.getByte(f.readerIndex() + i);
            if (b < 0x20 || b > 0x7e) {
                text = false;
                break;
            }
        }
        String s = text ? f.toString(f.readerIndex(), shown, StandardCharsets.US_ASCII)
                : ByteBufUtil.hexDump(f, f.readerIndex(), shown);
        return n > shown ? s + "..." : s;
    }
}
