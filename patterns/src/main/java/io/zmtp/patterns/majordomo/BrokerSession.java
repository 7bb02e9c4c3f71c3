package io.zmtp.patterns.majordomo;

import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A Majordomo worker's registration with its broker, over one DEALER at a time: the socket is
 * opened to an endpoint and READY queued on it; what the broker sends is read once
 * ({@link MdpProtocol#atWorker}) and handed on as commands ({@link Listener}); what the worker
 * sends goes out in its version, traced, the time noted (a HEARTBEAT is skipped when something
 * else went out in the last half interval); at the end, DISCONNECT.
 *
 * <p>Each registration is a session, numbered: a new socket, or the same socket's connection come
 * back after a drop (then READY goes out again: the broker on a new connection does not know the
 * worker). A reply to a request of an older session is dropped by the worker ({@link #live}): the
 * broker it came from forgot it. When and where to open a socket is not decided here but by the
 * worker's {@link BrokerFailover}. Used on the worker's loop only.
 */
final class BrokerSession implements BrokerFailover.Sockets {
    private static final Logger log = LoggerFactory.getLogger(BrokerSession.class);
    private static final PeerFailureLog peerLog = PeerFailureLog.get(BrokerSession.class);

    /** What the broker said, and what became of the connection. */
    interface Listener {
        /** Something came from the broker (before it is read): it is alive. */
        void heard();

        /** A REQUEST: {@code client | "" | body} (ownership passes), of session {@code session}. */
        void request(ZmtpMessage request, int session);

        /** A HEARTBEAT. */
        void heartbeat();

        /** The broker sent DISCONNECT. */
        void disconnected();

        /** The socket's handshake completed; {@code again}: after a drop, registered again on a new session. */
        void up(boolean again);

        /** The connection dropped (the socket reconnects by itself). */
        void dropped();

        /** The socket stopped reconnecting ({@link SocketEvent.Type#RECONNECT_STOPPED}): it never will again. */
        void stopped(SocketEvent e);

        /** The socket was closed to be replaced: what waits from its session has nobody to answer. */
        void replaced();
    }

    private final ZmtpContext ctx;
    private final EventLoop loop;
    private final LoopClock clock;
    private final String service;
    private final MajordomoWorkerSettings settings;
    private final MdpVersion version;
    private final long intervalNanos;
    private final MessageTracer tracer;
    private final EventReporter<MajordomoEvent> events;
    private Listener listener;

    private ZmtpSocket socket;
    /** The endpoint of the current socket. */
    private String endpoint;
    private int session;
    private long lastSent;
    /** Whether the current socket has a connection to the broker (a handshake completed, no drop since). */
    private boolean connected;
    /** The current socket's connection dropped; READY goes out again when it is back. */
    private boolean lostConnection;
    private boolean closed;
    /** The connect of the newest socket (what the worker's start waits for: the first). */
    private CompletionStage<Void> lastConnect = CompletableFuture.completedFuture(null);

    BrokerSession(ZmtpContext ctx, EventLoop loop, LoopClock clock, String service, MajordomoWorkerSettings settings,
            EventReporter<MajordomoEvent> events) {
        this.ctx = ctx;
        this.loop = loop;
        this.clock = clock;
        this.service = service;
        this.settings = settings;
        this.version = settings.version();
        this.intervalNanos = settings.heartbeat().interval().toNanos();
        this.tracer = settings.tracer();
        this.events = events;
    }

    /** Where the commands go (set once, before the first {@link #open}). */
    void listener(Listener listener) {
        this.listener = listener;
    }

    /** Opens a new socket to {@code endpoint}, a new session, and queues READY on it (it goes at the handshake). */
    @Override
    public void open(String endpoint) {
        if (closed) {
            return;
        }
        session++;
        connected = false;
        lostConnection = false;
        this.endpoint = endpoint;
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
        event(MajordomoEvent.Type.CONNECTING, version.toString());
        // Queued until the connection is up: the broker's silence counts only from then on.
        send(MdpProtocol.ready(version, service), "I: sending READY to broker");
    }

    /** The connect of the newest socket. */
    CompletionStage<Void> lastConnect() {
        return lastConnect;
    }

    /** Closes the socket at once (linger 0), to be replaced. */
    @Override
    public void close() {
        if (socket != null) {
            socket.close(Duration.ZERO);
            socket = null;
        }
        listener.replaced();
    }

    /** Whether a reply to a request of {@code session} may still go out. */
    boolean live(int session) {
        return session == this.session && socket != null && !closed;
    }

    /** A HEARTBEAT, unless the connection is not up or something else went out in the last half interval. */
    @Override
    public void heartbeat() {
        if (closed || socket == null || !connected) {
            return;
        }
        if (clock.nanoTime() - lastSent >= Math.max(1, intervalNanos / 2)) {
            send(MdpProtocol.workerCommand(version, WorkerCommand.HEARTBEAT), "I: sending HEARTBEAT to broker");
        }
    }

    /** The final reply ({@code client | "" | body}, ownership passes): REPLY in 0.1, FINAL in 0.2. */
    void reply(ZmtpMessage reply) {
        WorkerCommand c = version == MdpVersion.V0_1 ? WorkerCommand.REPLY : WorkerCommand.FINAL;
        send(MdpProtocol.workerReply(version, c, reply), "I: sending " + c + " to broker");
    }

    /** A partial reply ({@code client | "" | body}, ownership passes): PARTIAL (0.2 only). */
    void partial(ZmtpMessage partial) {
        send(MdpProtocol.workerReply(version, WorkerCommand.PARTIAL, partial), "I: sending PARTIAL to broker");
    }

    /** DISCONNECT on the current socket (the broker forgets the worker and what it serves). */
    void disconnect() {
        send(MdpProtocol.workerCommand(version, WorkerCommand.DISCONNECT), "I: sending DISCONNECT to broker");
    }

    /** Says DISCONNECT and closes the socket with its linger, to flush it (the worker closes). */
    CompletionStage<Void> closeWithDisconnect() {
        closed = true;
        if (socket == null) {
            return CompletableFuture.completedFuture(null);
        }
        ZmtpSocket s = socket;
        disconnect();
        socket = null;
        return Futures.of(s.close(settings.socketOptions().linger()));
    }

    /**
     * The socket's connection came up or dropped, or the socket stopped reconnecting. When the
     * socket has reconnected by itself (a broker restarted on the same endpoint), the worker
     * registers again at once with a new READY, on a new session (the broker forgot the requests
     * of the old connection).
     */
    private void connectionEvent(ZmtpSocket s, SocketEvent e) {
        if (s != socket || closed) {
            return;
        }
        if (e.type() == SocketEvent.Type.RECONNECT_STOPPED) {
            connected = false;
            listener.stopped(e);
        } else if (e.type() == SocketEvent.Type.HANDSHAKE_SUCCEEDED) {
            if (connected) {
                return;
            }
            boolean again = lostConnection;
            connected = true;
            lostConnection = false;
            listener.up(again);
            if (again) {
                session++;
                event(MajordomoEvent.Type.CONNECTING, version + ", registering again");
                send(MdpProtocol.ready(version, service), "I: sending READY to broker");
            }
        } else if (e.type() == SocketEvent.Type.DISCONNECTED && connected) {
            connected = false;
            lostConnection = true;
            listener.dropped();
        }
    }

    private void received(ZmtpSocket s, ZmtpMessage m) {
        if (s != socket || closed) {
            m.release();
            return;
        }
        try {
            if (tracer != null) {
                tracer.trace("I: received message from broker:", m);
            }
            listener.heard();
            MdpCommand cmd;
            try {
                cmd = MdpProtocol.atWorker(m, version);
            } catch (MdpProtocol.MdpFormatException e) {
                peerLog.warn("worker {} drops an invalid message from the broker: {}", FrameText.escape(service),
                        FrameText.escape(e.getMessage()));
                m.release();
                return;
            }
            if (cmd instanceof MdpCommand.WorkerRequest r) {
                // The worker's core keeps the envelope (client | "") and hands the body to the handler.
                ZmtpMessage request = r.body();
                request.addFirst(Unpooled.EMPTY_BUFFER);
                request.addFirst(r.client());
                listener.request(request, session);
            } else if (cmd instanceof MdpCommand.WorkerHeartbeat) {
                cmd.release();
                listener.heartbeat();
            } else if (cmd instanceof MdpCommand.WorkerDisconnect) {
                cmd.release();
                event(MajordomoEvent.Type.DISCONNECT_RECEIVED, null);
                listener.disconnected();
            } else {
                cmd.release();
                peerLog.warn("worker {} drops an unexpected {} from the broker", FrameText.escape(service),
                        cmd.getClass().getSimpleName());
            }
        } catch (RuntimeException e) {
            log.warn("worker {} failed on a message", service, e);
            if (m.refCnt() > 0) {
                m.release();
            }
        }
    }

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

    private void event(MajordomoEvent.Type type, String detail) {
        String peer = endpoint;
        events.report(() -> new MajordomoEvent(type, peer, service, detail));
    }
}
