package io.zmtp.socket;

import io.zmtp.wire.ConnectionFailed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * One socket's events ({@link SocketEvent}, as libzmq's socket monitor): counted in the socket's
 * metrics, logged at DEBUG (category {@code io.zmtp.socket.SocketMonitor}, one line per event,
 * naming the socket), and handed to every listener added with {@link ZmtpSocket#monitor}.
 * Events are made on the socket's event loop (endpoints, peers, the close); listeners may be
 * added and removed from any thread.
 */
final class SocketMonitor {
    private static final Logger log = LoggerFactory.getLogger(SocketMonitor.class);

    /** The socket's name in the log lines. */
    private final String socket;
    private final SocketCounters counters;
    private final CopyOnWriteArrayList<Consumer<SocketEvent>> listeners = new CopyOnWriteArrayList<>();

    SocketMonitor(String socket, SocketCounters counters) {
        this.socket = socket;
        this.counters = counters;
    }

    AutoCloseable add(Consumer<SocketEvent> listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** An event about the socket or one of its endpoints. */
    void event(SocketEvent.Type t, String endpoint, String peer, String reason, Duration delay) {
        event(new SocketEvent(t, endpoint, peer, reason, delay));
    }

    /** An event about one peer: the codec's failure kind (or null) and its routing id (or null). */
    void peerEvent(SocketEvent.Type t, String endpoint, String peer, String reason,
                   ConnectionFailed.Kind failure, RoutingId routingId) {
        event(new SocketEvent(t, endpoint, peer, reason, null, failure, routingId));
    }

    private void event(SocketEvent e) {
        counters.onEvent(e);
        if (log.isDebugEnabled()) {
            log.debug("{} {}", socket, e);
        }
        for (Consumer<SocketEvent> m : listeners) {
            try {
                m.accept(e);
            } catch (Throwable th) {
                log.warn("{} monitor listener failed", socket, th);
            }
        }
    }
}
