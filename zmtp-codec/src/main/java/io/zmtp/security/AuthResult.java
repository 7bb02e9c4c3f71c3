package io.zmtp.security;

import java.util.Objects;

/**
 * An {@link Authenticator}'s answer: allow, with the user id messages from the client will carry,
 * or deny, with a ZAP status code (27/ZAP: "300" temporary failure, "400" authentication failure,
 * "500" internal error) that the client receives in a ZMTP ERROR command.
 */
public final class AuthResult {
    private static final AuthResult ALLOW_ANONYMOUS = new AuthResult(true, null, "200", "OK");

    private final boolean allowed;
    private final String userId;
    private final String statusCode;
    private final String reason;

    private AuthResult(boolean allowed, String userId, String statusCode, String reason) {
        this.allowed = allowed;
        this.userId = userId;
        this.statusCode = statusCode;
        this.reason = reason;
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
        Objects.requireNonNull(statusCode, "statusCode");
        if (statusCode.length() != 3 || !statusCode.chars().allMatch(c -> c >= '0' && c <= '9')
                || statusCode.charAt(0) == '2') {
            throw new IllegalArgumentException("a denial's status code is 3 digits not starting with 2: "
                    + statusCode);
        }
        return new AuthResult(false, null, statusCode, reason == null ? "" : reason);
    }

    public boolean isAllowed() {
        return allowed;
    }

    /** The user id of an allowed client, or null. */
    public String userId() {
        return userId;
    }

    /** "200" when allowed, else the denial's status code. */
    public String statusCode() {
        return statusCode;
    }

    /** Why a client was denied (for the log). */
    public String reason() {
        return reason;
    }

    @Override
    public String toString() {
        return allowed ? "allow" + (userId != null ? " '" + userId + "'" : "")
                : "deny " + statusCode + " (" + reason + ")";
    }
}
