package io.zmtp.patterns.titanic.sqlite;

import io.zmtp.wire.Frames;

import java.util.Arrays;

/**
 * A list of frames as one byte array, as the store keeps bodies and replies: the number of frames,
 * then each frame's length and bytes, numbers as unsigned LEB128 varints (one byte below 128).
 */
final class FrameListCodec {
    private FrameListCodec() {
    }

    /** The frames as one array. */
    static byte[] encode(Frames frames) {
        long size = varintSize(frames.size());
        for (byte[] f : frames) {
            size += varintSize(f.length) + f.length;
        }
        if (size > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("frames too large to store: " + size + " bytes");
        }
        byte[] out = new byte[(int) size];
        int pos = putVarint(out, 0, frames.size());
        for (byte[] f : frames) {
            pos = putVarint(out, pos, f.length);
            System.arraycopy(f, 0, out, pos, f.length);
            pos += f.length;
        }
        return out;
    }

    /** The frames of an array made by {@link #encode}; {@link IllegalStateException} if it is not one. */
    static Frames decode(byte[] data) {
        int[] pos = {0};
        int count = getVarint(data, pos);
        if (count > data.length) {
            throw corrupt("frame count " + count);
        }
        byte[][] frames = new byte[count][];
        for (int i = 0; i < count; i++) {
            int len = getVarint(data, pos);
            if (len > data.length - pos[0]) {
                throw corrupt("frame of " + len + " bytes past the end");
            }
            frames[i] = Arrays.copyOfRange(data, pos[0], pos[0] + len);
            pos[0] += len;
        }
        if (pos[0] != data.length) {
            throw corrupt((data.length - pos[0]) + " bytes after the last frame");
        }
        return Frames.of(frames);
    }

    private static int varintSize(int v) {
        int n = 1;
        while ((v & ~0x7F) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    private static int putVarint(byte[] out, int pos, int v) {
        while ((v & ~0x7F) != 0) {
            out[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out[pos++] = (byte) v;
        return pos;
    }

    private static int getVarint(byte[] data, int[] pos) {
        int v = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (pos[0] >= data.length) {
                throw corrupt("truncated length");
            }
            int b = data[pos[0]++] & 0xFF;
            v |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                if (v < 0) {
                    throw corrupt("length out of range");
                }
                return v;
            }
        }
        throw corrupt("length too long");
    }

    private static IllegalStateException corrupt(String what) {
        return new IllegalStateException("stored frames are corrupt: " + what);
    }
}
