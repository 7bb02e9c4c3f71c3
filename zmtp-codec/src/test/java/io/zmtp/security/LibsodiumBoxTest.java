package io.zmtp.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.zmtp.wire.ZmtpProtocolException;
import io.zmtp.wire.ZmtpWire;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CURVE's MESSAGE boxes through libsodium ({@link Libsodium}) are BouncyCastle's ({@link CryptoBox})
 * byte for byte, open each other's, refuse a forged box without decrypting it, and are not used
 * where they cannot be (no JNA, turned off, a buffer without an address, a small frame).
 */
class LibsodiumBoxTest {
    static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
    static final long FIRST_NONCE = 5;

    final byte[] key = new byte[32];
    final List<CurveFrameCipher> ciphers = new ArrayList<>();
    final List<ByteBuf> buffers = new ArrayList<>();

    LibsodiumBoxTest() {
        new Random(34).nextBytes(key);
    }

    @AfterEach
    void release() {
        ciphers.forEach(CurveFrameCipher::close);
        buffers.forEach(ByteBuf::release);
    }

    /** A client cipher that sends (nonces from {@link #FIRST_NONCE}), or a server cipher that receives them. */
    CurveFrameCipher cipher(boolean client, boolean libsodium) {
        CurveFrameCipher c = new CurveFrameCipher(ALLOC, new CryptoBox(), key, client, FIRST_NONCE, FIRST_NONCE - 1, libsodium);
        ciphers.add(c);
        return c;
    }

    ByteBuf direct(int capacity) {
        ByteBuf b = ALLOC.directBuffer(capacity);
        buffers.add(b);
        return b;
    }

    static byte[] body(int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        return b;
    }

    /** The whole wire frame of one MESSAGE carrying {@code body} with MORE set. */
    ByteBuf seal(CurveFrameCipher sender, byte[] body) {
        ByteBuf out = direct(sender.wireSize(body.length));
        sender.encrypt(ZmtpWire.FLAG_MORE, Unpooled.wrappedBuffer(body), out);
        return out;
    }

    /** Opens a wire frame {@link #seal} made, where it lies; returns the frame's flags and body. */
    static byte[] open(CurveFrameCipher receiver, ByteBuf frame) throws ZmtpProtocolException {
        int header = frame.getByte(0) == 0 ? 2 : 9;          // flags 0x00 short, 0x02 long
        int index = header + 8;                              // after the command name
        int flags = receiver.openInPlace(frame, index, frame.writerIndex() - index);
        return ByteBufUtil.getBytes(frame, flags, frame.writerIndex() - flags);
    }

    /** {@link #open}'s body alone, without the flags byte. */
    static byte[] openBody(CurveFrameCipher receiver, ByteBuf frame) throws ZmtpProtocolException {
        byte[] flagsAndBody = open(receiver, frame);
        return Arrays.copyOfRange(flagsAndBody, 1, flagsAndBody.length);
    }

    /** The readable bytes of {@code frame} written into {@code into}. */
    static ByteBuf copy(ByteBuf frame, ByteBuf into) {
        return into.writeBytes(frame, frame.readerIndex(), frame.readableBytes());
    }

