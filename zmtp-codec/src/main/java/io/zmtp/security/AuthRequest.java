package io.zmtp.security;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * What a client presented to a PLAIN or CURVE server: the question an {@link Authenticator}
 * answers. {@link #toString} never shows the password.
 */
public final class AuthRequest {
    private final String mechanism;
    private final SocketAddress remoteAddress;
    private final String username;
    private final byte[] password;
    private final byte[] clientPublicKey;

    private AuthRequest(String mechanism, SocketAddress remoteAddress, String username, byte[] password,
                        byte[] clientPublicKey) {
        this.mechanism = mechanism;
        this.remoteAddress = remoteAddress;
        this.username = username;
        this.password = password;
        this.clientPublicKey = clientPublicKey;
    }

    /** A PLAIN client's credentials (the password bytes are copied). */
    public static AuthRequest plain(SocketAddress remoteAddress, String username, byte[] password) {
        return new AuthRequest("PLAIN", remoteAddress, username, password.clone(), null);
    }

    /** A CURVE client's long-term public key (copied). */
    public static AuthRequest curve(SocketAddress remoteAddress, byte[] clientPublicKey) {
        CurveKeyPair.checkKey(clientPublicKey, "public key");
        return new AuthRequest("CURVE", remoteAddress, null, null, clientPublicKey.clone());
    }

    /** "PLAIN" or "CURVE". */
    public String mechanism() {
        return mechanism;
    }

    /** The client's address, or null when unknown. */
    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    /** The PLAIN user name (UTF-8 decoded), or null for CURVE. */
    public String username() {
        return username;
    }

    /** A copy of the PLAIN password as sent (libzmq sends the bytes of a string), or null for CURVE. */
    public byte[] password() {
        return password == null ? null : password.clone();
    }

    /** The password as UTF-8 text, or null for CURVE. */
    public String passwordString() {
        return password == null ? null : new String(password, StandardCharsets.UTF_8);
    }

    /** The password without copying, for this package. */
    byte[] passwordBytes() {
        return password;
    }

    /** A copy of the CURVE client's long-term public key, or null for PLAIN. */
    public byte[] clientPublicKey() {
        return clientPublicKey == null ? null : clientPublicKey.clone();
    }

    /** The CURVE client's public key in Z85, or null for PLAIN. */
    public String clientPublicKeyZ85() {
        return clientPublicKey == null ? null : Z85.encode(clientPublicKey);
    }

    /** Overwrites the password copy held here (the server does so once it has an answer). */
    void wipe() {
        if (password != null) {
            java.util.Arrays.fill(password, (byte) 0);
        }
    }

    @Override
    public String toString() {
        return "AuthRequest{" + mechanism + " from " + remoteAddress
                + (username != null ? ", user '" + io.zmtp.wire.FrameText.escape(username) + "'" : "")
                + (clientPublicKey != null ? ", key " + clientPublicKeyZ85() : "") + "}";
    }
}
