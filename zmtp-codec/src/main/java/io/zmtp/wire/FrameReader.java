package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Reads one connection's frames (event loop only): checks each header against the limits before
 * its body is buffered, takes the body as a span of the read buffer (no copy, no slice), assembles message
 * frames into a {@link ZmtpMessage} and parses command names. Once a mechanism encrypts, each
 * frame is a CURVE MESSAGE box: the reader opens it with the {@link FrameCipher} and reads the
 * frame inside the same way, so plaintext frames and decrypted ones go through the same checks
 * and the same {@link Listener}.
 *
 * <p>Complete messages go to the decoder's output list; commands go to the listener.
 */
final class FrameReader {
    /** Room for a command name and CURVE's box around a frame, above the message size limit. */
    static final int COMMAND_OVERHEAD = 512;

    /** Where the commands go. */
    interface Listener {
        /**
         * A command from the peer, from the wire or from inside a MESSAGE box: {@code data} is
         * positioned after the name and is valid during the call only.
         */
        void commandRead(String name, ByteBuf data, List<Object> out) throws ZmtpProtocolException;
    }

    /**
     * libzmq's PLAIN mechanism (4.2.3 and later) writes ERROR as 5E "RROR" + reason: its constant
     * "\x05ERROR" is read by C as the hex escape \x05E then "RROR". It is recognised during the
     * handshake so that a refusal by a libzmq PLAIN server is reported as the ERROR it is.
     */
    private static final byte[] LIBZMQ_PLAIN_ERROR = {0x5E, 'R', 'R', 'O', 'R'};

    private final ZmtpOptions options;
    private final Listener listener;
    /** The handshake has completed: message frames are allowed. */
    private boolean ready;
    private FrameCipher cipher;
    /** What every message from this peer carries ({@link ZmtpMessage#properties()}). */
    private ZmtpMetadata properties = ZmtpMetadata.EMPTY;
    private ZmtpMessage partial;
    /** The reading thread's message pool, looked up once (a connection is read by one thread). */
    private MessagePool<ZmtpMessage> pool;
    /** The unfinished message's bytes plus {@link ZmtpOptions#FRAME_COST} per frame after its first. */
    private long partialBytes;
    /** ZMTP 2.0 (the fallback): the COMMAND flag is a reserved bit. */
    private boolean zmtp20;
    /** Every frame read so far: a sign of life for the heartbeat. */
    private long framesRead;

    FrameReader(ZmtpOptions options, Listener listener) {
        this.options = options;
        this.listener = listener;
    }

    /** The handshake completed: message frames may follow, opened with {@code cipher} if not null. */
    void ready(ZmtpMetadata peerProperties, FrameCipher frameCipher) {
        ready = true;
        properties = peerProperties;
        cipher = frameCipher;
    }

    /** The peer speaks ZMTP 2.0: frames have MORE and LONG only, no commands. */
    void zmtp20() {
        zmtp20 = true;
    }

    /** Frames read so far. */
    long framesRead() {
        return framesRead;
    }

    /** The bytes the unfinished message holds, counted as against maxMessageSize. */
    long partialBytes() {
        return partialBytes;
    }

    /** Releases the unfinished message, if any (the connection is closing). */
    void discardPartial() {
        if (partial != null) {
            partial.release();
            partial = null;
            partialBytes = 0;
        }
    }

