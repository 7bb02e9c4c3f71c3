package io.zmtp.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static io.zmtp.testing.PeerBytes.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** crypto_box against NaCl's published test vectors (tests/box.c, box2.c, scalarmult*.c, core1.c). */
class CryptoBoxTest {
    static final byte[] ALICE_SK = hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    static final byte[] ALICE_PK = hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
    static final byte[] BOB_SK = hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
    static final byte[] BOB_PK = hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
    static final byte[] SHARED = hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
    static final byte[] FIRSTKEY = hex("1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389");
    static final byte[] NONCE = hex("69696ee955b62b73cd62bda875fc73d68219e0036b7a0b37");
    static final byte[] MESSAGE = hex("be075fc53c81f2d5cf141316ebeb0c7b5228c52a4c62cbd44b66849b64244ffc"
            + "e5ecbaaf33bd751a1ac728d45e6c61296cdc3c01233561f41db66cce314adb31"
            + "0e3be8250c46f06dceea3a7fa1348057e2f6556ad6b1318a024a838f21af1fde"
            + "048977eb48f59ffd4924ca1c60902e52f0a089bc76897040e082f937763848645e0705");
    /** NaCl's c without its 16 leading zero bytes: tag, then ciphertext. */
    static final byte[] BOX = hex("f3ffc7703f9400e52a7dfb4b3d3305d98e993b9f48681273c29650ba32fc76ce"
            + "48332ea7164d96a4476fb8c531a1186ac0dfc17c98dce87b4da7f011ec48c972"
            + "71d2c20f9b928fe2270d6fb863d51738b48eeee314a7cc8ab932164548e526ae"
            + "90224368517acfeabd6bb3732bc0e9da99832b61ca01b6de56244a9e88d5f9b3"
            + "7973f622a43d14a6599b1f654cb45a74e355a5");

    @Test
    void publicKeysFromSecretKeys() {
        assertArrayEquals(ALICE_PK, CryptoBox.publicKey(ALICE_SK));
        assertArrayEquals(BOB_PK, CryptoBox.publicKey(BOB_SK));
    }

    @Test
    void hsalsa20OfTheSharedPointIsFirstkey() {
        byte[] out = new byte[32];
        CryptoBox.hsalsa20(out, SHARED, new byte[16]);
        assertArrayEquals(FIRSTKEY, out);
    }

    @Test
    void beforenmGivesTheSameKeyFromBothSides() {
        byte[] k1 = new byte[32];
        byte[] k2 = new byte[32];
        assertTrue(CryptoBox.beforenm(k1, BOB_PK, ALICE_SK));
        assertTrue(CryptoBox.beforenm(k2, ALICE_PK, BOB_SK));
        assertArrayEquals(FIRSTKEY, k1);
        assertArrayEquals(FIRSTKEY, k2);
    }

    @Test
    void beforenmRefusesALowOrderPoint() {
        byte[] k = new byte[32];
        Arrays.fill(k, (byte) 7);
        assertFalse(CryptoBox.beforenm(k, new byte[32], ALICE_SK), "the all-zero point gives an all-zero secret");
        assertArrayEquals(new byte[32], k);
    }

    @Test
    void sealMatchesNaclBox() {
        byte[] c = new byte[MESSAGE.length + 16];
        new CryptoBox().seal(FIRSTKEY, NONCE, MESSAGE, 0, MESSAGE.length, c, 0);
        assertArrayEquals(BOX, c);
    }

    @Test
    void openMatchesNaclBoxOpenAndRefusesAnyTampering() {
        CryptoBox box = new CryptoBox();
        byte[] m = new byte[MESSAGE.length];
        assertTrue(box.open(FIRSTKEY, NONCE, BOX, 0, BOX.length, m, 0));
        assertArrayEquals(MESSAGE, m);
        for (int i : new int[] {0, 15, 16, BOX.length - 1}) {
            byte[] bad = BOX.clone();
            bad[i] ^= 1;
            byte[] out = new byte[MESSAGE.length];
            assertFalse(box.open(FIRSTKEY, NONCE, bad, 0, bad.length, out, 0), "flipped bit in byte " + i);
            assertArrayEquals(new byte[MESSAGE.length], out, "nothing is decrypted from a forged box");
        }
        byte[] otherNonce = NONCE.clone();
        otherNonce[23] ^= 1;
        assertFalse(box.open(FIRSTKEY, otherNonce, BOX, 0, BOX.length, m, 0));
        assertFalse(box.open(FIRSTKEY, NONCE, BOX, 0, 15, m, 0), "shorter than a tag");
    }

