package io.zmtp.transport;

/**
 * The facts of ZWS 2.0 (ZMTP over WebSocket) that both directions of the bridge use: each
 * WebSocket message is one ZMTP frame, behind one flags byte.
 */
final class Zws {
    /** The flags byte: more frames of this message follow. */
    static final int MORE = 0x01;
    /** The flags byte: the frame is a command. */
    static final int COMMAND = 0x02;
    /** Bodies up to this size are copied with their headers into one buffer, both ways. */
    static final int COPY_THRESHOLD = 1024;

    private Zws() {
    }
}
