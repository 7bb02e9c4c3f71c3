package io.zmtp.wire;

/** The ZMTP revisions this library speaks. We announce 3.1 and adapt to a 3.0 peer. */
public enum ZmtpVersion {
    /**
     * 15/ZMTP (libzmq 3.x, revision byte 1): no security, no commands, no metadata. Never
     * announced; spoken only with a peer that announces it, when {@link ZmtpOptions#zmtp20Fallback()}
     * is on and the mechanism is NULL.
     */
    V2_0(2, 0),
    /** 23/ZMTP: symmetric NULL handshake, subscriptions as messages, no heartbeats. */
    V3_0(3, 0),
    /** 37/ZMTP: PING/PONG heartbeats, SUBSCRIBE/CANCEL commands. */
    V3_1(3, 1);

    private final int major;
    private final int minor;

    ZmtpVersion(int major, int minor) {
        this.major = major;
        this.minor = minor;
    }

    public int major() {
        return major;
    }

    public int minor() {
        return minor;
    }

    /** Whether this revision has PING/PONG and the SUBSCRIBE/CANCEL commands. */
    public boolean hasCommands31() {
        return this == V3_1;
    }

    /**
     * The revision both peers speak, given what the peer announced: the lower of ours and theirs.
     * Any 3.x minor version above 1 is treated as 3.1.
     */
    /** Whether this is ZMTP 2.0, the fallback: greeting, identity frame, frames; no commands. */
    public boolean isZmtp20() {
        return this == V2_0;
    }

    public static ZmtpVersion negotiate(ZmtpVersion ours, int peerMajor, int peerMinor) {
        if (peerMajor < 3) {
            throw new IllegalArgumentException("ZMTP " + peerMajor + ".x is not 3.x");
        }
        if (peerMajor == 3 && peerMinor == 0) {
            return V3_0;
        }
        return ours;
    }

    @Override
    public String toString() {
        return "ZMTP " + major + "." + minor;
    }
}
