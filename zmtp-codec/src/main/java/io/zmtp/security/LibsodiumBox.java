package io.zmtp.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * One CURVE connection's MESSAGE boxes through {@link Libsodium}, in both directions, sealed and
 * opened where they lie in direct buffers: {@link CryptoBox#openInPlace}'s twin for frames of
 * {@link Libsodium#FROM} bytes and more. The key and the two nonces (their prefixes fixed, the
 * short nonce written per box) live in a small direct buffer of its own, which {@link #close}
 * wipes and releases. Used on the connection's event loop only.
 */
final class LibsodiumBox {
    private static final int SEND_NONCE = CryptoBox.KEY_BYTES;
    private static final int RECEIVE_NONCE = SEND_NONCE + CryptoBox.NONCE_BYTES;
    /** Where the 8-byte short nonce sits in a 24-byte nonce. */
    private static final int SHORT_NONCE = 16;

    /** The key, then the send nonce, then the receive nonce. */
    private final ByteBuf keys;

    private LibsodiumBox(ByteBuf keys) {
        this.keys = keys;
    }

    /**
     * A box for {@code key} and the two directions' nonces (their first 16 bytes are used), or
     * null when libsodium is not available or direct buffers here have no memory address.
     */
    static LibsodiumBox create(ByteBufAllocator alloc, byte[] key, byte[] sendNonce, byte[] receiveNonce) {
        if (!Libsodium.available()) {
            return null;
        }
        ByteBuf b = alloc.directBuffer(RECEIVE_NONCE + CryptoBox.NONCE_BYTES);
        if (!b.hasMemoryAddress()) {
            b.release();
            return null;
        }
        return new LibsodiumBox(b.writeBytes(key).writeBytes(sendNonce).writeBytes(receiveNonce));
    }

    /** Whether a frame body of {@code size} bytes in {@code buf} is boxed here. */
    static boolean takes(int size, ByteBuf buf) {
        return size >= Libsodium.FROM && buf.hasMemoryAddress();
    }

    /**
     * Seals the box of {@code length} bytes at {@code index} of {@code buf} where it lies: the
     * plaintext after the tag's 16 bytes becomes ciphertext, and the tag is written in front.
     */
    void sealInPlace(long shortNonce, ByteBuf buf, int index, int length) {
        keys.setLong(SEND_NONCE + SHORT_NONCE, shortNonce);
        long tag = address(buf, index, length);
        long k = keys.memoryAddress();
        Libsodium.crypto_secretbox_detached(tag + CryptoBox.MAC_BYTES, tag, tag + CryptoBox.MAC_BYTES,
                length - CryptoBox.MAC_BYTES, k + SEND_NONCE, k);
    }

    /**
     * Opens the box of {@code length} bytes at {@code index} of {@code buf} where it lies, as
     * {@link CryptoBox#openInPlace} does, except that a forged box is left as it came (libsodium
     * checks the tag before it decrypts).
     *
     * @return false when the box fails authentication
     */
    boolean openInPlace(long shortNonce, ByteBuf buf, int index, int length) {
        keys.setLong(RECEIVE_NONCE + SHORT_NONCE, shortNonce);
        long tag = address(buf, index, length);
        long k = keys.memoryAddress();
        return Libsodium.crypto_secretbox_open_detached(tag + CryptoBox.MAC_BYTES, tag + CryptoBox.MAC_BYTES, tag,
                length - CryptoBox.MAC_BYTES, k + RECEIVE_NONCE, k) == 0;
    }

    /**
     * The address of {@code buf}'s byte {@code index}, after the checks Netty makes before it
     * touches memory (libsodium writes wherever it is told): the buffer is live and the box within
     * its capacity.
     */
    private static long address(ByteBuf buf, int index, int length) {
        buf.getByte(index);                      // live, and the start within bounds
        if (length < CryptoBox.MAC_BYTES || index + length > buf.capacity()) {
            throw new IndexOutOfBoundsException("a box of " + length + " bytes at " + index
                    + " in a buffer of capacity " + buf.capacity());
        }
        return buf.memoryAddress() + index;
    }

    /** Wipes the key and releases its buffer. */
    void close() {
        keys.setZero(0, keys.capacity());
        keys.release();
    }
}