    @Test
    void libsodiumLoadsOnTheMachinesTheTestsRunOn() {
        // scripts/install-test-deps.sh installs it (libzmq3-dev depends on libsodium-dev)
        assertTrue(Libsodium.available(), "libsodium unavailable: " + Libsodium.unavailableBecause());
        assertTrue(cipher(true, true).usesLibsodium());
        assertFalse(cipher(true, false).usesLibsodium());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 100, Libsodium.DEFAULT_FROM - 1, Libsodium.DEFAULT_FROM, Libsodium.DEFAULT_FROM + 1,
            1000, 4096, 70_000})
    void bothMakeTheSameBoxesAndOpenEachOthers(int size) throws ZmtpProtocolException {
        CurveFrameCipher nativeSender = cipher(true, true);
        CurveFrameCipher javaSender = cipher(true, false);
        CurveFrameCipher nativeReceiver = cipher(false, true);
        CurveFrameCipher javaReceiver = cipher(false, false);
        for (int i = 0; i < 3; i++) {                        // three nonces in a row
            byte[] body = body(size + i);
            ByteBuf fromNative = seal(nativeSender, body);
            ByteBuf fromJava = seal(javaSender, body);
            assertEquals(fromJava, fromNative, "the same wire frame, " + (size + i) + " bytes");
            byte[] expected = new byte[1 + body.length];
            expected[0] = (byte) ZmtpWire.FLAG_MORE;
            System.arraycopy(body, 0, expected, 1, body.length);
            assertArrayEquals(expected, open(javaReceiver, fromNative));
            assertArrayEquals(expected, open(nativeReceiver, fromJava));
        }
    }

    @Test
    void aForgedLargeBoxIsRefusedBeforeAnythingIsDecrypted() throws ZmtpProtocolException {
        CurveFrameCipher sender = cipher(true, true);
        CurveFrameCipher receiver = cipher(false, true);
        byte[] body = body(4096);
        ByteBuf frame = seal(sender, body);
        ByteBuf forged = copy(frame, direct(frame.readableBytes()));
        int last = forged.writerIndex() - 1;
        forged.setByte(last, forged.getByte(last) ^ 1);      // one bit of the ciphertext
        ByteBuf before = forged.copy();
        buffers.add(before);
        ZmtpProtocolException e = assertThrows(ZmtpProtocolException.class, () -> open(receiver, forged));
        assertTrue(e.getMessage().contains("fails authentication"), e.getMessage());
        assertEquals(before, forged, "libsodium checks the tag first: the ciphertext is left as it came");
        // the forged box did not move the nonce counter: the authentic one with its nonce opens
        assertArrayEquals(body, openBody(receiver, frame));
    }

    @Test
    void aRangePastTheBufferIsRefusedBeforeLibsodiumSeesIt() {
        CurveFrameCipher sender = cipher(true, true);
        CurveFrameCipher receiver = cipher(false, true);
        ByteBuf frame = seal(sender, body(4096));
        int index = 9 + 8;                                   // a long frame's header, the name
        int past = frame.capacity() - index + 64;
        assertThrows(IndexOutOfBoundsException.class, () -> receiver.openInPlace(frame, index, past));
    }

    @Test
    void aBufferWithoutAnAddressIsOpenedByBouncyCastle() throws ZmtpProtocolException {
        CurveFrameCipher sender = cipher(true, true);
        CurveFrameCipher receiver = cipher(false, true);
        byte[] body = body(4096);
        ByteBuf frame = seal(sender, body);
        ByteBuf heap = copy(frame, Unpooled.buffer(frame.readableBytes()));
        buffers.add(heap);
        assertFalse(heap.hasMemoryAddress());
        assertArrayEquals(body, openBody(receiver, heap));
    }

    @Test
    void aClosedCipherSealsNothing() {
        CurveFrameCipher sender = cipher(true, true);
        sender.close();
        assertThrows(IllegalStateException.class, () -> seal(sender, body(4096)));
    }

    // ------------------------------------------------------------------ when it is not used

    @Test
    void withoutJnaOnTheClassPathItSaysSoAndIsNotUsed() throws Exception {
        assertEquals(false, freshAvailable(null, true));
        assertTrue(freshUnavailableBecause(null, true).contains("JNA is not available"),
                freshUnavailableBecause(null, true));
    }

    @Test
    void thePropertyTurnsItOff() throws Exception {
        assertEquals(false, freshAvailable("false", false));
        assertEquals(Libsodium.PROPERTY + "=false", freshUnavailableBecause("false", false));
        assertEquals(true, freshAvailable("true", false));
    }

    static Object freshAvailable(String property, boolean hideJna) throws Exception {
        return call(fresh(property, hideJna), "available");
    }

    static String freshUnavailableBecause(String property, boolean hideJna) throws Exception {
        return (String) call(fresh(property, hideJna), "unavailableBecause");
    }

    /** A static method of the fresh class (package-private, and in another run-time package). */
    static Object call(Class<?> c, String method) throws Exception {
        java.lang.reflect.Method m = c.getDeclaredMethod(method);
        m.setAccessible(true);
        return m.invoke(null);
    }

    /**
     * {@link Libsodium} loaded and initialised afresh, in a class loader of its own that sees the
     * system property {@code property} (null: unset) and, when {@code hideJna}, no JNA.
     */
    static Class<?> fresh(String property, boolean hideJna) throws Exception {
        ClassLoader app = LibsodiumBoxTest.class.getClassLoader();
        ClassLoader parent = new ClassLoader(app) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if ((hideJna && name.startsWith("com.sun.jna.")) || name.startsWith("io.zmtp.")) {
                    throw new ClassNotFoundException(name);  // io.zmtp: defined again below
                }
                return super.loadClass(name, resolve);
            }
        };
        URL classes = Libsodium.class.getProtectionDomain().getCodeSource().getLocation();
        String old = System.getProperty(Libsodium.PROPERTY);
        try (URLClassLoader loader = new URLClassLoader(new URL[]{classes}, parent)) {
            if (property == null) {
                System.clearProperty(Libsodium.PROPERTY);
            } else {
                System.setProperty(Libsodium.PROPERTY, property);
            }
            return Class.forName(Libsodium.class.getName(), true, loader);
        } finally {
            if (old == null) {
                System.clearProperty(Libsodium.PROPERTY);
            } else {
                System.setProperty(Libsodium.PROPERTY, old);
            }
        }
    }
}
