package io.zmtp.security;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * What a client presented to a server, with everything a 27/ZAP request carries: the socket's
 * domain, the client's address, our routing id, the mechanism and its credentials. The question
 * an {@link Authenticator} answers. {@link #toString} never shows the password.
 */
public final class AuthRequest {
    private static final byte[] NONE = new byte[0];

    private final String mechanism;
    private final SocketAddress remoteAddress;
    private final String domain;
    private final String address;
    private final byte[] routingId;
    private final byte[] username;
    private final byte[] password;
    private final byte[] clientPublicKey;

    private AuthRequest(String mechanism, SocketAddress remoteAddress, String domain, String address,
                        byte[] routingId, byte[] username, byte[] password, byte[] clientPublicKey) {
        this.mechanism = mechanism;
        this.remoteAddress = remoteAddress;
        this.domain = domain == null ? "" : domain;
        this.address = address != null ? address : ipAddress(remoteAddress);
        this.routingId = routingId == null ? NONE : routingId.clone();
        this.username = username;
        this.password = password;
        this.clientPublicKey = clientPublicKey;
    }

    /** A PLAIN client's credentials (the password bytes are copied). */
    public static AuthRequest plain(SocketAddress remoteAddress, String username, byte[] password) {
        return plain(remoteAddress, "", null, null, username.getBytes(StandardCharsets.UTF_8), password);
    }

    /** A CURVE client's long-term public key (copied). */
    public static AuthRequest curve(SocketAddress remoteAddress, byte[] clientPublicKey) {
        return curve(remoteAddress, "", null, null, clientPublicKey);
    }

    /** A NULL client: no credentials, only its address and the socket's domain. */
    public static AuthRequest nullMechanism(SocketAddress remoteAddress, String domain) {
        return new AuthRequest("NULL", remoteAddress, domain, null, null, null, null, null);
    }

    /**
     * A PLAIN request with every 27/ZAP field: {@code address} and {@code routingId} null mean
     * the numeric IP of {@code remoteAddress} and none.
     */
    public static AuthRequest plain(SocketAddress remoteAddress, String domain, String address, byte[] routingId,
                                    byte[] username, byte[] password) {
        return new AuthRequest("PLAIN", remoteAddress, domain, address, routingId, username.clone(),
                password.clone(), null);
    }

    /** A CURVE request with every 27/ZAP field (see {@link #plain(SocketAddress, String, String, byte[], byte[], byte[])}). */
    public static AuthRequest curve(SocketAddress remoteAddress, String domain, String address, byte[] routingId,
                                    byte[] clientPublicKey) {
        CurveKeyPair.checkKey(clientPublicKey, "public key");
        return new AuthRequest("CURVE", remoteAddress, domain, address, routingId, null, null,
                clientPublicKey.clone());
    }

    /** A NULL request with every 27/ZAP field. */
    public static AuthRequest nullMechanism(SocketAddress remoteAddress, String domain, String address,
                                            byte[] routingId) {
        return new AuthRequest("NULL", remoteAddress, domain, address, routingId, null, null, null);
    }

    /** "NULL", "PLAIN" or "CURVE". */
    public String mechanism() {
        return mechanism;
    }

    /** The client's address, or null when unknown. */
    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    /** The server socket's ZAP domain (ZMQ_ZAP_DOMAIN); empty when none was set. */
    public String domain() {
        return domain;
    }

    /**
     * The client's address as 27/ZAP's address frame: its numeric IP address without port for
     * TCP (as libzmq sends it), empty for other transports.
     */
    public String address() {
        return address;
    }

    /** A copy of the server socket's own routing id, as libzmq's ZAP request carries it (often empty). */
    public byte[] routingId() {
        return routingId.clone();
    }

    /** The PLAIN user name (UTF-8 decoded), or null for other mechanisms. */
    public String username() {
        return username == null ? null : new String(username, StandardCharsets.UTF_8);
    }

    /** A copy of the PLAIN password as sent (libzmq sends the bytes of a string), or null. */
    public byte[] password() {
        return password == null ? null : password.clone();
    }

    /** The password as UTF-8 text, or null for other mechanisms. */
    public String passwordString() {
        return password == null ? null : new String(password, StandardCharsets.UTF_8);
    }

    /** The password without copying, for this package. */
    byte[] passwordBytes() {
        return password;
    }

    /** A copy of the CURVE client's long-term public key, or null for other mechanisms. */
    public byte[] clientPublicKey() {
        return clientPublicKey == null ? null : clientPublicKey.clone();
    }

    /** The CURVE client's public key in Z85, or null for other mechanisms. */
    public String clientPublicKeyZ85() {
        return clientPublicKey == null ? null : Z85.encode(clientPublicKey);
    }

    /**
     * The credentials frames of a 27/ZAP request, copies: PLAIN's user name and password as sent,
     * CURVE's 32-byte client key, none for NULL.
     */
    public List<byte[]> credentials() {
        switch (mechanism) {
            case "PLAIN":
                return List.of(username.clone(), password.clone());
            case "CURVE":
                return List.of(clientPublicKey.clone());
            default:
                return List.of();
        }
    }

    /** Overwrites the password copy held here (the server does so once it has an answer). */
    void wipe() {
        if (password != null) {
            Arrays.fill(password, (byte) 0);
        }
    }

    /** The numeric IP address of a TCP peer, without port or scope; empty for other transports. */
    static String ipAddress(SocketAddress a) {
        if (a instanceof InetSocketAddress && ((InetSocketAddress) a).getAddress() != null) {
            String host = ((InetSocketAddress) a).getAddress().getHostAddress();
            int scope = host.indexOf('%');
            return scope >= 0 ? host.substring(0, scope) : host;
        }
        return "";
    }

    @Override
    public String toString() {
        return "AuthRequest{" + mechanism + " from " + (remoteAddress != null ? remoteAddress : "'" + address + "'")
                + (domain.isEmpty() ? "" : ", domain '" + io.zmtp.wire.FrameText.escape(domain) + "'")
                + (username != null ? ", user '" + io.zmtp.wire.FrameText.escape(username()) + "'" : "")
                + (clientPublicKey != null ? ", key " + clientPublicKeyZ85() : "") + "}";
    }
}
