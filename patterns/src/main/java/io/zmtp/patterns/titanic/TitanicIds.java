package io.zmtp.patterns.titanic;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Titanic request ids: 32 lower-case hex characters (128 random bits), as 9/TSP has them. */
public final class TitanicIds {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();

    private TitanicIds() {}

    /** A new random id. */
    public static String newId() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return HEX.formatHex(bytes);
    }

    /** Whether {@code text} is 32 hex characters (either case). */
    public static boolean isValid(String text) {
        if (text == null || text.length() != 32) {
            return false;
        }
        for (int i = 0; i < 32; i++) {
            if (Character.digit(text.charAt(i), 16) < 0) {
                return false;
            }
        }
        return true;
    }
}
