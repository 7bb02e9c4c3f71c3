package io.zmtp.wire;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

/**
 * Whether a channel reads, decided by several owners at once: it reads only while none of them
 * wants it paused. Each owner has its own reason bit; {@link #pause} and {@link #resume} change
 * only that bit and turn Netty's auto-read off on the first reason and on again when the last one
 * clears, so the socket layer's receive high-water mark and the codec's inbound budget never undo
 * each other's pause. Event loop only.
 */
public final class ReadGate {
    /** The socket layer: its receive high-water mark, or the application, asks to pause. */
    public static final int SOCKET = 1;
    /** The codec: the socket's inbound budget is spent (see {@link InboundBudget}). */
    public static final int BUDGET = 2;
    /**
     * The codec: the connection has decoded its messages for this turn of the event loop and waits
     * for its next one (see {@link ZmtpOptions#messagesPerTurn()}).
     */
    public static final int TURN = 4;
    /**
     * The handshake: it waits for an authenticator's answer, and what the peer sends meanwhile
     * stays in the kernel's buffers rather than ours.
     */
    public static final int AUTHENTICATION = 8;

    private static final AttributeKey<ReadGate> KEY = AttributeKey.valueOf(ReadGate.class, "readGate");

    private int reasons;

    private ReadGate() {
    }

    /** Stops reading from {@code channel} for {@code reason} (until {@link #resume} of that reason). */
    public static void pause(Channel channel, int reason) {
        ReadGate g = of(channel);
        boolean was = g.reasons != 0;
        g.reasons |= reason;
        if (!was) {
            channel.config().setAutoRead(false);
        }
    }

    /** Clears {@code reason}; the channel reads again when no reason is left. */
    public static void resume(Channel channel, int reason) {
        ReadGate g = of(channel);
        if ((g.reasons & reason) == 0) {
            return;
        }
        g.reasons &= ~reason;
        if (g.reasons == 0) {
            channel.config().setAutoRead(true);
        }
    }

    /** Pauses or resumes for {@code reason}. */
    public static void set(Channel channel, int reason, boolean paused) {
        if (paused) {
            pause(channel, reason);
        } else {
            resume(channel, reason);
        }
    }

    /** Whether {@code reason} currently pauses {@code channel}. */
    public static boolean isPaused(Channel channel, int reason) {
        ReadGate g = channel.attr(KEY).get();
        return g != null && (g.reasons & reason) != 0;
    }

    private static ReadGate of(Channel channel) {
        ReadGate g = channel.attr(KEY).get();
        if (g == null) {
            g = new ReadGate();
            channel.attr(KEY).set(g);
        }
        return g;
    }
}
