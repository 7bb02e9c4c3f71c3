package io.zmtp.patterns.binarystar;

/**
 * The states of a Binary Star server (the guide's chapter 4). A server starts as
 * {@link #PRIMARY} or {@link #BACKUP} and becomes {@link #ACTIVE} (serves clients) or
 * {@link #PASSIVE} (refuses them, ready to take over). On the wire between the pair a state is
 * one frame, its {@link #code()} as ASCII decimal ({@code 1}..{@code 4}).
 */
public enum BinaryStarState {
    PRIMARY(1), BACKUP(2), ACTIVE(3), PASSIVE(4);

    private final int code;

    BinaryStarState(int code) {
        this.code = code;
    }

    /** The number that stands for the state on the wire (and for the peer event it causes). */
    public int code() {
        return code;
    }

    /** The state of wire number {@code code}, or null when it is none. */
    public static BinaryStarState ofCode(int code) {
        return switch (code) {
            case 1 -> PRIMARY;
            case 2 -> BACKUP;
            case 3 -> ACTIVE;
            case 4 -> PASSIVE;
            default -> null;
        };
    }

    /**
     * The state a frame holds: ASCII decimal {@code 1}..{@code 4} (optionally a trailing NUL, as
     * a C string), or null for anything else.
     */
    public static BinaryStarState parse(byte[] frame) {
        int n = frame.length;
        if (n == 2 && frame[1] == 0) {
            n = 1;
        }
        if (n != 1 || frame[0] < '1' || frame[0] > '4') {
            return null;
        }
        return ofCode(frame[0] - '0');
    }
}
