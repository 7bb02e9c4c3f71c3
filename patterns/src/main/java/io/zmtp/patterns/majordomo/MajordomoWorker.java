package io.zmtp.patterns.majordomo;

import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.zmtp.patterns.kit.Backoff;
import io.zmtp.patterns.kit.EndpointRotation;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Failover;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.UpstreamConnection;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.kit.RequestHandler;
import io.zmtp.patterns.kit.WorkerCore;
import io.zmtp.patterns.kit.WorkerEvent;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.Frames;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Majordomo worker (the guide's mdwrkapi, as a reactor): registers one service with a broker
 * over a DEALER socket, heartbeats, and runs a {@link MajordomoHandler} for each request.
 *
 * <p>Everything protocol-related runs on one event loop: the socket's handler, and the kit's
 * {@link UpstreamConnection}, which every {@link MajordomoWorkerSettings#heartbeat() heartbeat
 * interval} sends HEARTBEAT (skipped when something else went out in the last half interval) and
 * declares the broker lost after liveness intervals without a message from it. The link is
 * suspended while the socket has no connection (from connect to handshake, and after a drop), so
 * silence is counted only while the connection is up: a slow connect is not a silent broker.
 * Timers run on the settings' {@link MajordomoWorkerSettings#clock() clock}. Requests are served
 * one at a time, in the order they came, by the kit's {@link WorkerCore} (the queue every worker
 * of the package has): the handler runs on the worker's executor (a thread of its own by default)
 * and answers through a {@link ReplyStream} from any thread, so a slow handler never stops the
 * heartbeats.
 *
 * <p>Reconnecting, as 7/MDP and 18/MDP require: on DISCONNECT from the broker the worker closes
 * its socket and registers again at once on a new one; after losing the broker it does the same
 * after the {@link MajordomoWorkerSettings#reconnectDelay() reconnect delay}. When its connection
 * drops (event {@code BROKER_LOST}), its socket reconnects by itself and the worker sends READY
 * again as soon as the connection is back, so a broker restarted on the same endpoint has it back
 * without waiting for a heartbeat. A reply to a
 * request received on an older connection is dropped (the broker it came from forgot it).
 *
 * <p>Given several brokers (a {@link HighAvailabilityBroker} pair), the worker registers with
 * the first and moves to the next when its connection drops (at once), when the broker sends
 * DISCONNECT (at once: a passive broker sends its workers on; after the reconnect delay when every
 * broker did so in a row), or when the broker is silent for its liveness, which then counts from
 * the connect (a broker it cannot reach is a lost one), not only from the handshake.
 *
 * <p>A {@link LoopComponent}: the constructor has no side effects; {@link #start()} opens the
 * socket (and the handler's thread, unless an executor is given) and completes when the first
 * connect is under way; {@link #closeAsync()} sends DISCONNECT and closes.
 */
public final class MajordomoWorker extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(MajordomoWorker.class);

    private final ZmtpContext ctx;
    /** The brokers, tried in turn (one, or the two of a highly available pair). */
    private final List<String> endpoints;
    /** The broker the current (or next) socket connects to, the next after a lost one. */
    private final EndpointRotation brokers;
    private final String service;
    private final MajordomoWorkerSettings settings;
    private final MdpVersion version;
    private Executor executor;
    private ExecutorService ownExecutor;
    private final long intervalNanos;
    private final MessageTracer tracer;
    private final EventReporter<MajordomoEvent> events;
    /** The requests, one at a time: the kit's worker queue, with the user's handler on the executor. */
    private final WorkerCore core;
    private final AtomicLong served = new AtomicLong();
    /** The connect of the newest socket (what start() waits for: the first). */
    private CompletionStage<Void> lastConnect = CompletableFuture.completedFuture(null);

    // state on the loop
    private ZmtpSocket socket;
    private int session;
    private long lastSent;
    private final LoopClock clock;
    private final UpstreamConnection link;
    private final EventLoop loop;
    /** DISCONNECTs received in a row with nothing else heard between (several endpoints: a full round waits the reconnect delay). */
    private int disconnectsInRow;
    /** Whether the current socket has a connection to the broker (a handshake completed, no drop since). */
    private boolean connected;
    /** The current socket's connection dropped; READY goes out again when it is back. */
    private boolean lostConnection;
    private volatile boolean closed;

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
        this.ctx = ctx;
        this.endpoints = List.copyOf(brokerEndpoints);
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("at least one broker endpoint");
        }
        this.service = Objects.requireNonNull(service);
        this.settings = settings;
        this.version = settings.version();
        this.loop = eventLoop();
        this.intervalNanos = settings.heartbeat().interval().toNanos();
        this.tracer = settings.tracer();
        this.events = new EventReporter<>(settings.listener(), log, "Majordomo worker");
        this.clock = clock();
        this.brokers = new EndpointRotation(new Failover(endpoints, Duration.ZERO), clock);
        this.core = new WorkerCore(clock, WorkerCore.Handling.of(new OnExecutor(Objects.requireNonNull(handler))),
                new Outlet(), new EventReporter<WorkerEvent>(null, log, "Majordomo worker"), () -> service);
        this.link = new UpstreamConnection(clock,
                settings.heartbeat(),
                new Backoff(settings.reconnectDelay(), settings.reconnectDelayMax()),
                new UpstreamConnection.Sockets() {
                    @Override
                    public void open() {
                        connect();
                    }

                    @Override
                    public void close() {
                        dropSocket();
                    }

                    @Override
                    public void heartbeat() {
                        sendHeartbeat();
                    }
                },
                new UpstreamConnection.Listener() {
                    @Override
                    public void lost(Duration silence) {
                        String lost = endpoint();
                        nextEndpoint(); // the reconnect after the delay goes to the next broker
                        log.warn("worker {}: nothing from the broker at {} for {} ms, reconnecting to {}",
                                FrameText.escape(service), lost, silence.toMillis(), endpoint());
                        event(MajordomoEvent.Type.BROKER_LOST, lost, "silent for " + silence.toMillis() + " ms");
                    }
                });
    }

    /** The broker the current (or next) connection goes to. */
    private String endpoint() {
        return brokers.current();
    }

    /** Whether the worker has several brokers to move between. */
    private boolean failsOver() {
        return brokers.rotates();
    }

    private void nextEndpoint() {
        brokers.next();
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
        link.start(); // opens the first socket now
        return lastConnect;
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

    // ------------------------------------------------------------------ connection

    /** Opens a new socket and sends READY on it (the link's {@link UpstreamConnection.Sockets#open()}). */
    private void connect() {
        if (closed) {
            return;
        }
        session++;
        connected = false;
        lostConnection = false;
        if (!failsOver()) {
            link.suspend(); // nothing counts until the handshake
        } // with several brokers a connect that never completes is a lost broker: silence counts
        String endpoint = endpoint();
        ZmtpSocket s = ctx.socket(SocketType.DEALER, settings.socketOptions(), loop);
        socket = s;
        s.onMessage(m -> received(s, m));
        s.monitor(e -> connectionEvent(s, e));
        io.netty.util.concurrent.Future<Void> connecting = s.connect(endpoint);
        connecting.addListener(f -> {
            if (!f.isSuccess()) {
                log.warn("worker {} cannot connect to {}: {}", FrameText.escape(service), endpoint, f.cause().toString());
            }
        });
        lastConnect = Futures.of(connecting);
        event(MajordomoEvent.Type.CONNECTING, endpoint, version.toString());
        // Queued until the connection is up: the broker's silence counts only from then on.
        send(MdpProtocol.ready(version, service), "I: sending READY to broker");
    }

    /**
     * The socket's connection came up or dropped. The broker's silence is counted only while
     * connected, from the moment READY goes out (a slow connect is not a silent broker). When the
     * connection drops, the broker is lost; when the socket has reconnected by itself (a broker
     * restarted on the same endpoint), the worker registers again at once with a new READY
     * (requests of the old connection are forgotten, as the broker forgot them).
     */
    private void connectionEvent(ZmtpSocket s, SocketEvent e) {
        if (s != socket || closed) {
            return;
        }
        if (e.type() == SocketEvent.Type.HANDSHAKE_SUCCEEDED) {
            if (connected) {
                return;
            }
            boolean again = lostConnection;
            connected = true;
            lostConnection = false;
            link.resume(); // the broker's silence counts from now, with its full liveness
            if (again) {
                session++;
                core.abandon(); // the broker forgot the requests of the old connection

                event(MajordomoEvent.Type.CONNECTING, endpoint(), version + ", registering again");
                send(MdpProtocol.ready(version, service), "I: sending READY to broker");
            }
        } else if (e.type() == SocketEvent.Type.DISCONNECTED && connected) {
            connected = false;
            lostConnection = true;
            String lost = endpoint();
            event(MajordomoEvent.Type.BROKER_LOST, lost, "connection dropped");
            if (failsOver()) {
                // a pair's broker that went away: register with the other one at once
                nextEndpoint();
                log.info("worker {}: the connection to {} dropped, moving to {}", FrameText.escape(service), lost,
                        endpoint());
                link.reopen();
                return;
            }
            link.suspend();
            log.info("worker {}: the connection to {} dropped", FrameText.escape(service), lost);
        }
    }

    private void dropSocket() {
        if (socket != null) {
            socket.close(Duration.ZERO);
            socket = null;
        }
        int dropped = core.dropQueued();
        if (dropped > 0) {
            log.debug("worker {} drops {} request(s) of its previous connection", service, dropped);
        }
    }

    /** The link's heartbeat: skipped when something else went to the broker in the last half interval. */
    private void sendHeartbeat() {
        if (closed || socket == null || !connected) {
            return;
        }
        if (clock.nanoTime() - lastSent >= Math.max(1, intervalNanos / 2)) {
            send(MdpProtocol.workerCommand(version, WorkerCommand.HEARTBEAT), "I: sending HEARTBEAT to broker");
        }
    }

    // ------------------------------------------------------------------ receiving

    private void received(ZmtpSocket s, ZmtpMessage m) {
        if (s != socket || closed) {
            m.release();
            return;
        }
        try {
            if (tracer != null) {
                tracer.trace("I: received message from broker:", m);
            }
            link.heard();
            MdpCommand cmd;
            try {
                cmd = MdpProtocol.atWorker(m, version);
            } catch (MdpProtocol.MdpFormatException e) {
                invalid(m, e.getMessage());
                return;
            }
            if (cmd instanceof MdpCommand.WorkerRequest r) {
                disconnectsInRow = 0;
                // The core keeps the envelope (client | "") and hands the body to the handler.
                ZmtpMessage request = r.body();
                request.addFirst(Unpooled.EMPTY_BUFFER);
                request.addFirst(r.client());
                core.offer(request, 1, session);
            } else if (cmd instanceof MdpCommand.WorkerHeartbeat) {
                cmd.release();
                disconnectsInRow = 0;
            } else if (cmd instanceof MdpCommand.WorkerDisconnect) {
                cmd.release();
                event(MajordomoEvent.Type.DISCONNECT_RECEIVED, endpoint(), null);
                if (!failsOver()) {
                    log.info("worker {}: the broker sent DISCONNECT, registering again", service);
                    link.reopen();
                    return;
                }
                // a passive broker sends its workers to the active one: the next endpoint
                String from = endpoint();
                nextEndpoint();
                if (++disconnectsInRow >= brokers.size()) {
                    // every broker said DISCONNECT in turn: wait the reconnect delay, not a tight loop
                    disconnectsInRow = 0;
                    log.info("worker {}: every broker sent DISCONNECT; registering with {} after the reconnect delay",
                            service, endpoint());
                    link.reconnect();
                } else {
                    log.info("worker {}: the broker at {} sent DISCONNECT, registering with {}", service, from,
                            endpoint());
                    link.reopen();
                }
            } else {
                cmd.release();
                PeerFailureLog.get(MajordomoWorker.class).warn("worker {} drops an unexpected {} from the broker",
                        FrameText.escape(service), cmd.getClass().getSimpleName());
            }
        } catch (RuntimeException e) {
            log.warn("worker {} failed on a message", service, e);
            if (m.refCnt() > 0) {
                m.release();
            }
        }
    }

    private void invalid(ZmtpMessage m, String reason) {
        PeerFailureLog.get(MajordomoWorker.class).warn("worker {} drops an invalid message from the broker: {}",
                FrameText.escape(service), FrameText.escape(reason));
        m.release();
    }

    // ------------------------------------------------------------------ requests

    /** Whether a reply to a request that came on connection {@code session} may still go out. */
    private boolean live(int session) {
        return session == this.session && socket != null && !closed;
    }

    /** Where the core hands what the handler gave: out to the broker, while its connection lasts. */
    private final class Outlet implements WorkerCore.Outlet {
        @Override
        public void reply(long request, int connection, ZmtpMessage reply) {
            served.incrementAndGet();
            if (!live(connection)) {
                log.debug("worker {} drops a reply to a request of an older connection", service);
                reply.release();
                return;
            }
            WorkerCommand c = version == MdpVersion.V0_1 ? WorkerCommand.REPLY : WorkerCommand.FINAL;
            send(MdpProtocol.workerReply(version, c, reply), "I: sending " + c + " to broker");
        }

        @Override
        public boolean carriesPartials() {
            return version.streamsPartials();
        }

        @Override
        public void partial(long request, int connection, ZmtpMessage partial) {
            if (!live(connection)) {
                partial.release();
                return;
            }
            send(MdpProtocol.workerReply(version, WorkerCommand.PARTIAL, partial), "I: sending PARTIAL to broker");
        }

        @Override
        public void failed(long request, int connection, Throwable cause) {
            log.error("worker {}: the request handler failed; disconnecting so the broker forgets the request",
                    service, cause);
            event(MajordomoEvent.Type.HANDLER_FAILED, endpoint(), String.valueOf(cause));
            if (live(connection)) {
                send(MdpProtocol.workerCommand(version, WorkerCommand.DISCONNECT), "I: sending DISCONNECT to broker");
                link.reopen();
            }
        }

        @Override
        public void crash(long request) {
            closeAsync(); // no simulated faults here: never called
        }
    }

    /**
     * The user's {@link MajordomoHandler} as the kit's {@link RequestHandler}: each request's body
     * goes to the handler on the worker's executor, which answers through a {@link Reply}.
     */
    private final class OnExecutor implements RequestHandler {
        private final MajordomoHandler handler;

        OnExecutor(MajordomoHandler handler) {
            this.handler = handler;
        }

        @Override
        public CompletionStage<ZmtpMessage> handle(ZmtpMessage request) {
            return handle(request, PartialReplies.NONE);
        }

        @Override
        public CompletionStage<ZmtpMessage> handle(ZmtpMessage request, PartialReplies partials) {
            Frames body = Frames.takeFrom(request);
            Reply reply = new Reply(partials);
            try {
                executor.execute(() -> {
                    try {
                        handler.handle(body, reply);
                    } catch (Throwable t) {
                        reply.fail(t);
                    }
                });
            } catch (RejectedExecutionException e) {
                reply.fail(e);
            }
            return reply.done;
        }
    }

    /**
     * Where the handler answers one request, from any thread: partial replies go out as they come
     * (0.2), or are joined in front of the final reply (0.1, which has none); the final reply, or a
     * failure, completes the request.
     */
    private final class Reply implements ReplyStream {
        final CompletableFuture<ZmtpMessage> done = new CompletableFuture<>();
        private final RequestHandler.PartialReplies partials;
        private final AtomicBoolean finished = new AtomicBoolean();
        /** The 0.1 partial replies, joined (guarded by this). */
        private Frames joined = Frames.empty();

        Reply(RequestHandler.PartialReplies partials) {
            this.partials = partials;
        }

        @Override
        public MdpVersion version() {
            return version;
        }

        @Override
        public void partial(Frames frames) {
            if (finished.get()) {
                throw new IllegalStateException("the final reply was already sent");
            }
            if (partials.supported()) {
                partials.send(MdpProtocol.body(frames));
                return;
            }
            synchronized (this) {
                for (byte[] f : frames) {
                    joined = joined.add(f);
                }
            }
        }

        @Override
        public void finish(Frames frames) {
            if (!finished.compareAndSet(false, true)) {
                throw new IllegalStateException("the final reply was already sent");
            }
            Frames all;
            synchronized (this) {
                all = joined;
            }
            if (all.isEmpty()) {
                all = frames;
            } else {
                for (byte[] f : frames) {
                    all = all.add(f);
                }
            }
            done.complete(MdpProtocol.body(all));
        }

        @Override
        public void fail(Throwable cause) {
            if (!finished.compareAndSet(false, true)) {
                log.warn("worker {}: the handler failed after its final reply", service, cause);
                return;
            }
            done.completeExceptionally(cause);
        }
    }

    // ------------------------------------------------------------------ sending

    private void send(ZmtpMessage m, String what) {
        if (socket == null) {
            m.release();
            return;
        }
        if (tracer != null) {
            tracer.trace(what, m);
        }
        lastSent = clock.nanoTime();
        socket.send(m);
    }

    private void event(MajordomoEvent.Type type, String peer, String detail) {
        events.report(() -> new MajordomoEvent(type, peer, service, detail));
    }

    // ------------------------------------------------------------------ closing

    /** Sends DISCONNECT to the broker and closes (the socket lingers to flush it). */
    @Override
    protected CompletionStage<Void> onClose() {
        closed = true;
        link.stop();
        core.close();
        if (ownExecutor != null) {
            ownExecutor.shutdownNow();
        }
        if (socket == null) {
            return CompletableFuture.completedFuture(null);
        }
        ZmtpSocket s = socket;
        send(MdpProtocol.workerCommand(version, WorkerCommand.DISCONNECT), "I: sending DISCONNECT to broker");
        socket = null;
        return Futures.of(s.close(settings.socketOptions().linger()));
    }

    @Override
    public String toString() {
        return "MajordomoWorker[" + service + " " + version + " -> " + String.join(",", endpoints) + "]";
    }
}
