package io.zmtp.security;

import java.util.Collection;
import java.util.Map;

/**
 * Decides whether a PLAIN or CURVE client may connect: the application's side of a server
 * mechanism, in the role libzmq gives a ZAP handler (27/ZAP).
 *
 * <p>It is asked once per connection, with the client's credentials (PLAIN user name and
 * password, or the CURVE client's long-term public key), and answers {@link AuthResult#allow} with
 * the user id that messages from that client will carry as their {@code User-Id} property, or
 * {@link AuthResult#deny} with a ZAP status code. A denied client receives ZMTP ERROR with that
 * code (the connection then closes, and a well-behaved client does not retry with the same
 * credentials).
 *
 * <p><b>Threading:</b> {@link #authenticate} is called on the connection's Netty event loop, for
 * many connections of one socket from several event loops at once. It must be thread-safe and
 * must not block: look credentials up in memory (the ready-made ones below do). An authenticator
 * that must consult a slow service should keep a cache that another thread refreshes. An
 * exception thrown by it refuses the client with status {@code "500"}.
 */
@FunctionalInterface
public interface Authenticator {

    AuthResult authenticate(AuthRequest request);

    /**
     * Accepts every client. The user id is the PLAIN user name, or the CURVE client's public key in
     * Z85. For tests and for CURVE servers that only want encryption; note that a PLAIN server
     * that accepts every credential authenticates no one.
     */
    static Authenticator allowAll() {
        return request -> AuthResult.allow("PLAIN".equals(request.mechanism())
                ? request.username() : request.clientPublicKeyZ85());
    }

    /** PLAIN accounts: user name to password. See {@link PlainAccounts}. */
    static Authenticator plainAccounts(Map<String, String> passwords) {
        return PlainAccounts.of(passwords);
    }

    /** CURVE clients whose long-term public keys are listed. See {@link CurveAllowList}. */
    static Authenticator curveAllowList(Collection<byte[]> publicKeys) {
        return CurveAllowList.of(publicKeys);
    }
}