    @Test
    void bufferSealMatchesArraySealForEverySizeAroundAPiece() {
        Random r = new Random(3);
        CryptoBox box = new CryptoBox();
        for (int size : new int[] {0, 1, 7, 8, 31, 32, 63, 64, 222, 223, 224, 255, 256, 257, 479, 480, 4097, 9000, 100_000}) {
            byte[] body = new byte[size];
            r.nextBytes(body);
            byte[] plain = new byte[size + 1];
            plain[0] = 0x02;
            System.arraycopy(body, 0, plain, 1, size);
            byte[] expected = new byte[plain.length + 16];
            box.seal(FIRSTKEY, NONCE, plain, 0, plain.length, expected, 0);

            ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer(size + 3);
            ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(16);
            ByteBuf opened = PooledByteBufAllocator.DEFAULT.directBuffer(1);
            try {
                in.writeBytes(new byte[3]).readerIndex(3);
                in.writeBytes(body);
                out.writeByte(0xAB);
                box.seal(FIRSTKEY, NONCE, 0x02, in, out);
                assertEquals(3, in.readerIndex(), "the body's indexes are untouched");
                assertEquals(1 + expected.length, out.readableBytes());
                assertArrayEquals(expected, ByteBufUtil.getBytes(out, 1, expected.length), "size " + size);

                assertTrue(box.open(FIRSTKEY, NONCE, out, 1, expected.length, opened));
                assertArrayEquals(plain, ByteBufUtil.getBytes(opened));

                ByteBuf inPlace = out.copy();
                try {
                    assertTrue(box.openInPlace(FIRSTKEY, NONCE, inPlace, 1, expected.length));
                    assertArrayEquals(plain, ByteBufUtil.getBytes(inPlace, 17, plain.length), "opened in place");
                    inPlace.setBytes(0, out, 0, out.writerIndex());
                    int last = inPlace.writerIndex() - 1 - (size % 3 == 0 ? 0 : plain.length / 2);
                    inPlace.setByte(last, inPlace.getByte(last) ^ 0x01);
                    assertFalse(box.openInPlace(FIRSTKEY, NONCE, inPlace, 1, expected.length), "tampered, size " + size);
                    inPlace.setBytes(0, out, 0, 17);
                    inPlace.setByte(1, inPlace.getByte(1) ^ 0x01);
                    assertFalse(box.openInPlace(FIRSTKEY, NONCE, inPlace, 1, expected.length), "tag tampered");
                } finally {
                    inPlace.release();
                }

                out.setByte(out.writerIndex() - 1, out.getByte(out.writerIndex() - 1) ^ 0x80);
                opened.clear();
                assertFalse(box.open(FIRSTKEY, NONCE, out, 1, expected.length, opened));
                assertEquals(0, opened.readableBytes(), "nothing appended from a forged box");
            } finally {
                in.release();
                out.release();
                opened.release();
            }
        }
    }

    /**
     * A box that keeps its derived key between boxes of the same key and nonce prefix (a CURVE
     * connection's MESSAGEs) seals exactly as a new box does each time, and re-derives it when the
     * key or the prefix changes.
     */
    @Test
    void consecutiveBoxesOfOneConnectionMatchFreshBoxes() {
        Random r = new Random(7);
        CryptoBox kept = new CryptoBox();
        byte[] otherKey = FIRSTKEY.clone();
        otherKey[0] ^= 1;
        for (int i = 0; i < 200; i++) {
            byte[] key = i % 50 == 49 ? otherKey : FIRSTKEY;
            byte[] nonce = CurveLayout.nonce(i % 70 < 35 ? CurveLayout.MESSAGE_C_NONCE
                    : CurveLayout.MESSAGE_S_NONCE, i * 7919L);
            byte[] plain = new byte[r.nextInt(300)];
            r.nextBytes(plain);
            byte[] expected = new byte[plain.length + 16];
            new CryptoBox().seal(key, nonce, plain, 0, plain.length, expected, 0);
            byte[] got = new byte[plain.length + 16];
            kept.seal(key, nonce, plain, 0, plain.length, got, 0);
            assertArrayEquals(expected, got, "box " + i);
            byte[] back = new byte[plain.length];
            assertTrue(kept.open(key, nonce, got, 0, got.length, back, 0));
            assertArrayEquals(plain, back);
        }
    }

    @Test
    void heapAndCompositeBuffersWorkToo() {
        CryptoBox box = new CryptoBox();
        ByteBuf composite = Unpooled.wrappedBuffer(Arrays.copyOfRange(MESSAGE, 1, 60),
                Arrays.copyOfRange(MESSAGE, 60, MESSAGE.length));
        ByteBuf out = Unpooled.buffer();
        box.seal(FIRSTKEY, NONCE, MESSAGE[0] & 0xFF, composite, out);
        assertArrayEquals(BOX, ByteBufUtil.getBytes(out), "the flag byte and the body form NaCl's message");
    }

    /**
     * The handshakes open their boxes into arrays they wipe (a cookie holds the server's transient
     * secret key): after such an open the box keeps no copy of the plaintext, and after any box no
     * key stream. Opening in place keeps the key stream from no box either.
     */
    @Test
    void openLeavesNoPlaintextOrKeyStreamBehind() throws ReflectiveOperationException {
        CryptoBox box = new CryptoBox();
        byte[] plain = new byte[MESSAGE.length];
        assertTrue(box.open(FIRSTKEY, NONCE, BOX, 0, BOX.length, plain, 0));
        assertArrayEquals(MESSAGE, plain);
        assertTrue(allZero(field(box, "piece")), "the piece's copy of the plaintext is wiped");
        assertTrue(allZero(field(box, "keyStream")), "the key stream is wiped");

        ByteBuf inPlace = Unpooled.wrappedBuffer(BOX.clone());
        assertTrue(box.openInPlace(FIRSTKEY, NONCE, inPlace, 0, BOX.length));
        assertTrue(allZero(field(box, "keyStream")), "the key stream is wiped after opening in place");
    }

    private static Object field(CryptoBox box, String name) throws ReflectiveOperationException {
        java.lang.reflect.Field f = CryptoBox.class.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(box);
    }

    private static boolean allZero(Object array) {
        if (array instanceof byte[] b) {
            for (byte x : b) {
                if (x != 0) {
                    return false;
                }
            }
            return true;
        }
        for (long x : (long[]) array) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }
}
