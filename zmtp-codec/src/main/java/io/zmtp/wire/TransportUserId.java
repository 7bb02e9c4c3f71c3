package io.zmtp.wire;

import io.netty.util.AttributeKey;

/**
 * A user id the transport established for a connection before ZMTP began: on tls:// and wss://,
 * the subject of the certificate the peer presented. A handler before {@link ZmtpCodec} sets the
 * channel attribute {@link #KEY}; when the ZMTP mechanism completes without a user of its own
 * (NULL), the codec reports this one as the peer's User-Id (in {@link HandshakeCompleted} and in
 * every message's properties), so a service can authorise by certificate as it does by CURVE key.
 * A user id named by the mechanism (PLAIN's user name, a CURVE authenticator's answer) wins.
 */
public final class TransportUserId {
    /** The channel attribute holding the transport's user id. */
    public static final AttributeKey<String> KEY = AttributeKey.valueOf(TransportUserId.class, "userId");

    private TransportUserId() {
    }
}
