package io.zmtp.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.zmtp.wire.ZmtpProtocolException;
import io.zmtp.wire.ZmtpWire;

import java.util.Arrays;
import io.zmtp.wire.FrameCipher;

/**
 * CURVE MESSAGE commands after the handshake: one per ZMTP frame, {@code 07 "MESSAGE"}, the
 * 8-byte short nonce, then Box[flags + body](C'&lt;-&gt;S'). The box's flags byte carries MORE
 * (0x01) and COMMAND (0x02) as libzmq does; the MESSAGE goes out as a plain data frame (outer
 * flags 0x00, or 0x02 when long), as libzmq sends it.
 *
 * <p>Sending seals straight into the output buffer through a reusable {@link CryptoBox};
 * receiving opens the box where it was read (the plaintext replaces the ciphertext in the read
 * buffer, and the frame is a span of it, as plaintext frames are) through another, so each keeps
 * the Salsa20 key it derived from its direction's nonce prefix (one box for both re-derived it
 * at every turn of a request-reply connection, one Salsa20 core per message). Only an authentic
 * box's bytes leave the cipher. A received nonce must be above
 * the last one accepted (gaps are allowed, as libzmq does); only an authenticated MESSAGE moves
 * the counter.
 *
 * <p>Frames of {@link Libsodium#FROM} bytes and more in buffers with memory addresses are sealed
 * and opened by a {@link LibsodiumBox} instead, when libsodium is available: the same boxes, made
 * faster.
 */
final class CurveFrameCipher implements FrameCipher {
    /** Name length, name, short nonce, tag and flags byte. */
    static final int OVERHEAD = 8 + 8 + CryptoBox.MAC_BYTES + 1;
    private static final byte[] MESSAGE_NAME = {7, 'M', 'E', 'S', 'S', 'A', 'G', 'E'};

    private final ByteBufAllocator alloc;
    /** Boxes of one direction each: a box keeps the key it derived while the nonce prefix stays. */
    private final CryptoBox sealBox;
    private final CryptoBox openBox = new CryptoBox();
    private final byte[] key;
    private final byte[] sendNonce;
    private final byte[] receiveNonce;
    private long nextSend;
    private long lastReceived;
    private boolean closed;
    /** Large frames' boxes, both directions, or null when libsodium is not used. */
    private final LibsodiumBox largeBox;

    /**
     * @param box the handshake's box, which seals from now on
     * @param key the C'/S' box key (copied)
     * @param client whether we are the client (we send with prefix ...MESSAGEC, receive ...MESSAGES)
     * @param nextSend our next short nonce
     * @param lastReceived the peer's last short nonce (its INITIATE's or READY's)
     */
    CurveFrameCipher(ByteBufAllocator alloc, CryptoBox box, byte[] key, boolean client, long nextSend,
                     long lastReceived) {
        this(alloc, box, key, client, nextSend, lastReceived, Libsodium.available());
    }

    /** The same, with libsodium for large frames only when {@code libsodium} (and available). */
    CurveFrameCipher(ByteBufAllocator alloc, CryptoBox box, byte[] key, boolean client, long nextSend,
                     long lastReceived, boolean libsodium) {
        this.alloc = alloc;
        this.sealBox = box;
        this.key = key.clone();
        this.sendNonce = CurveLayout.nonce(client ? CurveLayout.MESSAGE_C_NONCE : CurveLayout.MESSAGE_S_NONCE, 0);
        this.receiveNonce = CurveLayout.nonce(client ? CurveLayout.MESSAGE_S_NONCE : CurveLayout.MESSAGE_C_NONCE, 0);
        this.nextSend = nextSend;
        this.lastReceived = lastReceived;
        this.largeBox = libsodium ? LibsodiumBox.create(alloc, this.key, sendNonce, receiveNonce) : null;
    }

    /** Whether this cipher uses libsodium for large frames (for tests). */
    boolean usesLibsodium() {
        return largeBox != null;
    }

    @Override
    public int wireSize(int size) {
        long body = (long) OVERHEAD + size;
        return (int) (ZmtpWire.headerSize(body) + body);
    }

    @Override
    public void encrypt(int flags, ByteBuf src, int index, int length, ByteBuf out) {
        if (closed) {
            throw new IllegalStateException("CURVE cipher is closed");
        }
        long n = nextSend++;
        if (nextSend == 0) {
            throw new IllegalStateException("CURVE short nonces exhausted"); // after 2^64 frames
        }
        int inner = ((flags & ZmtpWire.FLAG_MORE) != 0 ? 0x01 : 0) | ((flags & ZmtpWire.FLAG_COMMAND) != 0 ? 0x02 : 0);
        ZmtpWire.writeFrameHeader(out, 0, (long) OVERHEAD + length);
        out.writeBytes(MESSAGE_NAME);
        out.writeLong(n);
        if (largeBox != null && LibsodiumBox.takes(length, out)) {
            // the flags byte and body copied in behind the tag's place, then sealed where they are
            int boxIndex = out.writerIndex();
            int boxLength = CryptoBox.MAC_BYTES + 1 + length;
            out.ensureWritable(boxLength);
            out.writerIndex(boxIndex + CryptoBox.MAC_BYTES).writeByte(inner).writeBytes(src, index, length);
            largeBox.sealInPlace(n, out, boxIndex, boxLength);
            return;
        }
        CurveLayout.putLong(sendNonce, 16, n);
        sealBox.seal(key, sendNonce, inner, src, index, length, out);
    }

