package io.zmtp.socket;

/**
 * What the pattern tests may ask of a context beyond its public API (in the socket package, for
 * its package-private test accessors): how many of its sockets are still open.
 */
public final class ContextProbe {
    private ContextProbe() {
    }

    /** The sockets of {@code ctx} made and not yet closed. */
    public static int openSockets(ZmtpContext ctx) {
        return ctx.openSockets().size();
    }
}
