package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.kit.Backoff;
import io.zmtp.patterns.kit.EndpointRotation;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Failover;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.patterns.kit.UpstreamConnection;
import io.zmtp.wire.FrameText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;

/**
 * Which broker a Majordomo worker registers with, and when it registers again: the kit's
 * {@link UpstreamConnection} (the broker's liveness and the worker's heartbeats, a new socket after
 * the reconnect delay when the broker falls silent, at once when asked) over the worker's
 * {@link Sockets} (its {@link BrokerSession}), and, given several brokers (a
 * {@link HighAvailabilityBroker} pair), an {@link EndpointRotation} through them.
 *
 * <p>The rules, as 7/MDP and 18/MDP require:
 * <ul>
 *   <li>The broker silent for its liveness: a new socket after the reconnect delay (to the next
 *       broker, if there are several).</li>
 *   <li>DISCONNECT from the broker: a new socket at once. With several brokers, to the next one
 *       (a passive broker sends its workers on), but after the reconnect delay when every broker
 *       did so in a row, rather than a tight loop.</li>
 *   <li>The connection dropped: with one broker the socket reconnects by itself and the worker
 *       registers again at the handshake (a broker restarted on the same endpoint has it back
 *       without a timer); with several, the next broker at once.</li>
 *   <li>The handler failed: DISCONNECT (the worker's), then a new socket at once, so the broker
 *       forgets the request.</li>
 *   <li>The socket stopped reconnecting (a {@code ReconnectStop} case, or the broker's ERROR):
 *       with several brokers, the next one at once; when every broker has stopped since a
 *       connection last came up (or there is one), the worker closes.</li>
 * </ul>
 * With one broker the broker's silence counts only while the connection is up (a slow connect is
 * not a silent broker); with several it counts from the connect, so a broker the worker cannot
 * reach is a lost one. Used on the worker's loop only.
 */
final class BrokerFailover {
    private static final Logger log = LoggerFactory.getLogger(BrokerFailover.class);

    /** The worker's sockets to its broker: what this class opens, closes and heartbeats on. */
    interface Sockets {
        /** Opens a new socket to {@code endpoint} and registers on it (READY). */
        void open(String endpoint);

        /** Closes the current socket at once. */
        void close();

        /** A HEARTBEAT on the current socket, if it is up. */
        void heartbeat();
    }

    private final String service;
    private final EventReporter<MajordomoEvent> events;
    /** The broker the current (or next) socket connects to, the next after a lost one. */
    private final EndpointRotation brokers;
    private final UpstreamConnection link;
    /** DISCONNECTs received in a row with nothing else heard between (several brokers: a full round waits the reconnect delay). */
    private int disconnectsInRow;

    BrokerFailover(LoopClock clock, List<String> endpoints, String service, MajordomoWorkerSettings settings,
            Sockets sockets, EventReporter<MajordomoEvent> events) {
        this.service = service;
        this.events = events;
        this.brokers = new EndpointRotation(new Failover(endpoints, Duration.ZERO), clock);
        this.link = new UpstreamConnection(clock, settings.heartbeat(),
                new Backoff(settings.reconnectDelay(), settings.reconnectDelayMax()),
                new UpstreamConnection.Sockets() {
                    @Override
                    public void open() {
                        if (!brokers.rotates()) {
                            link.suspend(); // nothing counts until the handshake
                        } // with several brokers a connect that never completes is a lost broker: silence counts
                        sockets.open(brokers.current());
                    }

                    @Override
                    public void close() {
                        sockets.close();
                    }

                    @Override
                    public void heartbeat() {
                        sockets.heartbeat();
                    }
                },
                new UpstreamConnection.Listener() {
                    @Override
                    public void lost(Duration silence) {
                        String lost = brokers.current();
                        brokers.next(); // the reconnect after the delay goes to the next broker
                        log.warn("worker {}: nothing from the broker at {} for {} ms, reconnecting to {}",
                                FrameText.escape(service), lost, silence.toMillis(), brokers.current());
                        event(MajordomoEvent.Type.BROKER_LOST, lost, "silent for " + silence.toMillis() + " ms");
                    }
                });
    }

    /** Opens the first socket, to the first broker. */
    void start() {
        link.start();
    }

    /** The broker the current (or next) socket connects to. */
    String current() {
        return brokers.current();
    }

    /** Something came from the broker: it is alive. */
    void heard() {
        link.heard();
    }

    /** A REQUEST or a HEARTBEAT: the broker takes the worker, whatever DISCONNECTs came before. */
    void accepted() {
        disconnectsInRow = 0;
    }

    /** The handshake completed: the broker's silence counts from now, with its full liveness. */
    void up() {
        brokers.connected();
        link.resume();
    }

    /**
     * The socket stopped reconnecting to the current broker ({@code reason}): with several brokers,
     * a new socket to the next one at once, unless every broker has stopped since a connection
     * last came up. Returns false when none is left: the worker can do nothing more.
     */
    boolean stopped(String reason) {
        String lost = brokers.current();
        if (!brokers.stoppedMoveOn()) {
            return false;
        }
        event(MajordomoEvent.Type.BROKER_LOST, lost, reason);
        log.info("worker {}: stopped reconnecting to {} ({}), moving to {}", FrameText.escape(service), lost, reason,
                brokers.current());
        link.reopen();
        return true;
    }

    /** The connection dropped. */
    void dropped() {
        String lost = brokers.current();
        event(MajordomoEvent.Type.BROKER_LOST, lost, "connection dropped");
        if (brokers.rotates()) {
            // a pair's broker that went away: register with the other one at once
            brokers.next();
            log.info("worker {}: the connection to {} dropped, moving to {}", FrameText.escape(service), lost,
                    brokers.current());
            link.reopen();
            return;
        }
        link.suspend();
        log.info("worker {}: the connection to {} dropped", FrameText.escape(service), lost);
    }

    /** The broker sent DISCONNECT. */
    void disconnected() {
        if (!brokers.rotates()) {
            log.info("worker {}: the broker sent DISCONNECT, registering again", service);
            link.reopen();
            return;
        }
        // a passive broker sends its workers to the active one: the next endpoint
        String from = brokers.current();
        brokers.next();
        if (++disconnectsInRow >= brokers.size()) {
            // every broker said DISCONNECT in turn: wait the reconnect delay, not a tight loop
            disconnectsInRow = 0;
            log.info("worker {}: every broker sent DISCONNECT; registering with {} after the reconnect delay",
                    service, brokers.current());
            link.reconnect();
        } else {
            log.info("worker {}: the broker at {} sent DISCONNECT, registering with {}", service, from,
                    brokers.current());
            link.reopen();
        }
    }

    /** The worker said DISCONNECT (its handler failed): registers again at once on a new socket. */
    void reregister() {
        link.reopen();
    }

    /** No more sockets, heartbeats or timers (the worker closes its socket itself). */
    void stop() {
        link.stop();
    }

    private void event(MajordomoEvent.Type type, String peer, String detail) {
        events.report(() -> new MajordomoEvent(type, peer, service, detail));
    }
}
