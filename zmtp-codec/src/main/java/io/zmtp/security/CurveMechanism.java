package io.zmtp.security;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Objects;
import java.util.function.LongSupplier;
import io.zmtp.wire.HandshakeSession;
import io.zmtp.wire.Mechanism;
import io.zmtp.wire.MechanismHandshake;

/**
 * The CURVE mechanism (25/ZMTP-CURVE, 26/CURVEZMQ): the client authenticates the server by its
 * long-term public key, the server authenticates the client by its long-term public key (through
 * an {@link Authenticator}), and every frame after the handshake is encrypted and authenticated
 * with per-connection transient keys (forward secrecy). Interoperates with libzmq's CURVE.
 *
 * <pre>
 * client (as-server 0)                               server (as-server 1)
 *   HELLO C', Box[64 zeros](C'-&gt;S)          --&gt;       (opens it: the client knows S)
 *                                           &lt;--       WELCOME Box[S' + cookie](S-&gt;C')
 *   INITIATE cookie, Box[C + vouch + metadata](C'-&gt;S')  --&gt;
 *                                           &lt;--       READY Box[metadata](S'-&gt;C')   (or ERROR "400")
 *   MESSAGE Box[flags + frame](C'-&gt;S')       &lt;--&gt;      MESSAGE Box[flags + frame](S'-&gt;C')
 * </pre>
 *
 * <p><b>Server state.</b> Between WELCOME and INITIATE the server keeps no keys for the client:
 * C' and s' travel in the cookie, sealed with a cookie key that all connections of this mechanism
 * share and that rotates every 60 seconds (the previous key still opens cookies for another 60).
 * The connection remembers only HELLO's short nonce and the cookie's 16-byte nonce, so a cookie
 * (and the INITIATE carrying it) cannot be replayed on another connection. A HELLO that does not
 * open (a client with the wrong server key), and every malformed or out-of-order command, closes
 * that connection without an answer; a refused client key gets ERROR with the authenticator's
 * status code.
 *
 * <p><b>Messages.</b> Each ZMTP frame, data or command (PING, PONG, SUBSCRIBE, CANCEL), travels
 * as one MESSAGE whose box starts with a flags byte (0x01 MORE, 0x02 COMMAND), as libzmq does;
 * the MESSAGE itself goes out as a plain data frame (flags 0x00, or 0x02 when long), again as
 * libzmq sends it. Short nonces count up from 1 in each direction, shared by all commands of that
 * direction; a received nonce must be above the last one accepted, so replayed or reordered
 * commands close the connection, as does a MESSAGE that fails authentication (never answered
 * with ERROR).
 *
 * <p><b>Roles.</b> We announce as-server 1 as the server and 0 as the client; libzmq announces 0
 * in both roles, so a client accepts a peer announcing 0 (see {@link PlainMechanism}).
 *
 * <p>Secret keys never appear in {@link #toString} or in log messages.
 */
public final class CurveMechanism implements Mechanism {
    public static final String NAME = CurveLayout.NAME;


    private final CurveKeyPair keys;
    private final byte[] serverKey;
    private final Authenticator authenticator;
    private final SecureRandom random;
    private final CookieKeys cookies;

    private CurveMechanism(CurveKeyPair keys, byte[] serverKey, Authenticator authenticator, SecureRandom random,
                           CookieKeys cookies) {
        this.keys = Objects.requireNonNull(keys, "key pair");
        this.serverKey = serverKey;
        this.authenticator = authenticator;
        this.random = random;
        this.cookies = cookies;
        // libsodium (through JNA) is looked for once per process, which took 150-170 ms here: so
        // on the thread that configures a socket, not on an event loop at its first handshake
        Libsodium.available();
    }

    /**
     * A CURVE client that connects to the server whose long-term public key is
     * {@code serverPublicKey} (32 bytes), presenting {@code clientKeys}.
     */
    public static CurveMechanism client(byte[] serverPublicKey, CurveKeyPair clientKeys) {
        return client(serverPublicKey, clientKeys, CurveKeyPair.DEFAULT_RANDOM);
    }

    /** As {@link #client(byte[], CurveKeyPair)} with the server key in Z85 (40 characters). */
    public static CurveMechanism client(String serverPublicKeyZ85, CurveKeyPair clientKeys) {
        return client(CurveKeyPair.decodeKey(serverPublicKeyZ85, "server public key"), clientKeys);
    }

    /** A CURVE server with long-term keys {@code serverKeys}, asking {@code authenticator} about clients. */
    public static CurveMechanism server(CurveKeyPair serverKeys, Authenticator authenticator) {
        return server(serverKeys, authenticator, CurveKeyPair.DEFAULT_RANDOM, System::nanoTime,
                CookieKeys.DEFAULT_LIFETIME_NANOS);
    }

    /** A client drawing transient keys and nonces from {@code random} (tests use a fixed one). */
    static CurveMechanism client(byte[] serverPublicKey, CurveKeyPair clientKeys, SecureRandom random) {
        CurveKeyPair.checkKey(serverPublicKey, "server public key");
        return new CurveMechanism(clientKeys, serverPublicKey.clone(), null, random, null);
    }

    /**
     * A server drawing transient keys, nonces and cookie keys from {@code random}, with cookie keys
     * that seal for {@code cookieLifetimeNanos} of {@code nanoClock} and open for as long again.
     */
    static CurveMechanism server(CurveKeyPair serverKeys, Authenticator authenticator, SecureRandom random,
                                 LongSupplier nanoClock, long cookieLifetimeNanos) {
        Objects.requireNonNull(authenticator, "authenticator");
        return new CurveMechanism(serverKeys, null, authenticator, random,
                new CookieKeys(random, nanoClock, cookieLifetimeNanos));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean asServer() {
        return authenticator != null;
    }

    @Override
    public MechanismHandshake newHandshake(HandshakeSession session) {
        return asServer() ? new CurveServerHandshake(session, keys, authenticator, random, cookies)
                : new CurveClientHandshake(session, keys, serverKey, random);
    }

    /** Our long-term public key. */
    public byte[] publicKey() {
        return keys.publicKey();
    }

    CurveKeyPair keys() {
        return keys;
    }

    byte[] serverKey() {
        return serverKey;
    }

    Authenticator authenticator() {
        return authenticator;
    }

    SecureRandom random() {
        return random;
    }

    CookieKeys cookies() {
        return cookies;
    }

    /** Public keys only. */
    @Override
    public String toString() {
        return asServer() ? "CURVE server (key " + keys.publicKeyZ85() + ", " + authenticator + ")"
                : "CURVE client (key " + keys.publicKeyZ85() + ", server " + Z85.encode(serverKey) + ")";
    }

}
