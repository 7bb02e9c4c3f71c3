package io.zmtp.security;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * CURVE clients allowed by their long-term public key, for a CURVE server. An allowed client's
 * user id is its public key in Z85. Thread-safe (immutable).
 */
public final class CurveAllowList implements Authenticator {
    private final Set<String> keys;

    private CurveAllowList(Set<String> keys) {
        this.keys = keys;
    }

    /** Allows the given 32-byte public keys. */
    public static CurveAllowList of(Collection<byte[]> publicKeys) {
        Set<String> s = new HashSet<>();
        for (byte[] k : publicKeys) {
            CurveKeyPair.checkKey(k, "public key");
            s.add(Z85.encode(k));
        }
        return new CurveAllowList(s);
    }

    /** Allows the given public keys in Z85 (40 characters each). */
    public static CurveAllowList ofZ85(String... publicKeys) {
        Set<String> s = new HashSet<>();
        for (String k : publicKeys) {
            s.add(Z85.encode(CurveKeyPair.decodeKey(k, "public key")));
        }
        return new CurveAllowList(s);
    }

    /** Allows the public keys of the given certificates. */
    public static CurveAllowList ofCertificates(Collection<CurveCertificate> certificates) {
        Set<String> s = new HashSet<>();
        for (CurveCertificate c : certificates) {
            s.add(c.publicKeyZ85());
        }
        return new CurveAllowList(s);
    }

    public boolean contains(byte[] publicKey) {
        return publicKey != null && publicKey.length == CurveKeyPair.KEY_BYTES && keys.contains(Z85.encode(publicKey));
    }

    @Override
    public AuthResult authenticate(AuthRequest request) {
        if (!"CURVE".equals(request.mechanism())) {
            return AuthResult.deny("400", "a CURVE allow list cannot authenticate a " + request.mechanism() + " client");
        }
        String key = request.clientPublicKeyZ85();
        if (keys.contains(key)) {
            return AuthResult.allow(key);
        }
        return AuthResult.deny("400", "client key " + key + " is not on the allow list");
    }

    @Override
    public String toString() {
        return "CurveAllowList{" + keys.size() + " keys}";
    }
}
