package io.zmtp.interop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Messages as lists of byte arrays, for the socket-level interop tests. */
final class ByteMessages {
    static final long T = 10_000;
    static final byte[] EMPTY = new byte[0];

    private ByteMessages() {
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A message of UTF-8 frames. */
    static List<byte[]> msg(String... frames) {
        List<byte[]> l = new ArrayList<>();
        for (String f : frames) {
            l.add(b(f));
        }
        return l;
    }

    /** {@code prefix} frames followed by {@code body} frames. */
    static List<byte[]> concat(List<byte[]> prefix, List<byte[]> body) {
        List<byte[]> l = new ArrayList<>(prefix);
        l.addAll(body);
        return l;
    }

    /** A subscription message as XSUB sends and XPUB shows it: byte 1 (or 0 to cancel), then the prefix. */
    static List<byte[]> subscription(boolean subscribe, String prefix) {
        byte[] p = b(prefix);
        byte[] m = new byte[p.length + 1];
        m[0] = (byte) (subscribe ? 1 : 0);
        System.arraycopy(p, 0, m, 1, p.length);
        return List.of(m);
    }

    /** Renders a message for assertion messages: printable frames as text, others as hex. */
    static String show(List<byte[]> m) {
        if (m == null) {
            return "(nothing)";
        }
        List<String> l = new ArrayList<>();
        for (byte[] f : m) {
            boolean printable = true;
            for (byte x : f) {
                printable &= x >= 0x20 && x < 0x7f;
            }
            l.add(printable ? '"' + new String(f, StandardCharsets.US_ASCII) + '"'
                    : "0x" + HexFormat.of().formatHex(f));
        }
        return l.toString();
    }

    static boolean same(List<byte[]> a, List<byte[]> b) {
        if (a == null || b == null || a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    static void assertMessage(List<byte[]> expected, List<byte[]> actual, String what) {
        assertNotNull(actual, what + ": no message arrived, expected " + show(expected));
        assertEquals(show(expected), show(actual), what);
        assertEquals(true, same(expected, actual), what + ": bytes differ");
    }

    /** Waits until {@code condition} holds, failing after {@link #T} ms. */
    static void eventually(Supplier<String> what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + T * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what.get());
            }
            pause();
        }
    }

    static void eventually(String what, BooleanSupplier condition) {
        eventually(() -> what, condition);
    }

    /** A short pause between polls of a condition. */
    static void pause() {
        io.zmtp.testing.Await.pause();
    }
}