    @Override
    public ByteBuf decrypt(String name, ByteBuf data) throws ZmtpProtocolException {
        if (closed) {
            throw new ZmtpProtocolException("CURVE cipher is closed");
        }
        if (!CurveLayout.MESSAGE.equals(name)) {
            throw new ZmtpProtocolException("CURVE: expected MESSAGE after the handshake, got "
                    + (name.length() > 32 ? name.substring(0, 32) + "..." : name));
        }
        // The reader opens every MESSAGE it may write into in place (openInPlace); what comes here
        // cannot be written (a read-only read buffer), so it is opened into a copy.
        int ri = data.readerIndex();
        int len = data.readableBytes();
        return openCopy(data, ri + 8, len - 8, nonceOf(data, ri, len));
    }

    /**
     * Opened where it was read: the plaintext replaces the ciphertext in the read buffer, and the
     * frame is a span of it, as plaintext frames are.
     */
    @Override
    public int openInPlace(ByteBuf buf, int index, int length) throws ZmtpProtocolException {
        if (closed) {
            throw new ZmtpProtocolException("CURVE cipher is closed");
        }
        if (buf.isReadOnly()) {
            return -1;
        }
        long n = nonceOf(buf, index, length);
        boolean authentic = largeBox != null && LibsodiumBox.takes(length - OVERHEAD + 8, buf)
                ? largeBox.openInPlace(n, buf, index + 8, length - 8)
                : openBox.openInPlace(key, receiveNonce, buf, index + 8, length - 8);
        if (!authentic) {
            throw forged();
        }
        int flagsIndex = index + 8 + CryptoBox.MAC_BYTES;
        accept(buf, flagsIndex, n);
        return flagsIndex;
    }

    /** Checks a MESSAGE's size and short nonce, and puts the nonce in place for its box. */
    private long nonceOf(ByteBuf buf, int index, int length) throws ZmtpProtocolException {
        if (length < OVERHEAD - 8) {
            throw new ZmtpProtocolException("CURVE: MESSAGE of " + (length + 8) + " bytes (at least 33)");
        }
        long n = buf.getLong(index);
        if (Long.compareUnsigned(n, lastReceived) <= 0) {
            throw new ZmtpProtocolException("CURVE: MESSAGE short nonce " + Long.toUnsignedString(n)
                    + " is not above the last one, " + Long.toUnsignedString(lastReceived) + " (replayed or reordered)");
        }
        CurveLayout.putLong(receiveNonce, 16, n);
        return n;
    }

    /** Opens a box into a new buffer, leaving the one it came in as it was. */
    private ByteBuf openCopy(ByteBuf data, int boxIndex, int boxLen, long n) throws ZmtpProtocolException {
        ByteBuf plain = alloc.buffer(boxLen - CryptoBox.MAC_BYTES);
        boolean ok = false;
        try {
            if (!openBox.open(key, receiveNonce, data, boxIndex, boxLen, plain)) {
                throw forged();
            }
            accept(plain, plain.readerIndex(), n);
            ok = true;
            return plain;
        } finally {
            if (!ok) {
                plain.release();
            }
        }
    }

    /** Checks the flags of an authentic box, rewrites them as ZMTP's and moves the nonce counter. */
    private void accept(ByteBuf plain, int flagsIndex, long n) throws ZmtpProtocolException {
        int inner = plain.getUnsignedByte(flagsIndex);
        if ((inner & 0x03) == 0x03) {
            throw new ZmtpProtocolException("CURVE: MESSAGE flags have both MORE and COMMAND");
        }
        lastReceived = n;
        plain.setByte(flagsIndex, ((inner & 0x01) != 0 ? ZmtpWire.FLAG_MORE : 0)
                | ((inner & 0x02) != 0 ? ZmtpWire.FLAG_COMMAND : 0));
    }

    private static ZmtpProtocolException forged() {
        return new ZmtpProtocolException("CURVE: MESSAGE fails authentication (tampered, or not from our peer)");
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Arrays.fill(key, (byte) 0);
        sealBox.wipe();
        openBox.wipe();
        if (largeBox != null) {
            largeBox.close();
        }
    }
}
