package io.zmtp.wire;

import io.netty.buffer.ByteBuf;

/**
 * How a mechanism that encrypts (CURVE) carries frames after its handshake: every ZMTP frame,
 * data or command, travels as one MESSAGE command whose box holds the frame's flags (MORE,
 * COMMAND) and body, as libzmq does. Used on the connection's event loop only.
 */
public interface FrameCipher {

    /** The most bytes {@link #encrypt} appends for a body of {@code size} bytes. */
    int wireSize(int size);

    /**
     * Appends to {@code out} one whole wire frame (header included) carrying a frame with the
     * given flags ({@code ZmtpWire.FLAG_MORE} and/or {@code FLAG_COMMAND}) and body. Reads the
     * body's readable bytes without changing its indexes.
     */
    default void encrypt(int flags, ByteBuf body, ByteBuf out) {
        encrypt(flags, body, body.readerIndex(), body.readableBytes(), out);
    }

    /**
     * The same for a body of {@code length} bytes at {@code index} of {@code src} (a frame still
     * held as a span of the buffer it was read from: no slice made for it).
     */
    void encrypt(int flags, ByteBuf src, int index, int length, ByteBuf out);

    /**
     * Opens a received frame. After the handshake the codec hands here every frame that
     * {@link #openInPlace} did not open, whether its wire flags say command or not (libzmq sends
     * CURVE's MESSAGE as a plain data frame): {@code name} is the command name and {@code data}
     * the bytes after it (not to be released by the cipher, nor written into). Returns a new
     * buffer whose first byte is the carried frame's flags, given as
     * {@code ZmtpWire.FLAG_MORE} and/or {@code ZmtpWire.FLAG_COMMAND} whatever the mechanism's own
     * encoding, and whose remaining bytes are the frame body; the caller releases it.
     *
     * @throws ZmtpProtocolException when the command is not a valid MESSAGE, fails authentication,
     *         or reuses a nonce
     */
    ByteBuf decrypt(String name, ByteBuf data) throws ZmtpProtocolException;

    /**
     * Opens a received MESSAGE where it lies in the read buffer, when this cipher can: the
     * {@code length} bytes at {@code index} of {@code buf} are what follows the command name. The
     * box's bytes are replaced by the carried frame: the returned index holds its flags (as
     * {@link #decrypt} gives them), and its body follows up to {@code index + length}. Returns -1
     * (and changes nothing) when it cannot be opened in place (a read-only buffer, a cipher that
     * does not): the caller then slices the frame and calls {@link #decrypt}.
     *
     * @throws ZmtpProtocolException as {@link #decrypt}
     */
    default int openInPlace(ByteBuf buf, int index, int length) throws ZmtpProtocolException {
        return -1;
    }

    /** Forget keys; called when the connection closes. */
    default void close() {
    }
}