    /**
     * Reads one frame from {@code in} if it holds a whole one.
     *
     * @return whether a frame was read
     */
    boolean read(ByteBuf in, List<Object> out) throws ZmtpProtocolException {
        int avail = in.readableBytes();
        if (avail < 2) {
            return false;
        }
        int ri = in.readerIndex();
        int flags = in.getUnsignedByte(ri);
        if ((flags & ZmtpWire.FLAGS_RESERVED) != 0) {
            throw new ZmtpProtocolException("frame with reserved flag bits set (flags 0x"
                    + Integer.toHexString(flags) + ")");
        }
        boolean command = (flags & ZmtpWire.FLAG_COMMAND) != 0;
        if (command && zmtp20) {
            throw new ZmtpProtocolException("ZMTP 2.0 frame with a reserved flag bit set (flags 0x"
                    + Integer.toHexString(flags) + ")");
        }
        if (command && (flags & ZmtpWire.FLAG_MORE) != 0) {
            throw new ZmtpProtocolException("command frame with the MORE flag");
        }
        // Once a mechanism encrypts, every frame is one of its commands (CURVE's MESSAGE). libzmq
        // sends MESSAGE as a plain data frame (its flags travel inside the box), so the outer
        // COMMAND bit is not required; MORE has no meaning there.
        if (cipher != null) {
            if ((flags & ZmtpWire.FLAG_MORE) != 0) {
                throw new ZmtpProtocolException("MORE flag on the outside of an encrypted frame");
            }
            command = true;
        }
        long size;
        int header;
        if ((flags & ZmtpWire.FLAG_LONG) != 0) {
            if (avail < 9) {
                return false;
            }
            size = in.getLong(ri + 1);
            header = 9;
            if (size < 0) {
                throw new ZmtpProtocolException("frame size above 2^63-1");
            }
        } else {
            size = in.getUnsignedByte(ri + 1);
            header = 2;
        }
        checkSize(command, size);
        if (avail - header < size) {
            return false;
        }
        in.skipBytes(header);
        framesRead++;
        if (!command && ready && cipher == null) {
            // The common case, a plaintext message frame: a span of the read buffer, no slice.
            int bodyIndex = in.readerIndex();
            in.skipBytes((int) size);
            messageFrame((flags & ZmtpWire.FLAG_MORE) != 0, in, bodyIndex, (int) size, out);
            return true;
        }
        if (cipher != null && isMessage(in, in.readerIndex(), (int) size)) {
            // Once encrypted, nearly every frame is a MESSAGE: opened in place, its frame is a
            // span of the read buffer as a plaintext frame is (no slice, no copy).
            int bodyIndex = in.readerIndex();
            int flagsIndex = cipher.openInPlace(in, bodyIndex + 8, (int) size - 8);
            if (flagsIndex >= 0) {
                in.skipBytes((int) size);
                boxedFrame(in, flagsIndex, bodyIndex + (int) size, out);
                return true;
            }
        }
        ByteBuf body = size == 0 ? Unpooled.EMPTY_BUFFER : in.readRetainedSlice((int) size);
        if (command) {
            try {
                commandFrame(body, out);
            } finally {
                body.release();
            }
        } else if (!ready) {
            body.release();
            throw new ZmtpProtocolException("message frame before the handshake completed");
        } else if (cipher != null) {
            body.release();
            throw new ZmtpProtocolException("plaintext message frame on an encrypted connection");
        } else {
            messageFrame((flags & ZmtpWire.FLAG_MORE) != 0, body, out);
        }
        return true;
    }

    /**
     * Checked on the frame header, before any byte of the body is buffered. Sizes are at most
     * 2^63-1 and limits at most {@link ZmtpOptions#MAX_MESSAGE_SIZE_LIMIT}, so no sum overflows.
     */
    private void checkSize(boolean command, long size) throws ZmtpProtocolException {
        if (command) {
            long max = (ready && cipher != null ? options.maxMessageSize() : options.maxMetadataSize())
                    + COMMAND_OVERHEAD;
            if (size > max) {
                throw new ZmtpProtocolException("command frame of " + size + " bytes exceeds the limit of "
                        + max + " bytes");
            }
            checkBudget(size);
        } else {
            long cost = partial == null ? 0 : ZmtpOptions.FRAME_COST;
            if (size > options.maxMessageSize() - partialBytes - cost) {
                throw new MessageTooLargeException("message of at least " + (partialBytes + size + cost)
                        + " bytes (counting " + ZmtpOptions.FRAME_COST + " per frame after the first) exceeds"
                        + " maxMessageSize " + options.maxMessageSize());
            }
            checkBudget(partialBytes + size + cost);
        }
    }

    /** A message that alone needs more than the socket's whole inbound budget can never be read. */
    private void checkBudget(long needed) throws ZmtpProtocolException {
        InboundBudget budget = options.inboundBudget();
        if (budget != null && needed > budget.limit()) {
            throw new MessageTooLargeException("message of at least " + needed
                    + " bytes exceeds the socket's inbound budget of " + budget.limit() + " bytes");
        }
    }

