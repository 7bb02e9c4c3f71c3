package io.zmtp.wire;

import java.util.Arrays;

/**
 * User event fired by {@link ZmtpCodec} when a connection's handshake has succeeded; messages
 * follow it. Carries what the peer announced.
 */
public final class HandshakeCompleted {
    private final ZmtpVersion version;
    private final String mechanism;
    private final ZmtpMetadata peerMetadata;
    private final ConnectionWriter writer;

    public HandshakeCompleted(ZmtpVersion version, String mechanism, ZmtpMetadata peerMetadata) {
        this(version, mechanism, peerMetadata, null);
    }

    HandshakeCompleted(ZmtpVersion version, String mechanism, ZmtpMetadata peerMetadata, ConnectionWriter writer) {
        this.version = version;
        this.mechanism = mechanism;
        this.peerMetadata = peerMetadata;
        this.writer = writer;
    }

    /**
     * Writes into the codec that fired this event without a trip through the pipeline (event loop
     * only), or null when the event was made elsewhere. For the one handler that owns the
     * connection; see {@link ConnectionWriter}.
     */
    public ConnectionWriter writer() {
        return writer;
    }

    /** The revision both sides speak: the lower of the two announced. */
    public ZmtpVersion version() {
        return version;
    }

    public String mechanism() {
        return mechanism;
    }

    /** Everything the peer announced, plus User-Id (when authenticated) and Peer-Address. */
    public ZmtpMetadata peerMetadata() {
        return peerMetadata;
    }

    public SocketType peerSocketType() {
        return peerMetadata.socketType();
    }

    /** The identity the peer announced (empty when none). */
    public byte[] peerIdentity() {
        return peerMetadata.identity();
    }

    /** The authenticated user id, or null. */
    public String userId() {
        return peerMetadata.userId();
    }

    @Override
    public String toString() {
        return "HandshakeCompleted{" + version + ", " + mechanism + ", peer=" + peerMetadata + "}";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HandshakeCompleted && ((HandshakeCompleted) o).version == version
                && ((HandshakeCompleted) o).mechanism.equals(mechanism)
                && Arrays.equals(((HandshakeCompleted) o).peerIdentity(), peerIdentity());
    }

    @Override
    public int hashCode() {
        return version.hashCode() * 31 + mechanism.hashCode();
    }
}
