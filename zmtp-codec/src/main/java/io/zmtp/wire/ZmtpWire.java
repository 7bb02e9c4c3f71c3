package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;

/** Byte-level constants and encoders of ZMTP 3.x frames and commands (23/ZMTP, 37/ZMTP). */
public final class ZmtpWire {
    public static final int FLAG_MORE = 0x01;
    public static final int FLAG_LONG = 0x02;
    public static final int FLAG_COMMAND = 0x04;
    public static final int FLAGS_RESERVED = 0xF8;

    public static final int GREETING_SIZE = 64;
    /** Signature (10 bytes) plus major version: what is sent before the rest of the greeting. */
    public static final int GREETING_FIRST_PART = 11;
    public static final int MECHANISM_FIELD_SIZE = 20;

    public static final String READY = "READY";
    public static final String ERROR = "ERROR";
    public static final String PING = "PING";
    public static final String PONG = "PONG";
    public static final String SUBSCRIBE = "SUBSCRIBE";
    public static final String CANCEL = "CANCEL";
    /** ZMTP 3.1's RADIO/DISH commands (RFC 48): a DISH joins or leaves a group; the rest of the body is the group. */
    public static final String JOIN = "JOIN";
    public static final String LEAVE = "LEAVE";
    /** A RADIO/DISH group is 1 to this many bytes (libzmq's ZMQ_GROUP_MAX_LENGTH). */
    public static final int MAX_GROUP_LENGTH = 255;

    /** PONG echoes at most this much of a PING's context (37/ZMTP). */
    public static final int MAX_PING_CONTEXT = 16;

    private ZmtpWire() {
    }

    /** The size of a frame header for a body of {@code size} bytes. */
    public static int headerSize(long size) {
        return size > 255 ? 9 : 2;
    }

    /** Writes a frame header: flags (LONG added when needed) and size. */
    public static void writeFrameHeader(ByteBuf out, int flags, long size) {
        if (size > 255) {
            out.writeByte(flags | FLAG_LONG);
            out.writeLong(size);
        } else {
            out.writeByte(flags & ~FLAG_LONG);
            out.writeByte((int) size);
        }
    }

    /** The wire size of a command frame named {@code name} with {@code dataSize} bytes of data. */
    public static int commandFrameSize(String name, int dataSize) {
        int body = 1 + name.length() + dataSize;
        return headerSize(body) + body;
    }

    /** Writes a whole command frame: header, name-length, name, then {@code data}'s readable bytes. */
    public static void writeCommand(ByteBuf out, String name, ByteBuf data) {
        int dataSize = data == null ? 0 : data.readableBytes();
        writeFrameHeader(out, FLAG_COMMAND, 1 + name.length() + dataSize);
        out.writeByte(name.length());
        out.writeCharSequence(name, StandardCharsets.US_ASCII);
        if (dataSize > 0) {
            out.writeBytes(data, data.readerIndex(), dataSize);
        }
    }

    /** The body of an ERROR command: the reason's length (at most 255) and its first 255 ASCII bytes. */
    static ByteBuf errorBody(String reason) {
        byte[] r = reason.getBytes(StandardCharsets.US_ASCII);
        int len = Math.min(255, r.length);
        ByteBuf b = Unpooled.buffer(1 + len);
        b.writeByte(len);
        b.writeBytes(r, 0, len);
        return b;
    }

    /** The 11 bytes sent first: signature (0xFF, 8 padding bytes, 0x7F) and major version 3. */
    public static void writeGreetingStart(ByteBuf out) {
        out.writeBytes(GREETING_START);
    }

    /** Signature and major version 3: the same eleven bytes on every connection. */
    private static final byte[] GREETING_START = {(byte) 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 3};

    /** The greeting's first part, for a writer that copies it. */
    static byte[] greetingStart() {
        return GREETING_START;
    }

    /** The remaining 53 bytes: minor version, mechanism (NUL padded), as-server, filler. */
    public static void writeGreetingRest(ByteBuf out, int minor, String mechanism, boolean asServer) {
        out.writeByte(minor);
        byte[] m = mechanism.getBytes(StandardCharsets.US_ASCII);
        if (m.length > MECHANISM_FIELD_SIZE) {
            throw new IllegalArgumentException("mechanism name too long: " + mechanism);
        }
        out.writeBytes(m);
        out.writeZero(MECHANISM_FIELD_SIZE - m.length);
        out.writeByte(asServer ? 1 : 0);
        out.writeZero(31);
    }
}
