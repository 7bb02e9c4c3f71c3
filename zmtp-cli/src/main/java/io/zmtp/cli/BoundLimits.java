package io.zmtp.cli;

import io.zmtp.socket.SocketOptions;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * The limits of the endpoints a command binds, as a picocli mixin for every command that binds
 * sockets peers connect to ({@code @Mixin BoundLimits limits;}): each option sets the
 * {@link SocketOptions} setting of its name (docs/limits.md says what happens at each). The
 * defaults are the library's, read from {@link SocketOptions}, so --help shows them and an option
 * left out changes nothing. A socket applies the connection limits and the backlog to its bound
 * endpoints only; the handshake timeout is every connection's.
 */
public final class BoundLimits {
    @Option(names = "--max-connections", paramLabel = "N",
            description = "Connections each bound endpoint holds at once, those in their handshake included; at it"
                    + " an older one makes room: the oldest still in its handshake, else the peer heard from"
                    + " longest ago (default: the library's, ${DEFAULT-VALUE}).")
    int maxConnections = SocketOptions.DEFAULT_MAX_CONNECTIONS;

    @Option(names = "--max-handshakes", paramLabel = "N",
            description = "Connections of each bound endpoint in their handshake at once; at it the oldest of them"
                    + " is closed to make room (default: the library's, ${DEFAULT-VALUE}).")
    int maxHandshakes = SocketOptions.DEFAULT_MAX_HANDSHAKES;

    @Option(names = "--max-handshakes-per-address", paramLabel = "N",
            description = "Connections from one IP address in their handshake at once, per bound endpoint; past it"
                    + " a new one from that address is refused (default: the library's, ${DEFAULT-VALUE}).")
    int maxHandshakesPerAddress = SocketOptions.DEFAULT_MAX_HANDSHAKES_PER_ADDRESS;

    @Option(names = "--max-connections-per-address", paramLabel = "N",
            description = "Connections from one IP address per bound endpoint, handshaken or not; past it a new one"
                    + " from that address is refused. 0: no bound, as a worker host or a NAT gateway brings many"
                    + " peers from one address (default: the library's, ${DEFAULT-VALUE}).")
    int maxConnectionsPerAddress = SocketOptions.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;

    @Option(names = "--backlog", paramLabel = "N",
            description = "Connections the kernel queues for each bound endpoint before they are accepted"
                    + " (ZMQ_BACKLOG; default: the library's, the system's somaxconn, ${DEFAULT-VALUE}).")
    int backlog = SocketOptions.DEFAULT_BACKLOG;

    @Option(names = "--listeners", paramLabel = "N",
            description = "Listening sockets per bound tcp:// or tls:// endpoint, sharing its port (SO_REUSEPORT,"
                    + " Linux): each queues --backlog connections, so a server restarted under thousands of peers"
                    + " connecting at once loses none to a full queue. More than 1 lets another process of the"
                    + " same user with SO_REUSEPORT bind the port too (default: the library's, ${DEFAULT-VALUE},"
                    + " exclusive).")
    int listeners = SocketOptions.DEFAULT_LISTENERS;

    @Option(names = "--accept-queue", paramLabel = "N",
            description = "Connections each bound endpoint accepts ahead of setting them up: a crowd connecting at"
                    + " once waits here rather than overflowing the kernel's queue; at it the rest wait in the"
                    + " kernel's. The process's descriptor table is grown to hold as many before the first bind"
                    + " (default: the library's, ${DEFAULT-VALUE}).")
    int acceptQueue = SocketOptions.DEFAULT_ACCEPT_QUEUE;

    @Option(names = "--handshake-timeout", paramLabel = "DURATION",
            description = "How long a connection's greeting and handshake may take before it is closed"
                    + " (ZMQ_HANDSHAKE_IVL; default: the library's, ${DEFAULT-VALUE}).")
    String handshakeTimeout = DurationConverter.format(SocketOptions.DEFAULTS.handshakeTimeout());

    /**
     * Sets the limits on {@code b}; a value the library refuses is an IllegalArgumentException
     * naming the option, with the library's message (the commands' usage error).
     */
    public SocketOptions.Builder apply(SocketOptions.Builder b) {
        Duration timeout = DurationConverter.parse("--handshake-timeout", handshakeTimeout);
        set("--max-connections", maxConnections, b::maxConnections);
        set("--max-handshakes", maxHandshakes, b::maxHandshakes);
        set("--max-handshakes-per-address", maxHandshakesPerAddress, b::maxHandshakesPerAddress);
        set("--max-connections-per-address", maxConnectionsPerAddress, b::maxConnectionsPerAddress);
        set("--backlog", backlog, b::backlog);
        set("--listeners", listeners, b::listeners);
        set("--accept-queue", acceptQueue, b::acceptQueue);
        set("--handshake-timeout", timeout, b::handshakeTimeout);
        return b;
    }

    private static <T> void set(String option, T value, Consumer<T> setter) {
        try {
            setter.accept(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
        }
    }
}
