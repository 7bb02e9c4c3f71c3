package io.zmtp.patterns.titanic;

import java.nio.charset.StandardCharsets;

/**
 * The status frame of every 9/TSP reply: three ASCII digits, optionally followed by a space and
 * text that clients ignore. Titanic sends the bare digits (the guide's clients compare the whole
 * frame).
 */
public enum TitanicStatus {
    /** 200: done; for {@code titanic.reply} the reply follows. */
    OK(200),
    /** 300: the reply is not there yet; ask again later. */
    PENDING(300),
    /** 400: an invalid or unknown uuid, or a malformed request: do not retry. */
    UNKNOWN(400),
    /** 500: the server could not do it now (store full or failing): retry later. */
    ERROR(500);

    private final int code;
    private final byte[] frame;

    TitanicStatus(int code) {
        this.code = code;
        this.frame = Integer.toString(code).getBytes(StandardCharsets.US_ASCII);
    }

    public int code() {
        return code;
    }

    /** The status frame as sent: the three digits. */
    public byte[] frame() {
        return frame.clone();
    }

    /** Whether a client should ask again later (300 and 500). */
    public boolean retryLater() {
        return this == PENDING || this == ERROR;
    }

    /**
     * Reads a status frame: three digits, then nothing or a space and any text. Null when the frame
     * is not one of the four codes.
     */
    public static TitanicStatus parse(byte[] frame) {
        if (frame == null || frame.length < 3 || (frame.length > 3 && frame[3] != ' ')) {
            return null;
        }
        int code = 0;
        for (int i = 0; i < 3; i++) {
            int d = frame[i] - '0';
            if (d < 0 || d > 9) {
                return null;
            }
            code = code * 10 + d;
        }
        for (TitanicStatus s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return code + " " + name();
    }
}
