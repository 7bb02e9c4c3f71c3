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

    /** The socket types by their 2.0 code: the index is the byte on the wire. */
    private static final SocketType[] TYPES = {
        SocketType.PAIR, SocketType.PUB, SocketType.SUB, SocketType.REQ, SocketType.REP, SocketType.DEALER,
        SocketType.ROUTER, SocketType.PULL, SocketType.PUSH, SocketType.XPUB, SocketType.XSUB,
    };

    private Zmtp20() {
    }

    /** The socket-type byte of {@code type} in a 2.0 greeting. */
    static int typeCode(SocketType type) {
        for (int i = 0; i < TYPES.length; i++) {
            if (TYPES[i] == type) {
                return i;
            }
        }
        throw new IllegalArgumentException(type + " has no ZMTP 2.0 code");
    }

    /** The socket type of a 2.0 socket-type byte, or null for an unknown code. */
    static SocketType type(int code) {
        return code >= 0 && code < TYPES.length ? TYPES[code] : null;
    }
}