    /** A frame of {@code length} bytes at {@code index} of the read buffer {@code in}, which the caller keeps. */
    private void messageFrame(boolean more, ByteBuf in, int index, int length, List<Object> out)
            throws ZmtpProtocolException {
        ZmtpMessage m = nextFrameOf(length);
        if (length == 0) {
            m.add(Unpooled.EMPTY_BUFFER);
        } else {
            m.addSpan(in, index, length);
        }
        frameAdded(more, out);
    }

    /** A frame whose ownership passes to the reader (from inside a CURVE box). */
    private void messageFrame(boolean more, ByteBuf body, List<Object> out) throws ZmtpProtocolException {
        ZmtpMessage m;
        try {
            m = nextFrameOf(body.readableBytes());
        } catch (ZmtpProtocolException e) {
            body.release();
            throw e;
        }
        m.add(body);
        frameAdded(more, out);
    }

    /** The message the next frame, of {@code length} bytes, goes into; counts it against the limits. */
    private ZmtpMessage nextFrameOf(int length) throws ZmtpProtocolException {
        if (partial == null) {
            MessagePool<ZmtpMessage> p = pool;
            if (p == null || !p.ownedByCurrentThread()) {
                pool = p = ZmtpMessage.currentPool();
            }
            partial = ZmtpMessage.newMessage(p);
        } else if (partial.size() >= options.maxFramesPerMessage()) {
            throw new ZmtpProtocolException("message of more than " + options.maxFramesPerMessage()
                    + " frames (maxFramesPerMessage)");
        }
        partialBytes += length + (partial.size() == 0 ? 0 : ZmtpOptions.FRAME_COST);
        return partial;
    }

    private void frameAdded(boolean more, List<Object> out) throws ZmtpProtocolException {
        if (partialBytes > options.maxMessageSize()) {
            throw new ZmtpProtocolException("message of " + partialBytes + " bytes (counting "
                    + ZmtpOptions.FRAME_COST + " per frame after the first) exceeds maxMessageSize "
                    + options.maxMessageSize());
        }
        if (!more) {
            ZmtpMessage m = partial;
            partial = null;
            partialBytes = 0;
            m.properties(properties);
            if (options.socketType() == SocketType.DISH) {
                takeGroupFrame(m);
            }
            out.add(m);
        }
    }

    /**
     * A DISH's message from its RADIO: the group frame, then the body (RFC 48), become one
     * message whose {@link ZmtpMessage#group()} is set. A message without a body or with a group
     * of 0 or more than 255 bytes is a protocol error, as libzmq's dish session fails it. A body
     * of more than one frame stays multipart here: the socket drops it (single-frame rule).
     */
    private static void takeGroupFrame(ZmtpMessage m) throws ZmtpProtocolException {
        int groupLength = m.size() < 2 ? -1 : m.frameLength(0);
        if (groupLength < 1 || groupLength > ZmtpWire.MAX_GROUP_LENGTH) {
            m.release();
            throw new ZmtpProtocolException(groupLength < 0 ? "RADIO message without a group frame"
                    : "RADIO message with a group frame of " + groupLength + " bytes (1-"
                    + ZmtpWire.MAX_GROUP_LENGTH + " allowed)");
        }
        m.groupFromWire(m.frameBytes(0)); // at most 255 bytes: checked above
        m.dropFirst();
    }

    /** A command frame from the wire: a command, or (once encrypted) a box holding a frame. */
    private void commandFrame(ByteBuf body, List<Object> out) throws ZmtpProtocolException {
        if (!body.isReadable()) {
            throw new ZmtpProtocolException("command frame without a name");
        }
        if (!ready && isLibzmqPlainError(body)) {
            body.skipBytes(LIBZMQ_PLAIN_ERROR.length);
            listener.commandRead(ZmtpWire.ERROR, body, out);
            return;
        }
        String name = readCommandName(body);
        if (cipher != null && !ZmtpWire.ERROR.equals(name)) {
            // ERROR is always plaintext; anything else is a box.
            boxedFrame(cipher.decrypt(name, body), out);
            return;
        }
        listener.commandRead(name, body, out);
    }

