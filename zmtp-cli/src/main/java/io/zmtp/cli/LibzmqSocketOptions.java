package io.zmtp.cli;

import io.zmtp.socket.SocketOptions;
import picocli.CommandLine.Option;

import java.nio.charset.StandardCharsets;

/**
 * The picocli mixin of libzmq's socket options that change what a socket does with messages,
 * for {@code zmtp cat}: each flag sets the {@link SocketOptions} setting of the same name (the
 * table of docs/socket-options.md says what each does and on which types).
 */
final class LibzmqSocketOptions {
    @Option(names = "--conflate", description = "Keep only the last message in each queue (ZMQ_CONFLATE; PUB, SUB, "
            + "PUSH, PULL, DEALER): a slow reader sees the latest value.")
    boolean conflate;

    @Option(names = "--probe-router", description = "Send an empty message to each new peer (ZMQ_PROBE_ROUTER; "
            + "ROUTER, DEALER, REQ).")
    boolean probeRouter;

    @Option(names = "--router-notify", description = "ROUTER: print a line of the peer's routing id and an empty "
            + "frame when a peer connects and when it disconnects (ZMQ_ROUTER_NOTIFY).")
    boolean routerNotify;

    @Option(names = "--xpub-welcome", paramLabel = "TEXT", description = "XPUB: send TEXT to each new subscriber "
            + "(ZMQ_XPUB_WELCOME_MSG).")
    String xpubWelcome;

    @Option(names = "--xpub-nodrop", description = "PUB, XPUB: a line waits while a subscriber is at its "
            + "high-water mark instead of being dropped for it (ZMQ_XPUB_NODROP).")
    boolean xpubNoDrop;

    @Option(names = "--invert-matching", description = "PUB, XPUB: send to subscribers whose prefixes do not match; "
            + "SUB: print what matches none of the --subscribe prefixes (ZMQ_INVERT_MATCHING).")
    boolean invertMatching;

    /** Sets the flags given on {@code b}. */
    SocketOptions.Builder apply(SocketOptions.Builder b) {
        b.conflate(conflate).probeRouter(probeRouter).xpubNoDrop(xpubNoDrop).invertMatching(invertMatching);
        if (routerNotify) {
            b.routerNotify(SocketOptions.NOTIFY_CONNECT | SocketOptions.NOTIFY_DISCONNECT);
        }
        if (xpubWelcome != null) {
            b.xpubWelcomeMessage(xpubWelcome.getBytes(StandardCharsets.UTF_8));
        }
        return b;
    }
}
