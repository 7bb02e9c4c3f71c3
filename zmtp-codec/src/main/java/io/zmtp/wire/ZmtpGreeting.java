package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

import java.nio.charset.StandardCharsets;

/**
 * The greeting exchange of one connection (event loop only). Our greeting goes out in two parts
 * as libzmq sends it: signature and major version at once ({@link #sendStart}), the rest once the
 * peer's major version shows it speaks 3.x (where a ZMTP 2.0 downgrade would branch). The peer's
 * greeting is read in stages as its bytes arrive; when it is complete, {@link #version()} is the
 * negotiated revision and the peer's mechanism is known to match ours.
 */
final class ZmtpGreeting {
    private enum Stage { SIGNATURE, MAJOR, REST, DONE }

    private final ZmtpOptions options;
    private final ChannelHandlerContext ctx;
    private final FrameWriter writer;
    private Stage stage = Stage.SIGNATURE;
    private ZmtpVersion version;
    private boolean peerAsServer;

    ZmtpGreeting(ZmtpOptions options, ChannelHandlerContext ctx, FrameWriter writer) {
        this.options = options;
        this.ctx = ctx;
        this.writer = writer;
    }

    /** Sends the first part of our greeting: the signature and our major version. */
    void sendStart() {
        ByteBuf start = ctx.alloc().buffer(ZmtpWire.GREETING_FIRST_PART);
        ZmtpWire.writeGreetingStart(start);
        writer.writeRaw(start);
        start.release();
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
                default:
                    return true;
            }
        }
    }

    /** The revision both sides speak: the lower of the two announced (null before it is read). */
    ZmtpVersion version() {
        return version;
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
        }
        // Our greeting's second part goes out once the peer is known to speak 3.x.
        ByteBuf rest = ctx.alloc().buffer(ZmtpWire.GREETING_SIZE - ZmtpWire.GREETING_FIRST_PART);
        ZmtpWire.writeGreetingRest(rest, options.version().minor(), options.mechanism().name(),
                options.mechanism().asServer());
        writer.writeRaw(rest);
        rest.release();
        writer.flush();
        stage = Stage.REST;
        return true;
    }

    /** The peer announced ZMTP 1.x or 2.x. A downgrade to ZMTP 2.0 framing would start here. */
    private void onLegacyPeer(int major) throws ZmtpProtocolException {
        String which = major <= 1 ? "ZMTP 2.0 (revision 1)" : "ZMTP 2.x (revision " + major + ")";
        throw new ZmtpProtocolException("peer speaks " + which + "; only ZMTP 3.x is supported");
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
