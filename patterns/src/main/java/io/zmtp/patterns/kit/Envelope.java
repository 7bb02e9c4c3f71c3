package io.zmtp.patterns.kit;

import io.zmtp.wire.FrameText;
import io.zmtp.wire.ZmtpMessage;

/**
 * The request-reply envelope of chapter 3 of the guide: zero or more address frames ending in
 * an empty delimiter frame, then the body. Workers split a request here, keep the envelope and
 * put it back in front of their reply.
 */
public final class Envelope {
    private Envelope() {
    }

    /** The index of the first empty frame (the delimiter), or -1 when there is none. */
    public static int delimiter(ZmtpMessage msg) {
        for (int i = 0; i < msg.size(); i++) {
            if (msg.isFrameEmpty(i)) {
                return i;
            }
        }
        return -1;
    }

    /** Whether the message is one frame holding exactly {@code signal} (a PPP READY or HEARTBEAT). */
    public static boolean isSignal(ZmtpMessage msg, int from, byte signal) {
        return msg.size() == from + 1 && msg.frame(from).readableBytes() == 1
                && msg.frame(from).getByte(msg.frame(from).readerIndex()) == signal;
    }

    /** The frames from {@code from} on, for logs and event lines: text when printable, hex otherwise. */
    public static String describe(ZmtpMessage msg, int from) {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < msg.size(); i++) {
            if (i > from) {
                sb.append(' ');
            }
            sb.append(FrameText.describe(msg.frame(i)));
        }
        return sb.toString();
    }

    /** Every frame of the message, described. */
    public static String describe(ZmtpMessage msg) {
        return describe(msg, 0);
    }
}
