package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.kit.Backoff;
import io.zmtp.patterns.kit.HeartbeatLink;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.socket.SocketEvent;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopComponent;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.EventLoop;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.Frames;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
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
import java.util.function.Consumer;

/**
 * A Majordomo worker (the guide's mdwrkapi, as a reactor): registers one service with a broker
 * over a DEALER socket, heartbeats, and runs a {@link MajordomoHandler} for each request.
 *
 * <p>Everything protocol-related runs on one event loop: the socket's handler, and the kit's
 * {@link HeartbeatLink}, which every {@link MajordomoWorkerSettings#heartbeat() heartbeat
 * interval} sends HEARTBEAT (skipped when something else went out in the last half interval) and
 * declares the broker lost after liveness intervals without a message from it. The link is
 * suspended while the socket has no connection (from connect to handshake, and after a drop), so
 * silence is counted only while the connection is up: a slow connect is not a silent broker.
 * Timers run on the settings' {@link MajordomoWorkerSettings#clock() clock}. The handler runs on the worker's executor (a thread of its
 * own by default) and answers through a {@link ReplyStream} from any thread, so a slow handler
 * never stops the heartbeats. Requests are served one at a time, in the order they came.
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
    private final String service;
    private final MajordomoHandler handler;
    private final MajordomoWorkerSettings settings;
    private final MdpVersion version;
    private Executor executor;
    private ExecutorService ownExecutor;
    private final long intervalNanos;
    private final MessageTracer tracer;
    private final EventReporter<MajordomoEvent> events;
    private final AtomicLong served = new AtomicLong();
    /** The connect of the newest socket (what start() waits for: the first). */
    private CompletionStage<Void> lastConnect = CompletableFuture.completedFuture(null);

    // state on the loop
    private ZmtpSocket socket;
    private int session;
    private long lastSent;
    private final LoopClock clock;
    private final HeartbeatLink link;
    private final EventLoop loop;
    /** The broker the current (or next) socket connects to. */
    private int endpointIndex;
    /** DISCONNECTs received in a row with nothing else heard between (several endpoints: a full round waits the reconnect delay). */
    private int disconnectsInRow;
    /** Whether the current socket has a connection to the broker (a handshake completed, no drop since). */
    private boolean connected;
    /** The current socket's connection dropped; READY goes out again when it is back. */
    private boolean lostConnection;
    private Job current;
    private final ArrayDeque<Job> waiting = new ArrayDeque<>();
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
        this.handler = Objects.requireNonNull(handler);
        this.settings = settings;
        this.version = settings.version();
        this.loop = eventLoop();
        this.intervalNanos = settings.heartbeat().interval().toNanos();
        this.tracer = settings.tracer();
        this.events = new EventReporter<>(settings.listener(), log, "Majordomo worker");
        this.clock = clock();
        this.link = new HeartbeatLink(clock,
                settings.heartbeat(),
                new Backoff(settings.reconnectDelay(), settings.reconnectDelayMax()),
                new HeartbeatLink.Connection() {
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
                new HeartbeatLink.Listener() {
                    @Override
                    public void lost(java.time.Duration silence) {
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
        return endpoints.get(endpointIndex);
    }

    /** Whether the worker has several brokers to move between. */
    private boolean failsOver() {
        return endpoints.size() > 1;
    }

    private void nextEndpoint() {
        endpointIndex = (endpointIndex + 1) % endpoints.size();
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

    /** Opens a new socket and sends READY on it (the link's {@link HeartbeatLink.Connection#open()}). */
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
                waiting.clear();
                current = null;
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
            socket.close(java.time.Duration.ZERO);
            socket = null;
        }
        if (!waiting.isEmpty()) {
            log.debug("worker {} drops {} request(s) of its previous connection", service, waiting.size());
            waiting.clear();
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
                Job j = new Job(session, ByteBufUtil.getBytes(r.client()), Frames.copyOf(r.body()));
                r.release();
                if (current == null) {
                    run(j);
                } else {
                    waiting.add(j);
                }
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
                if (++disconnectsInRow >= endpoints.size()) {
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

    private void run(Job j) {
        current = j;
        try {
            executor.execute(() -> {
                try {
                    handler.handle(j.body, j);
                } catch (Throwable t) {
                    j.fail(t);
                }
            });
        } catch (RejectedExecutionException e) {
            j.fail(e);
        }
    }

    /** A reply from the handler, on the loop. */
    private void emit(Job j, Frames frames, boolean fin) {
        boolean live = j.session == session && socket != null && !closed;
        if (!live) {
            log.debug("worker {} drops a reply to a request of an older connection", service);
        } else if (fin) {
            Frames body = frames;
            if (j.joined != null) {
                j.joined.addAll(frames.toList());
                body = Frames.of(j.joined);
            }
            WorkerCommand c = version == MdpVersion.V0_1 ? WorkerCommand.REPLY : WorkerCommand.FINAL;
            send(MdpProtocol.workerReply(version, c, j.client, body), "I: sending " + c + " to broker");
        } else if (version.streamsPartials()) {
            send(MdpProtocol.workerReply(version, WorkerCommand.PARTIAL, j.client, frames),
                    "I: sending PARTIAL to broker");
        } else {
            if (j.joined == null) {
                j.joined = new ArrayList<>();
            }
            j.joined.addAll(frames.toList());
        }
        if (fin) {
            served.incrementAndGet();
            done(j);
        }
    }

    private void failed(Job j, Throwable cause) {
        log.error("worker {}: the request handler failed; disconnecting so the broker forgets the request",
                service, cause);
        event(MajordomoEvent.Type.HANDLER_FAILED, endpoint(), String.valueOf(cause));
        if (j.session == session && socket != null && !closed) {
            send(MdpProtocol.workerCommand(version, WorkerCommand.DISCONNECT), "I: sending DISCONNECT to broker");
            link.reopen();
        }
        done(j);
    }

    private void done(Job j) {
        if (current == j) {
            current = null;
        }
        Job next;
        while (current == null && (next = waiting.poll()) != null) {
            if (next.session == session) {
                run(next);
            }
        }
    }

    /** One request: its body, its client, and the reply stream the handler answers through. */
    private final class Job implements ReplyStream {
        final int session;
        final byte[] client;
        final Frames body;
        final AtomicBoolean finished = new AtomicBoolean();
        List<byte[]> joined;

        Job(int session, byte[] client, Frames body) {
            this.session = session;
            this.client = client;
            this.body = body;
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
            inLoop(() -> emit(this, frames, false));
        }

        @Override
        public void finish(Frames frames) {
            if (!finished.compareAndSet(false, true)) {
                throw new IllegalStateException("the final reply was already sent");
            }
            inLoop(() -> emit(this, frames, true));
        }

        @Override
        public void fail(Throwable cause) {
            if (!finished.compareAndSet(false, true)) {
                log.warn("worker {}: the handler failed after its final reply", service, cause);
                return;
            }
            inLoop(() -> failed(this, cause));
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
        waiting.clear();
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
