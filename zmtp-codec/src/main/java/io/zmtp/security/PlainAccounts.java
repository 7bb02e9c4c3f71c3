package io.zmtp.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.Map;

/**
 * A fixed set of PLAIN accounts (user name to password), for a PLAIN server. An allowed client's
 * user id is its user name.
 *
 * <p>Only SHA-256 digests of the passwords are kept. A check always digests the presented
 * password and compares digests in constant time, also for an unknown user name, so the time it
 * takes reveals neither how much of a password matched, nor its length, nor whether the user
 * exists; both kinds of failure give the same reason. Thread-safe (immutable).
 *
 * <p>Remember that PLAIN sends the password in clear text: use it on trusted networks only.
 */
public final class PlainAccounts implements Authenticator {
    private final Map<String, byte[]> digests;
    private final byte[] unknownUser;

    private PlainAccounts(Map<String, byte[]> digests) {
        this.digests = digests;
        this.unknownUser = digest("no such user".getBytes(StandardCharsets.UTF_8));
    }

    /** Accounts from a map of user name to password (copied). */
    public static PlainAccounts of(Map<String, String> passwords) {
        Map<String, byte[]> d = new HashMap<>();
        passwords.forEach((user, password) -> {
            if (user == null || password == null) {
                throw new IllegalArgumentException("null user name or password");
            }
            d.put(user, digest(password.getBytes(StandardCharsets.UTF_8)));
        });
        return new PlainAccounts(d);
    }

    @Override
    public AuthResult authenticate(AuthRequest request) {
        if (!"PLAIN".equals(request.mechanism())) {
            return AuthResult.deny("400", "PLAIN accounts cannot authenticate a " + request.mechanism() + " client");
        }
        byte[] presented = digest(request.passwordBytes());
        byte[] expected = digests.get(request.username());
        boolean match = MessageDigest.isEqual(presented, expected != null ? expected : unknownUser);
        if (match && expected != null) {
            return AuthResult.allow(request.username());
        }
        return AuthResult.deny("400", "unknown user name or wrong password");
    }

    private static byte[] digest(byte[] password) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(password);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "PlainAccounts{" + digests.size() + " accounts}";
    }
}
