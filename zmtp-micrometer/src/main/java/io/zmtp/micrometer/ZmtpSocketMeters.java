package io.zmtp.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.zmtp.socket.SocketMetrics;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.ConnectionFailed;

import java.util.Locale;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Registers a socket's {@link ZmtpSocket#metrics()} as Micrometer meters, read when the registry
 * asks (nothing is recorded per message; the socket keeps its counters anyway):
 *
 * <table>
 *   <caption>Meters, each tagged {@code socket} (the name given) and {@code type} (PUB, ROUTER...)</caption>
 *   <tr><th>meter</th><th>kind</th><th>tags</th></tr>
 *   <tr><td>{@code zmtp.socket.messages}</td><td>function counter</td><td>{@code direction}: in, out</td></tr>
 *   <tr><td>{@code zmtp.socket.bytes}</td><td>function counter (bytes)</td><td>{@code direction}: in, out</td></tr>
 *   <tr><td>{@code zmtp.socket.drops}</td><td>function counter</td><td>{@code reason}: hwm, unroutable, too_large</td></tr>
 *   <tr><td>{@code zmtp.socket.handshakes}</td><td>function counter</td><td></td></tr>
 *   <tr><td>{@code zmtp.socket.handshake.failures}</td><td>function counter</td><td>{@code kind}: handshake, handshake_timeout, authentication, peer_error, protocol, heartbeat_timeout</td></tr>
 *   <tr><td>{@code zmtp.socket.disconnects}</td><td>function counter</td><td></td></tr>
 *   <tr><td>{@code zmtp.socket.connect.failures}</td><td>function counter</td><td></td></tr>
 *   <tr><td>{@code zmtp.socket.reconnects}</td><td>function counter</td><td></td></tr>
 *   <tr><td>{@code zmtp.socket.queued}</td><td>gauge (messages)</td><td>{@code direction}: in, out</td></tr>
 *   <tr><td>{@code zmtp.socket.peers}</td><td>gauge</td><td></td></tr>
 * </table>
 *
 * <p>Usage: {@code new ZmtpSocketMeters(socket, "frontend").bindTo(registry)}. The registry holds
 * the socket weakly, as Micrometer does for function-based meters.
 */
public final class ZmtpSocketMeters implements MeterBinder {
    private final ZmtpSocket socket;
    private final Tags tags;

    /** Meters of {@code socket}, tagged {@code socket=name} and {@code type}, plus {@code extraTags}. */
    public ZmtpSocketMeters(ZmtpSocket socket, String name, Iterable<Tag> extraTags) {
        this.socket = Objects.requireNonNull(socket, "socket");
        this.tags = Tags.of("socket", name, "type", socket.type().name()).and(extraTags);
    }

    /** Meters of {@code socket}, tagged {@code socket=name} and {@code type}. */
    public ZmtpSocketMeters(ZmtpSocket socket, String name) {
        this(socket, name, Tags.empty());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        counter(registry, "zmtp.socket.messages", "Messages received from or written to peers",
                Tags.of("direction", "in"), null, SocketMetrics::messagesIn);
        counter(registry, "zmtp.socket.messages", "Messages received from or written to peers",
                Tags.of("direction", "out"), null, SocketMetrics::messagesOut);
        counter(registry, "zmtp.socket.bytes", "Payload bytes received from or written to peers",
                Tags.of("direction", "in"), BaseUnits.BYTES, SocketMetrics::bytesIn);
        counter(registry, "zmtp.socket.bytes", "Payload bytes received from or written to peers",
                Tags.of("direction", "out"), BaseUnits.BYTES, SocketMetrics::bytesOut);
        counter(registry, "zmtp.socket.drops", "Messages dropped",
                Tags.of("reason", "hwm"), null, SocketMetrics::hwmDrops);
        counter(registry, "zmtp.socket.drops", "Messages dropped",
                Tags.of("reason", "unroutable"), null, SocketMetrics::unroutableDrops);
        counter(registry, "zmtp.socket.drops", "Messages dropped",
                Tags.of("reason", "too_large"), null, SocketMetrics::tooLarge);
        counter(registry, "zmtp.socket.drops", "Messages dropped",
                Tags.of("reason", "multipart"), null, SocketMetrics::multipartDrops);
        counter(registry, "zmtp.socket.handshakes", "Handshakes completed",
                Tags.empty(), null, SocketMetrics::handshakesSucceeded);
        for (ConnectionFailed.Kind k : ConnectionFailed.Kind.values()) {
            counter(registry, "zmtp.socket.handshake.failures", "Handshakes failed, by what the codec found",
                    Tags.of("kind", k.name().toLowerCase(Locale.ROOT)), null, m -> m.handshakeFailures(k));
        }
        counter(registry, "zmtp.socket.disconnects", "Connections closed after their handshake",
                Tags.empty(), null, SocketMetrics::disconnects);
        counter(registry, "zmtp.socket.connect.failures", "Outgoing connection attempts that failed",
                Tags.empty(), null, SocketMetrics::connectFailures);
        counter(registry, "zmtp.socket.reconnects", "Reconnects scheduled",
                Tags.empty(), null, SocketMetrics::reconnects);
        gauge(registry, "zmtp.socket.queued", "Messages waiting in the socket's queues",
                Tags.of("direction", "in"), SocketMetrics::queuedIn);
        gauge(registry, "zmtp.socket.queued", "Messages waiting in the socket's queues",
                Tags.of("direction", "out"), SocketMetrics::queuedOut);
        gauge(registry, "zmtp.socket.peers", "Peers attached", Tags.empty(), SocketMetrics::peers);
    }

    private void counter(MeterRegistry registry, String name, String description, Tags more, String unit,
                         ToDoubleFunction<SocketMetrics> value) {
        FunctionCounter.builder(name, socket, s -> value.applyAsDouble(s.metrics()))
                .description(description).baseUnit(unit).tags(tags.and(more)).register(registry);
    }

    private void gauge(MeterRegistry registry, String name, String description, Tags more,
                       ToDoubleFunction<SocketMetrics> value) {
        Gauge.builder(name, socket, s -> value.applyAsDouble(s.metrics()))
                .description(description).baseUnit(BaseUnits.MESSAGES).tags(tags.and(more)).register(registry);
    }
}
