package io.zmtp.wire;

/**
 * The facts of ZMTP 2.0 (15/ZMTP, libzmq 3.x) that the opt-in fallback needs. A 2.0 greeting is
 * the same 10-byte signature as 3.x, then the revision byte (1) and one socket-type byte; then
 * each side sends its identity as one short final frame (flags 0, length, bytes), and frames
 * follow as in 3.x but with only the MORE (1) and LONG (2) flags: no commands, no metadata, no
 * security.
 */
final class Zmtp20 {
    /** The revision byte of a ZMTP 2.0 greeting (where 3.x has its major version). */
    static final int REVISION = 1;
    /** The code of a type ZMTP 2.0 did not have ({@link SocketType#zmtp20Code()}). */
    private static final int NO_CODE = -1;

    /** The socket types by their 2.0 code (each type's {@link SocketType#zmtp20Code()}): the index is the byte on the wire. */
    private static final SocketType[] TYPES = byCode();

    private Zmtp20() {
    }

    private static SocketType[] byCode() {
        int n = 0;
        for (SocketType t : SocketType.values()) {
            n = Math.max(n, t.zmtp20Code() + 1);
        }
        SocketType[] types = new SocketType[n];
        for (SocketType t : SocketType.values()) {
            if (t.zmtp20Code() != NO_CODE) {
                types[t.zmtp20Code()] = t;
            }
        }
        return types;
    }

    /** The socket-type byte of {@code type} in a 2.0 greeting. */
    static int typeCode(SocketType type) {
        if (type.zmtp20Code() == NO_CODE) {
            throw new IllegalArgumentException(type + " has no ZMTP 2.0 code");
        }
        return type.zmtp20Code();
    }

    /** The socket type of a 2.0 socket-type byte, or null for an unknown code. */
    static SocketType type(int code) {
        return code >= 0 && code < TYPES.length ? TYPES[code] : null;
    }
}
