package io.zmtp.security;

import io.zmtp.testing.PeerBytes;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CurveZMQ commands written out by hand from 26/CURVEZMQ's layouts, with {@link CryptoBox} (which
 * is checked against NaCl's vectors) as the only shared code: the tests' independent rendering of
 * what a libzmq peer sends, and their reader of what we send.
 */
final class CurveWire {
    private CurveWire() {
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    static byte[] longBytes(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    static byte[] nonce(String prefix, byte[] tail) {
        byte[] n = concat(ascii(prefix), tail);
        assertEquals(24, n.length);
        return n;
    }

    static byte[] nonce(String prefix16, long shortNonce) {
        return nonce(prefix16, longBytes(shortNonce));
    }

    static byte[] key(byte[] publicKey, byte[] secretKey) {
        byte[] k = new byte[32];
        assertTrue(CryptoBox.beforenm(k, publicKey, secretKey));
        return k;
    }

    static byte[] seal(byte[] key, byte[] nonce, byte[] plain) {
        byte[] box = new byte[plain.length + 16];
        new CryptoBox().seal(key, nonce, plain, 0, plain.length, box, 0);
        return box;
    }

    /** Opens a box or returns null. */
    static byte[] open(byte[] key, byte[] nonce, byte[] box) {
        byte[] plain = new byte[box.length - 16];
        return new CryptoBox().open(key, nonce, box, 0, box.length, plain, 0) ? plain : null;
    }

    static byte[] range(byte[] b, int from, int to) {
        return Arrays.copyOfRange(b, from, to);
    }

    /** HELLO's data (after the name): version, padding, C', short nonce, Box[64 zeros](C'->S). */
    static byte[] helloData(byte[] clientTransientPublic, byte[] clientTransientSecret, byte[] serverPublic,
                            long shortNonce) {
        byte[] box = seal(key(serverPublic, clientTransientSecret), nonce("CurveZMQHELLO---", shortNonce), new byte[64]);
        return concat(new byte[] {1, 0}, new byte[72], clientTransientPublic, longBytes(shortNonce), box);
    }

    /** The vouch: 16-byte nonce tail + Box[C' + S](C->S'). */
    static byte[] vouch(byte[] clientTransientPublic, byte[] serverPublic, byte[] clientSecret,
                        byte[] serverTransientPublic, byte[] tail16) {
        byte[] box = seal(key(serverTransientPublic, clientSecret), nonce("VOUCH---", tail16),
                concat(clientTransientPublic, serverPublic));
        return concat(tail16, box);
    }

    /** INITIATE's data: cookie, short nonce, Box[C + vouch + metadata](C'->S'). */
    static byte[] initiateData(byte[] cookie, long shortNonce, byte[] sessionKey, byte[] clientPublic, byte[] vouch,
                               byte[] metadata) {
        byte[] box = seal(sessionKey, nonce("CurveZMQINITIATE", shortNonce), concat(clientPublic, vouch, metadata));
        return concat(cookie, longBytes(shortNonce), box);
    }

    /** MESSAGE's data: short nonce, Box[flags + body]. */
    static byte[] messageData(byte[] sessionKey, boolean fromClient, long shortNonce, int innerFlags, byte[] body) {
        byte[] box = seal(sessionKey, nonce(fromClient ? "CurveZMQMESSAGEC" : "CurveZMQMESSAGES", shortNonce),
                concat(new byte[] {(byte) innerFlags}, body));
        return concat(longBytes(shortNonce), box);
    }

    /** A MESSAGE as libzmq sends it: a plain data frame holding 07 MESSAGE + data. */
    static byte[] messageFrame(byte[] sessionKey, boolean fromClient, long shortNonce, int innerFlags, byte[] body) {
        return PeerBytes.create().frame(false, concat(ascii("\u0007MESSAGE"),
                messageData(sessionKey, fromClient, shortNonce, innerFlags, body))).toArray();
    }

    /** A frame read back from the wire. */
    static final class Frame {
        final int flags;
        final byte[] body;

        Frame(int flags, byte[] body) {
            this.flags = flags;
            this.body = body;
        }

        boolean isCommand(String name) {
            return body.length > name.length() && body[0] == name.length()
                    && new String(body, 1, name.length(), StandardCharsets.US_ASCII).equals(name);
        }

        /** The bytes after the command name. */
        byte[] data() {
            return range(body, 1 + body[0], body.length);
        }
    }

    /** Splits wire bytes (after the greeting) into frames; all bytes must be whole frames. */
    static List<Frame> frames(byte[] wire) {
        List<Frame> out = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(wire);
        while (b.hasRemaining()) {
            int flags = b.get() & 0xFF;
            long size = (flags & 0x02) != 0 ? b.getLong() : (b.get() & 0xFF);
            byte[] body = new byte[(int) size];
            b.get(body);
            out.add(new Frame(flags, body));
        }
        return out;
    }

    /** Opens a MESSAGE we sent: returns inner flags byte + body, checking the layout. */
    static byte[] openMessage(Frame f, byte[] sessionKey, boolean fromClient, long expectedNonce) {
        assertEquals(0, f.flags & ~0x02, "the outer frame is a plain data frame, as libzmq sends MESSAGE");
        assertTrue(f.isCommand("MESSAGE"), "MESSAGE");
        assertTrue(f.body.length >= 33, "a MESSAGE is at least 33 bytes");
        byte[] data = f.data();
        assertEquals(expectedNonce, ByteBuffer.wrap(data).getLong(), "short nonce");
        byte[] plain = open(sessionKey, nonce(fromClient ? "CurveZMQMESSAGEC" : "CurveZMQMESSAGES", expectedNonce),
                range(data, 8, data.length));
        assertTrue(plain != null, "the MESSAGE box opens");
        return plain;
    }
}
