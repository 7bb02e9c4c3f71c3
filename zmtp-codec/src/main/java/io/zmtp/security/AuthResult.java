package io.zmtp.security;

import io.zmtp.wire.ZmtpMetadata;

import java.util.Objects;

/**
 * An {@link Authenticator}'s answer: allow, with the user id messages from the client will carry,
 * or deny, with a ZAP status code (27/ZAP: "300" temporary failure, "400" authentication failure,
 * "500" internal error) that the client receives in a ZMTP ERROR command. An immutable value,
 * made with {@link #allow}, {@link #deny}; the constructor checks the same rules.
 *
 * @param allowed whether the client is let in
 * @param userId the user id of an allowed client (its messages' User-Id), or null
 * @param statusCode "200" when allowed, else the denial's status code: three ASCII digits, not
 *     starting with 2
 * @param reason the status text: why a client was denied (for our log; the client only receives
 *     the status code); "OK" when allowed
 * @param properties metadata an allowed client's messages carry besides what the client announced
 *     (a ZAP handler's metadata frame), as libzmq adds them; empty when none
 */
public record AuthResult(boolean allowed, String userId, String statusCode, String reason, ZmtpMetadata properties) {
    private static final AuthResult ALLOW_ANONYMOUS = new AuthResult(true, null, "200", "OK");

    /** A result without properties. */
    public AuthResult(boolean allowed, String userId, String statusCode, String reason) {
        this(allowed, userId, statusCode, reason, ZmtpMetadata.EMPTY);
    }

    public AuthResult {
        Objects.requireNonNull(statusCode, "statusCode");
        if (allowed) {
            if (!statusCode.equals("200")) {
                throw new IllegalArgumentException("an allowed client's status code is 200, not " + statusCode);
            }
        } else {
            if (statusCode.length() != 3 || !statusCode.chars().allMatch(c -> c >= '0' && c <= '9')
                    || statusCode.charAt(0) == '2') {
                throw new IllegalArgumentException("a denial's status code is 3 digits not starting with 2: "
                        + statusCode);
            }
            if (userId != null) {
                throw new IllegalArgumentException("a denied client has no user id");
            }
        }
        if (reason == null) {
            reason = "";
        }
        if (properties == null) {
            properties = ZmtpMetadata.EMPTY;
        } else if (!allowed && !properties.isEmpty()) {
            throw new IllegalArgumentException("a denied client has no properties");
        }
    }

    /** Allow; messages carry {@code userId} (may be null: no User-Id property) as their User-Id. */
    public static AuthResult allow(String userId) {
        return userId == null ? ALLOW_ANONYMOUS : new AuthResult(true, userId, "200", "OK");
    }

    /** Allow without a user id. */
    public static AuthResult allow() {
        return ALLOW_ANONYMOUS;
    }

    /** Deny with status "400" (authentication failure). */
    public static AuthResult deny(String reason) {
        return deny("400", reason);
    }

    /**
     * Deny with a status code: three ASCII digits, not starting with 2.
     *
     * @param reason why, for our log (the client only receives the status code)
     */
    public static AuthResult deny(String statusCode, String reason) {
        return new AuthResult(false, null, statusCode, reason);
    }

    /**
     * Allow with properties that every message from the client will carry (for example a role
     * looked up with its credentials), readable through {@code ZmtpMessage} metadata as libzmq's
     * ZAP metadata is. They replace a property of the same name that the client announced.
     */
    public static AuthResult allow(String userId, ZmtpMetadata properties) {
        return new AuthResult(true, userId, "200", "OK", properties);
    }

    /** Same as {@link #allowed()}. */
    public boolean isAllowed() {
        return allowed;
    }

    @Override
    public String toString() {
        return allowed ? "allow" + (userId != null ? " '" + userId + "'" : "")
                + (properties.isEmpty() ? "" : " " + properties)
                : "deny " + statusCode + " (" + reason + ")";
    }
}
