package io.zmtp.socket;

import io.zmtp.wire.SocketType;

/**
 * CHANNEL (RFC 52): exactly one peer, another CHANNEL, a second one refused while the first
 * lasts: a PAIR whose messages are single frames. The single-frame rule is the eight thread-safe
 * types' one ({@link SendPath#checkFrameCount}, {@link ReceivePath#dropsMultipart}).
 */
public final class ChannelSocket extends PairSocket {
    ChannelSocket(Setup setup) {
        super(setup, SocketType.CHANNEL);
    }
}
