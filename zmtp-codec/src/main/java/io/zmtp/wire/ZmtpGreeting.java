package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

import java.nio.charset.StandardCharsets;

/**
 * The greeting exchange of one connection (event loop only). Our greeting goes out in two parts
 * as libzmq sends it: signature and major version at once ({@link #sendStart}), the rest once the
 * peer's major version shows it speaks 3.x; a peer announcing ZMTP 2.0 gets one socket-type byte
 * instead when {@link ZmtpOptions#zmtp20Fallback()} is on and the mechanism is NULL, and is refused
 * otherwise. The peer's
 * greeting is read in stages as its bytes arrive; when it is complete, {@link #version()} is the
 * negotiated revision and the peer's mechanism is known to match ours.
 */
final class ZmtpGreeting {
    private enum Stage { SIGNATURE, MAJOR, REST, ZMTP20_TYPE, DONE }

    private final ZmtpOptions options;
    private final ChannelHandlerContext ctx;
    private final FrameWriter writer;
    private Stage stage = Stage.SIGNATURE;
    /** Our READY went out with the rest of our greeting (plain NULL). */
    private boolean readySent;
    private ZmtpVersion version;
    private boolean peerAsServer;
    /** A ZMTP 2.0 peer's socket type (the fallback), else null. */
    private SocketType zmtp20PeerType;

    ZmtpGreeting(ZmtpOptions options, ChannelHandlerContext ctx, FrameWriter writer) {
        this.options = options;
        this.ctx = ctx;
        this.writer = writer;
    }

    /** Sends the first part of our greeting: the signature and our major version. */
    void sendStart() {
        writer.writeRaw(ZmtpWire.greetingStart());
        writer.flush();
    }

    /**
     * Reads as much of the peer's greeting as {@code in} holds.
     *
     * @return whether the greeting is complete (then {@link #version()} is known)
     */
    boolean read(ByteBuf in) throws ZmtpProtocolException {
        for (;;) {
            switch (stage) {
                case SIGNATURE:
                    if (!readSignature(in)) {
                        return false;
                    }
                    break;
                case MAJOR:
                    if (!readMajor(in)) {
                        return false;
                    }
                    break;
                case REST:
                    if (!readRest(in)) {
                        return false;
                    }
                    break;
                case ZMTP20_TYPE:
                    if (!readZmtp20Type(in)) {
                        return false;
                    }
                    break;
                default:
                    return true;
            }
        }
    }

    /** The revision both sides speak: the lower of the two announced (null before it is read). */
    ZmtpVersion version() {
        return version;
    }

    /** Whether our READY went out with our greeting (plain NULL): the handshake does not send it again. */
    boolean readySent() {
        return readySent;
    }

    /** Whether the peer announced itself as the server of the mechanism. */
    boolean peerAsServer() {
        return peerAsServer;
    }

    private boolean readSignature(ByteBuf in) throws ZmtpProtocolException {
        int n = in.readableBytes();
        int ri = in.readerIndex();
        if (n >= 1 && in.getUnsignedByte(ri) != 0xFF) {
            throw new ZmtpProtocolException("not a ZMTP peer: bad greeting signature (first byte 0x"
                    + Integer.toHexString(in.getUnsignedByte(ri)) + ")");
        }
        if (n < 10) {
            return false;
        }
        if ((in.getByte(ri + 9) & 0x01) == 0) {
            // A ZMTP 1.0 peer: bytes 1-8 were a length and byte 9 its flags.
            throw new ZmtpProtocolException("peer speaks ZMTP 1.0, which is not supported");
        }
        in.skipBytes(10);
        stage = Stage.MAJOR;
        return true;
    }

    private boolean readMajor(ByteBuf in) throws ZmtpProtocolException {
        if (!in.isReadable()) {
            return false;
        }
        int major = in.readUnsignedByte();
        if (major < 3) {
            onLegacyPeer(major);
            return true;
        }
        // Our greeting's second part goes out once the peer is known to speak 3.x; plain NULL,
        // which has nothing to wait for, may send its READY with it (readyWithGreeting): one
        // write, not two, and the peer has READY as soon as it has our greeting.
        // (both encoded once for these options: ZmtpOptions.handshakeBytes)
        ZmtpOptions.HandshakeBytes bytes = options.handshakeBytes();
        writer.writeRaw(bytes.greetingRest);
        if (options.readyWithGreeting() && options.mechanism() == NullMechanism.INSTANCE) {
            writer.writeRaw(bytes.nullReady);   // no cipher before or after NULL's handshake
            readySent = true;
            writer.flush();
        } else {
            // Alone, not held for the READY this read may produce: libzmq reads the rest and
            // READY in one go when they come together, and a READY it refuses (a socket type it
            // cannot talk to) then closes the connection before its own READY, which is what
            // tells this side why.
            writer.flushNow();
        }
        stage = Stage.REST;
        return true;
    }

