package io.zmtp.security;

/**
 * Z85 (32/Z85), the text encoding ZeroMQ uses for CURVE keys: every 4 bytes become 5 printable
 * characters, so a 32-byte key is 40 characters. Compatible with libzmq's {@code zmq_z85_encode}
 * and {@code zmq_z85_decode}.
 */
public final class Z85 {
    private static final String ALPHABET =
            "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
    private static final byte[] DECODE = new byte[128];

    static {
        java.util.Arrays.fill(DECODE, (byte) -1);
        for (int i = 0; i < ALPHABET.length(); i++) {
            DECODE[ALPHABET.charAt(i)] = (byte) i;
        }
    }

    private Z85() {
    }

    /**
     * Encodes {@code data}, whose length must be a multiple of 4.
     *
     * @throws IllegalArgumentException when it is not
     */
    public static String encode(byte[] data) {
        if (data.length % 4 != 0) {
            throw new IllegalArgumentException("Z85 encodes a multiple of 4 bytes, not " + data.length);
        }
        char[] out = new char[data.length / 4 * 5];
        int o = 0;
        for (int i = 0; i < data.length; i += 4) {
            long value = ((data[i] & 0xFFL) << 24) | ((data[i + 1] & 0xFF) << 16)
                    | ((data[i + 2] & 0xFF) << 8) | (data[i + 3] & 0xFF);
            for (int d = 4; d >= 0; d--) {
                out[o + d] = ALPHABET.charAt((int) (value % 85));
                value /= 85;
            }
            o += 5;
        }
        return new String(out);
    }

    /**
     * Decodes {@code text}, whose length must be a multiple of 5.
     *
     * @throws IllegalArgumentException when it is not, or it holds a character outside the Z85
     *         alphabet, or a group of 5 characters is above 2^32 - 1. The message never repeats
     *         the text (it may be a secret key).
     */
    public static byte[] decode(CharSequence text) {
        if (text.length() % 5 != 0) {
            throw new IllegalArgumentException("Z85 text length must be a multiple of 5, not " + text.length());
        }
        byte[] out = new byte[text.length() / 5 * 4];
        int o = 0;
        for (int i = 0; i < text.length(); i += 5) {
            long value = 0;
            for (int d = 0; d < 5; d++) {
                char c = text.charAt(i + d);
                int digit = c < 128 ? DECODE[c] : -1;
                if (digit < 0) {
                    throw new IllegalArgumentException("not a Z85 character at position " + (i + d));
                }
                value = value * 85 + digit;
            }
            if (value > 0xFFFFFFFFL) {
                throw new IllegalArgumentException("Z85 group at position " + i + " is above 2^32-1");
            }
            out[o++] = (byte) (value >>> 24);
            out[o++] = (byte) (value >>> 16);
            out[o++] = (byte) (value >>> 8);
            out[o++] = (byte) value;
        }
        return out;
    }
}
