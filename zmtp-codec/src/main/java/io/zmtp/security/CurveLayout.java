package io.zmtp.security;

import java.nio.charset.StandardCharsets;

/**
 * The facts of CURVE on the wire (26/CurveZMQ) that the client's and the server's handshakes and
 * the frame cipher share: command names, nonce prefixes, data sizes, and how a nonce is made.
 */
final class CurveLayout {
    static final String NAME = "CURVE";

    static final byte[] HELLO_NONCE = ascii("CurveZMQHELLO---");
    static final byte[] INITIATE_NONCE = ascii("CurveZMQINITIATE");
    static final byte[] READY_NONCE = ascii("CurveZMQREADY---");
    static final byte[] MESSAGE_C_NONCE = ascii("CurveZMQMESSAGEC");
    static final byte[] MESSAGE_S_NONCE = ascii("CurveZMQMESSAGES");
    static final byte[] WELCOME_NONCE = ascii("WELCOME-");
    static final byte[] COOKIE_NONCE = ascii("COOKIE--");
    static final byte[] VOUCH_NONCE = ascii("VOUCH---");

    static final String HELLO = "HELLO";
    static final String WELCOME = "WELCOME";
    static final String INITIATE = "INITIATE";
    static final String MESSAGE = "MESSAGE";

    /** Data sizes (after the command name): HELLO 200, WELCOME 168, INITIATE >= 257, READY >= 30 on the wire. */
    static final int HELLO_DATA = 194;
    static final int HELLO_PADDING = 72;
    static final int WELCOME_DATA = 160;
    static final int INITIATE_MIN_DATA = 248;
    static final int READY_MIN_DATA = 24;
    static final int COOKIE_SIZE = 96;

    private CurveLayout() {
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** A 24-byte nonce: {@code prefix} then {@code tail} (the rest). */
    static byte[] nonce(byte[] prefix, byte[] tail) {
        byte[] n = new byte[CryptoBox.NONCE_BYTES];
        System.arraycopy(prefix, 0, n, 0, prefix.length);
        System.arraycopy(tail, 0, n, prefix.length, CryptoBox.NONCE_BYTES - prefix.length);
        return n;
    }

    /** A 24-byte nonce: a 16-byte {@code prefix} then a short nonce (big-endian). */
    static byte[] nonce(byte[] prefix, long shortNonce) {
        byte[] n = new byte[CryptoBox.NONCE_BYTES];
        System.arraycopy(prefix, 0, n, 0, 16);
        putLong(n, 16, shortNonce);
        return n;
    }

    static void putLong(byte[] b, int off, long v) {
        for (int i = 7; i >= 0; i--) {
            b[off + i] = (byte) v;
            v >>>= 8;
        }
    }
}