    /** The frame inside a MESSAGE box: its flags octet, then its body. Releases {@code plain}. */
    private void boxedFrame(ByteBuf plain, List<Object> out) throws ZmtpProtocolException {
        try {
            if (!plain.isReadable()) {
                throw new ZmtpProtocolException("encrypted frame without flags");
            }
            boxedFrame(plain, plain.readerIndex(), plain.writerIndex(), out);
        } finally {
            plain.release();
        }
    }

    /**
     * The frame inside an opened box that lies in {@code buf} (which the caller keeps): its flags
     * at {@code flagsIndex}, its body after them up to {@code end}.
     */
    private void boxedFrame(ByteBuf buf, int flagsIndex, int end, List<Object> out) throws ZmtpProtocolException {
        int innerFlags = buf.getUnsignedByte(flagsIndex);
        int bodyIndex = flagsIndex + 1;
        int length = end - bodyIndex;
        if ((innerFlags & ZmtpWire.FLAG_COMMAND) != 0) {
            if (length == 0) {
                throw new ZmtpProtocolException("command frame without a name");
            }
            ByteBuf command = buf.retainedSlice(bodyIndex, length);
            try {
                listener.commandRead(readCommandName(command), command, out);
            } finally {
                command.release();
            }
        } else {
            checkSize(false, length);
            messageFrame((innerFlags & ZmtpWire.FLAG_MORE) != 0, buf, bodyIndex, length, out);
        }
    }

    /** Whether the {@code size} bytes at {@code index} are a command named MESSAGE with room for its nonce. */
    private static boolean isMessage(ByteBuf in, int index, int size) {
        return size >= 8 && in.getLong(index) == MESSAGE_NAME;
    }

    /** {@code 07 "MESSAGE"}, the name octets of a CURVE MESSAGE, read as one big-endian long. */
    private static final long MESSAGE_NAME = 0x074D455353414745L;

    /**
     * Reads a command's name (a length octet, then that many ASCII letters, as the ABNF of 23/37
     * has it): the one place names are parsed, for plaintext commands and for those that arrive
     * inside a CURVE MESSAGE box alike.
     */
    static String readCommandName(ByteBuf body) throws ZmtpProtocolException {
        int nameLen = body.readUnsignedByte();
        if (nameLen == 0 || nameLen > body.readableBytes()) {
            throw new ZmtpProtocolException("command with a truncated or empty name");
        }
        int at = body.readerIndex();
        for (int i = 0; i < nameLen; i++) {
            byte c = body.getByte(at + i);
            if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) {
                throw new ZmtpProtocolException("command name with a character that is not a letter");
            }
        }
        // the commands ZMTP defines are returned as constants: no String per frame (a CURVE
        // connection reads MESSAGE for every frame)
        for (int k = 0; k < KNOWN_NAMES.length; k++) {
            byte[] known = KNOWN_BYTES[k];
            if (known.length == nameLen && sameBytes(body, at, known)) {
                body.skipBytes(nameLen);
                return KNOWN_NAMES[k];
            }
        }
        return body.readCharSequence(nameLen, StandardCharsets.US_ASCII).toString();
    }

    private static final String[] KNOWN_NAMES = {"MESSAGE", ZmtpWire.READY, ZmtpWire.ERROR, "PING", "PONG",
            "SUBSCRIBE", "CANCEL", "HELLO", "WELCOME", "INITIATE", ZmtpWire.JOIN, ZmtpWire.LEAVE};
    private static final byte[][] KNOWN_BYTES = new byte[KNOWN_NAMES.length][];

    static {
        for (int k = 0; k < KNOWN_NAMES.length; k++) {
            KNOWN_BYTES[k] = KNOWN_NAMES[k].getBytes(StandardCharsets.US_ASCII);
        }
    }

    private static boolean sameBytes(ByteBuf body, int at, byte[] known) {
        for (int i = 0; i < known.length; i++) {
            if (body.getByte(at + i) != known[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean isLibzmqPlainError(ByteBuf body) {
        if (body.readableBytes() < LIBZMQ_PLAIN_ERROR.length) {
            return false;
        }
        for (int i = 0; i < LIBZMQ_PLAIN_ERROR.length; i++) {
            if (body.getByte(body.readerIndex() + i) != LIBZMQ_PLAIN_ERROR[i]) {
                return false;
            }
        }
        return true;
    }
}
