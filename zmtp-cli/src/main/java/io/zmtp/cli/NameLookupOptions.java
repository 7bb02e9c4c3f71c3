package io.zmtp.cli;

import io.zmtp.socket.ZmtpContext;
import io.zmtp.transport.NameResolvers;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How the host names of endpoints are looked up, as a picocli mixin for every command that
 * connects or binds ({@code @Mixin NameLookupOptions names;}): the name servers and the lookup
 * timeout of {@link ZmtpContext#nameResolution}, which connects and binds by name share. Left out,
 * the library's defaults: the system's name servers and
 * {@value NameResolvers#DEFAULT_LOOKUP_TIMEOUT_MILLIS} ms.
 */
public final class NameLookupOptions {
    @Option(names = "--name-server", paramLabel = "HOST:PORT", converter = ServerAddress.class,
            description = "A name server to look endpoints' host names up with, connected or bound, by its address"
                    + " ([IPv6]:PORT for IPv6); repeat for more, asked in order (default: the system's, from"
                    + " /etc/resolv.conf).")
    List<InetSocketAddress> nameServers = new ArrayList<>();

    @Option(names = "--lookup-timeout", paramLabel = "DURATION", converter = PositiveDuration.class,
            defaultValue = NameResolvers.DEFAULT_LOOKUP_TIMEOUT_MILLIS + "ms",
            description = "How long a host name lookup may take; a lookup that takes longer is a failed connect"
                    + " attempt, retried after the reconnect delay, or a failed bind (default: ${DEFAULT-VALUE}).")
    Duration lookupTimeout;

    /**
     * Sets the name servers and the timeout on {@code ctx} when either was given; returns it. Left
     * out, the context keeps the library's defaults and starts its resolver thread only when an
     * endpoint names a host: a command whose endpoints are addresses starts no resolver (its
     * warm-up would load the DNS classes while the command's first request is out).
     */
    public ZmtpContext apply(ZmtpContext ctx) {
        Duration timeout = lookupTimeout != null ? lookupTimeout : Duration.ofMillis(NameResolvers.DEFAULT_LOOKUP_TIMEOUT_MILLIS);
        if (nameServers.isEmpty() && timeout.toMillis() == NameResolvers.DEFAULT_LOOKUP_TIMEOUT_MILLIS) {
            return ctx;
        }
        return ctx.nameResolution(nameServers, timeout);
    }

    /** {@code HOST:PORT} or {@code [IPv6]:PORT}, the host an address (a name is looked up once, now). */
    static final class ServerAddress implements CommandLine.ITypeConverter<InetSocketAddress> {
        @Override
        public InetSocketAddress convert(String value) {
            int colon = value.lastIndexOf(':');
            if (colon <= 0 || colon == value.length() - 1) {
                throw new CommandLine.TypeConversionException("not HOST:PORT: '" + value + "'");
            }
            String host = value.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(value.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new CommandLine.TypeConversionException("not a port in '" + value + "'");
            }
            if (port <= 0 || port > 65535) {
                throw new CommandLine.TypeConversionException("port out of range in '" + value + "'");
            }
            InetSocketAddress a = new InetSocketAddress(host, port);
            if (a.isUnresolved()) {
                throw new CommandLine.TypeConversionException("unknown host in '" + value + "'");
            }
            return a;
        }
    }

    /** A duration above zero. */
    static final class PositiveDuration implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            Duration d = new DurationConverter().convert(value);
            if (d.isZero()) {
                throw new CommandLine.TypeConversionException("must be more than zero: '" + value + "'");
            }
            return d;
        }
    }
}
