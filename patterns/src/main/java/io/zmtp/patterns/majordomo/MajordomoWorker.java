package io.zmtp.patterns.majordomo;

import io.netty.channel.EventLoop;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.kit.ReconnectStoppedException;
import io.zmtp.patterns.kit.UpstreamConnection;
import io.zmtp.patterns.kit.WorkerCore;
import io.zmtp.patterns.kit.WorkerEvent;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Majordomo worker (the guide's mdwrkapi, as a reactor): registers one service with a broker
 * over a DEALER socket, heartbeats, and runs a {@link MajordomoHandler} for each request.
 *
 * <p>This class is the worker's lifecycle and what users call; its jobs are each done by one
 * part, on the worker's one event loop (timers on the settings'
 * {@link MajordomoWorkerSettings#clock() clock}):
 * <ul>
 *   <li>{@link BrokerSession}: the registration with the broker over one socket at a time: READY,
 *       every command read once and handed on, the replies sent in the worker's version, and
 *       DISCONNECT when the worker closes.</li>
 *   <li>{@link BrokerFailover}: which broker, and when to register again: the kit's
 *       {@link UpstreamConnection} (every {@link MajordomoWorkerSettings#heartbeat() heartbeat
 *       interval} a HEARTBEAT, skipped when something else went out in the last half interval;
 *       the broker lost after liveness intervals without a message from it) and, given several
 *       brokers, the move to the next.</li>
 *   <li>The kit's {@link WorkerCore}: requests served one at a time, in the order they came (the
 *       queue every worker of the package has).</li>
 *   <li>{@link ExecutorHandler} and {@link StreamedReply}: the handler runs on the worker's
 *       executor (a thread of its own by default) and answers through a {@link ReplyStream} from
 *       any thread, so a slow handler never stops the heartbeats.</li>
 * </ul>
 *
 * <p>Reconnecting, as 7/MDP and 18/MDP require: on DISCONNECT from the broker the worker closes
 * its socket and registers again at once on a new one; after losing the broker it does the same
 * after the {@link MajordomoWorkerSettings#reconnectDelay() reconnect delay}. The broker's silence
 * counts only while the connection is up (from the handshake; a slow connect is not a silent
 * broker). When its connection drops (event {@code BROKER_LOST}), its socket reconnects by itself
 * and the worker sends READY again as soon as the connection is back, so a broker restarted on
 * the same endpoint has it back without waiting for a heartbeat. A reply to a request received on
 * an older connection is dropped (the broker it came from forgot it).
 *
 * <p>Given several brokers (a {@link HighAvailabilityBroker} pair), the worker registers with
 * the first and moves to the next when its connection drops (at once), when the broker sends
 * DISCONNECT (at once: a passive broker sends its workers on; after the reconnect delay when every
 * broker did so in a row), or when the broker is silent for its liveness, which then counts from
 * the connect (a broker it cannot reach is a lost one), not only from the handshake.
 *
 * <p>When its socket stops reconnecting (a {@link io.zmtp.socket.ReconnectStop} case of its socket
 * options, such as a refused connect; or the broker's ERROR: refused credentials), the worker
 * moves to the next broker at once; when every broker has stopped since a connection last came up
 * (with one broker: at once), it has nothing left to do and closes itself: its
 * {@link #terminated()} fails with a {@link ReconnectStoppedException} naming the last endpoint
 * and the reason.
 *
 * <p>A {@link LoopComponent}: the constructor has no side effects; {@link #start()} opens the
 * socket (and the handler's thread, unless an executor is given) and completes when the first
 * connect is under way; {@link #closeAsync()} sends DISCONNECT and closes.
 */
public final class MajordomoWorker extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(MajordomoWorker.class);

    /** The brokers, tried in turn (one, or the two of a highly available pair). */
    private final List<String> endpoints;
    private final String service;
    private final MajordomoWorkerSettings settings;
    private final MdpVersion version;
    private final EventReporter<MajordomoEvent> events;
    /** The registration with the broker: the socket, MDP both ways. */
    private final BrokerSession session;
    /** Which broker, and when to register again (heartbeats, reconnects, the other broker of a pair). */
    private final BrokerFailover failover;
    /** The requests, one at a time: the kit's worker queue, with the user's handler on the executor. */
    private final WorkerCore core;
    private final AtomicLong served = new AtomicLong();
    private Executor executor;
    private ExecutorService ownExecutor;

    public MajordomoWorker(ZmtpContext ctx, String brokerEndpoint, String service, MajordomoHandler handler) {
        this(ctx, brokerEndpoint, service, handler, MajordomoWorkerSettings.DEFAULTS);
    }

    public MajordomoWorker(ZmtpContext ctx, String brokerEndpoint, String service, MajordomoHandler handler,
                           MajordomoWorkerSettings settings) {
        this(ctx, List.of(brokerEndpoint), service, handler, settings);
    }

    /**
     * A worker of a highly available broker pair (or any list of brokers): it registers with the
     * first; when it loses a broker (its connection drops, the heartbeat liveness runs out, or
     * the broker sends DISCONNECT) it registers with the next, in turn.
     */
    public MajordomoWorker(ZmtpContext ctx, List<String> brokerEndpoints, String service, MajordomoHandler handler,
                           MajordomoWorkerSettings settings) {
        super(loopFor(ctx, service), settings.clock());
        this.endpoints = List.copyOf(brokerEndpoints);
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("at least one broker endpoint");
        }
        this.service = Objects.requireNonNull(service);
        this.settings = settings;
        this.version = settings.version();
        this.events = new EventReporter<>(settings.listener(), log, "Majordomo worker");
        this.session = new BrokerSession(ctx, eventLoop(), clock(), service, settings, events);
        this.failover = new BrokerFailover(clock(), endpoints, service, settings, session, events);
        this.core = new WorkerCore(clock(), WorkerCore.Handling.of(new ExecutorHandler(Objects.requireNonNull(handler),
                () -> executor, version, service)), new Outlet(), new EventReporter<WorkerEvent>(null, log,
                "Majordomo worker"), () -> service);
        session.listener(new FromBroker());
    }

    private static EventLoop loopFor(ZmtpContext ctx, String service) {
        if (MmiService.isInternal(service)) {
            throw new IllegalArgumentException("a worker may not register the internal service " + service);
        }
        return ctx.group().next();
    }

    /** Opens the handler's thread (unless an executor is given), connects and registers the service. */
    @Override
    protected CompletionStage<Void> onStart() {
        if (settings.executor() != null) {
            executor = settings.executor();
        } else {
            ownExecutor = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "mdworker-" + service);
                t.setDaemon(true);
                return t;
            });
            executor = ownExecutor;
        }
        failover.start(); // opens the first socket now
        return session.lastConnect();
    }

    public String service() {
        return service;
    }

    public MdpVersion version() {
        return version;
    }

    /** How many requests this worker has answered with a final reply. */
    public long served() {
        return served.get();
    }

    /** What the broker says goes to the requests' core or to the failover. */
    private final class FromBroker implements BrokerSession.Listener {
        @Override
        public void heard() {
            failover.heard();
        }

        @Override
        public void request(ZmtpMessage request, int connection) {
            failover.accepted();
            core.offer(request, 1, connection);
        }

        @Override
        public void heartbeat() {
            failover.accepted();
        }

        @Override
        public void disconnected() {
            failover.disconnected();
        }

        @Override
        public void up(boolean again) {
            failover.up();
            if (again) {
                core.abandon(); // the broker forgot the requests of the old connection
            }
        }

        @Override
        public void dropped() {
            failover.dropped();
        }

        @Override
        public void stopped(io.zmtp.socket.SocketEvent e) {
            if (!isClosing() && !failover.stopped(e.reason())) {
                closeFailed(ReconnectStoppedException.of(e)); // no broker left to register with
            }
        }

        @Override
        public void replaced() {
            int dropped = core.dropQueued();
            if (dropped > 0) {
                log.debug("worker {} drops {} request(s) of its previous connection", service, dropped);
            }
        }
    }

    /** Where the core hands what the handler gave: out to the broker, while its session lasts. */
    private final class Outlet implements WorkerCore.Outlet {
        @Override
        public void reply(long request, int connection, ZmtpMessage reply) {
            served.incrementAndGet();
            if (!session.live(connection)) {
                log.debug("worker {} drops a reply to a request of an older connection", service);
                reply.release();
                return;
            }
            session.reply(reply);
        }

        @Override
        public boolean carriesPartials() {
            return version.streamsPartials();
        }

        @Override
        public void partial(long request, int connection, ZmtpMessage partial) {
            if (!session.live(connection)) {
                partial.release();
                return;
            }
            session.partial(partial);
        }

        @Override
        public void failed(long request, int connection, Throwable cause) {
            log.error("worker {}: the request handler failed; disconnecting so the broker forgets the request",
                    service, cause);
            String broker = failover.current();
            events.report(() -> new MajordomoEvent(MajordomoEvent.Type.HANDLER_FAILED, broker, service,
                    String.valueOf(cause)));
            if (session.live(connection)) {
                session.disconnect();
                failover.reregister();
            }
        }

        @Override
        public void crash(long request) {
            closeAsync(); // no simulated faults here: never called
        }
    }

    /** Sends DISCONNECT to the broker and closes (the socket lingers to flush it). */
    @Override
    protected CompletionStage<Void> onClose() {
        failover.stop();
        core.close();
        if (ownExecutor != null) {
            ownExecutor.shutdownNow();
        }
        return session.closeWithDisconnect();
    }

    @Override
    public String toString() {
        return "MajordomoWorker[" + service + " " + version + " -> " + String.join(",", endpoints) + "]";
    }
}
