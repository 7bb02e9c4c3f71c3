package io.zmtp.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;

/**
 * Builds the bytes a peer puts on the wire, written out by hand from the specification (not with
 * the library's encoder), so codec tests compare against an independent rendering.
 */
public final class PeerBytes {
    private final ByteBuf buf = Unpooled.buffer();

    public static PeerBytes create() {
        return new PeerBytes();
    }

    /** A 64-byte greeting. {@code padding} fills bytes 1-8 (libzmq may put a length there). */
    public PeerBytes greeting(int major, int minor, String mechanism, boolean asServer, int padding) {
        buf.writeByte(0xFF);
        for (int i = 0; i < 8; i++) {
            buf.writeByte(padding);
        }
        buf.writeByte(0x7F);
        buf.writeByte(major);
        buf.writeByte(minor);
        byte[] m = mechanism.getBytes(StandardCharsets.US_ASCII);
        buf.writeBytes(m);
        buf.writeZero(20 - m.length);
        buf.writeByte(asServer ? 1 : 0);
        buf.writeZero(31);
        return this;
    }

    public PeerBytes greeting31() {
        return greeting(3, 1, "NULL", false, 0);
    }

    public PeerBytes greeting30() {
        return greeting(3, 0, "NULL", false, 0);
    }

    /** A command frame: name-length, name, data. */
    public PeerBytes command(String name, byte[] data) {
        int size = 1 + name.length() + data.length;
        if (size > 255) {
            buf.writeByte(0x06);
            buf.writeLong(size);
        } else {
            buf.writeByte(0x04);
            buf.writeByte(size);
        }
        buf.writeByte(name.length());
        buf.writeBytes(name.getBytes(StandardCharsets.US_ASCII));
        buf.writeBytes(data);
        return this;
    }

    /** READY with properties given as name, value, name, value... */
    public PeerBytes ready(String... props) {
        return command("READY", properties(props));
    }

    public static byte[] properties(String... props) {
        ByteBuf p = Unpooled.buffer();
        for (int i = 0; i < props.length; i += 2) {
            p.writeByte(props[i].length());
            p.writeBytes(props[i].getBytes(StandardCharsets.US_ASCII));
            byte[] v = props[i + 1].getBytes(StandardCharsets.UTF_8);
            p.writeInt(v.length);
            p.writeBytes(v);
        }
        byte[] out = new byte[p.readableBytes()];
        p.readBytes(out);
        return out;
    }

    /** A data frame, short or long as its size requires. */
    public PeerBytes frame(boolean more, byte[] body) {
        int flags = more ? 0x01 : 0x00;
        if (body.length > 255) {
            buf.writeByte(flags | 0x02);
            buf.writeLong(body.length);
        } else {
            buf.writeByte(flags);
            buf.writeByte(body.length);
        }
        buf.writeBytes(body);
        return this;
    }

    public PeerBytes frame(boolean more, String body) {
        return frame(more, body.getBytes(StandardCharsets.UTF_8));
    }

    /** Any bytes. */
    public PeerBytes raw(int... bytes) {
        for (int b : bytes) {
            buf.writeByte(b);
        }
        return this;
    }

    public PeerBytes raw(byte[] bytes) {
        buf.writeBytes(bytes);
        return this;
    }

    public byte[] toArray() {
        byte[] out = new byte[buf.readableBytes()];
        buf.getBytes(buf.readerIndex(), out);
        return out;
    }

    public static byte[] hex(String hex) {
        String h = hex.replaceAll("\\s", "");
        byte[] out = new byte[h.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }
}