    /**
     * The peer announced a revision below 3. ZMTP 2.0 (revision 1) is spoken when the fallback
     * is on and the mechanism is NULL: the rest of our greeting is then one socket-type byte
     * (our signature and revision 3 are out already; a 2.0 peer reads any revision from 1 up as
     * 2.0, as libzmq 4 relies on). Anything else is refused with the reason.
     */
    private void onLegacyPeer(int major) throws ZmtpProtocolException {
        if (major != Zmtp20.REVISION) {
            throw new ZmtpProtocolException("peer announces revision " + major + " of ZMTP; only ZMTP 3.x"
                    + " (and 2.0 with zmtp20Fallback) is spoken");
        }
        if (!options.zmtp20Fallback()) {
            throw new ZmtpProtocolException("peer speaks ZMTP 2.0 (revision 1), refused: only ZMTP 3.x is"
                    + " spoken unless the zmtp20Fallback option is on");
        }
        if (!NullMechanism.INSTANCE.name().equals(options.mechanism().name())) {
            throw new ZmtpProtocolException("peer speaks ZMTP 2.0 (revision 1), refused: 2.0 has no security"
                    + " and this socket uses " + options.mechanism().name()
                    + " (the ZMTP 2.0 fallback is for NULL only; a downgrade would strip the security)");
        }
        ByteBuf type = ctx.alloc().buffer(1);
        type.writeByte(Zmtp20.typeCode(options.socketType()));
        writer.writeRaw(type);
        type.release();
        writer.flush();
        stage = Stage.ZMTP20_TYPE;
    }

    /** A ZMTP 2.0 peer's socket-type byte: known, and a type ours may talk to. */
    private boolean readZmtp20Type(ByteBuf in) throws ZmtpProtocolException {
        if (!in.isReadable()) {
            return false;
        }
        int code = in.readUnsignedByte();
        SocketType peer = Zmtp20.type(code);
        if (peer == null) {
            throw new ZmtpProtocolException("ZMTP 2.0 peer announces unknown socket type code " + code);
        }
        if (!options.socketType().isCompatibleWith(peer)) {
            throw new ZmtpProtocolException("socket types " + options.socketType() + " and " + peer
                    + " (a ZMTP 2.0 peer) cannot talk");
        }
        zmtp20PeerType = peer;
        version = ZmtpVersion.V2_0;
        stage = Stage.DONE;
        return true;
    }

    /** The socket type a ZMTP 2.0 peer announced, or null when the peer speaks 3.x. */
    SocketType zmtp20PeerType() {
        return zmtp20PeerType;
    }

    private boolean readRest(ByteBuf in) throws ZmtpProtocolException {
        if (in.readableBytes() < ZmtpWire.GREETING_SIZE - ZmtpWire.GREETING_FIRST_PART) {
            return false;
        }
        int minor = in.readUnsignedByte();
        String mechanism = readMechanismName(in);
        peerAsServer = in.readByte() != 0;
        in.skipBytes(31);
        version = ZmtpVersion.negotiate(options.version(), 3, minor);
        if (!mechanism.equals(options.mechanism().name())) {
            throw new ZmtpProtocolException("security mechanism mismatch: we use "
                    + options.mechanism().name() + ", the peer uses " + FrameText.escape(mechanism));
        }
        stage = Stage.DONE;
        return true;
    }

    private static String readMechanismName(ByteBuf in) {
        int start = in.readerIndex();
        int len = 0;
        while (len < ZmtpWire.MECHANISM_FIELD_SIZE && in.getByte(start + len) != 0) {
            len++;
        }
        String name = in.toString(start, len, StandardCharsets.US_ASCII);
        in.skipBytes(ZmtpWire.MECHANISM_FIELD_SIZE);
        return name;
    }
}
