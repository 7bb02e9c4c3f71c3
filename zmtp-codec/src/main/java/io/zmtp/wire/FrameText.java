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
}
