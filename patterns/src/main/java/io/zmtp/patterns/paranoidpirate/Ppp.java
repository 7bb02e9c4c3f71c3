package io.zmtp.patterns.paranoidpirate;

import io.zmtp.wire.ZmtpMessage;

/** The two signals of 6/PPP, each a one-byte message between a worker and its queue. */
public final class Ppp {
    /** A worker is ready for work (its first message, and again after a reconnect). */
    public static final byte READY = 0x01;
    /** Either side is alive. */
    public static final byte HEARTBEAT = 0x02;

    private Ppp() {
    }

    /** A new one-frame message holding {@code signal}. */
    public static ZmtpMessage signal(byte signal) {
        return ZmtpMessage.of(new byte[] {signal});
    }
}
