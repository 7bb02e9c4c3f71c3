package io.zmtp.patterns.paranoidpirate;

import io.zmtp.patterns.kit.Envelope;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.kit.ReconnectStoppedException;
import io.zmtp.patterns.kit.RequestHandler;
import io.zmtp.patterns.kit.WorkerCore;
import io.zmtp.patterns.kit.WorkerEvent;
import io.zmtp.patterns.kit.WorkerSettings;
import io.zmtp.patterns.kit.Backoff;
import io.zmtp.patterns.kit.Heartbeat;
import io.zmtp.patterns.kit.UpstreamConnection;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The guide's Paranoid Pirate worker (6/PPP): a DEALER connected to a
 * {@link ParanoidPirateQueue}'s backend, which says READY, answers requests with its
 * {@link RequestHandler}, and heartbeats.
 *
 * <p>The link to the queue is an {@link UpstreamConnection}: every heartbeat interval it sends
 * HEARTBEAT, and takes the queue for dead when it heard nothing from it for liveness intervals
 * (the kit's {@link io.zmtp.patterns.kit.PeerLiveness}; anything from the queue renews it). Then
 * the socket is closed at once (linger 0), and after a delay a new one (with a new identity, unless one was set)
 * connects and says READY again. The delay starts at the reconnect interval (1 s) and doubles
 * after each failure up to its maximum (32 s); anything heard from the queue resets it.
 *
 * <p>That delay is for a queue that is connected but silent (frozen, or one that lost the
 * worker). A queue that is down, or a proxy in front of it that accepts connections and closes
 * them, is not silent: the socket reconnects by itself (at most 200 ms apart by default), nothing
 * counts meanwhile, and the worker says READY on every completed handshake, so it is back in
 * service as soon as the queue accepts again. A socket that stops reconnecting (a
 * {@link io.zmtp.socket.ReconnectStop} case of its socket options, such as a refused connect; or
 * the queue's ERROR) ends the worker: it closes itself, and its {@link #terminated()} fails with a
 * {@link ReconnectStoppedException} naming the endpoint and the reason.
 *
 * <p>The socket, its handler and the timers run on one event loop; user code must not block it
 * (use {@link RequestHandler#blocking}), so heartbeats go on while a request is handled. Requests
 * are handled one at a time ({@link WorkerCore}); others wait, up to a bound. A reply whose
 * request came through an earlier connection is dropped (that connection's queue is gone). When
 * the handler fails, no reply is sent and the worker says READY again, so the queue gives it work
 * again (the client retries).
 *
 * <p>For demonstrations, the guide's faults can be simulated ({@link Settings.Builder#simulation}):
 * a crash closes the worker at once; an overload freezes it (no reading, no heartbeats, as a worker
 * stuck in a busy loop) for the overload time, after which it answers.
 */
public final class ParanoidPirateWorker extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(ParanoidPirateWorker.class);

    private final ZmtpContext context;
    private final Settings settings;
    private final EventReporter<WorkerEvent> events;
    private final WorkerCore core;
    private final UpstreamConnection link;

    // On the event loop.
    private ZmtpSocket socket;
    private String identity;
    private int generation;
    private boolean frozen;
    private final ArrayDeque<ZmtpMessage> heldWhileFrozen = new ArrayDeque<>();
    private CompletableFuture<Void> firstConnect;

    public ParanoidPirateWorker(ZmtpContext context, Settings settings, Consumer<? super WorkerEvent> listener) {
        super(context.group().next(), settings.clock());
        this.context = Objects.requireNonNull(context);
        this.settings = settings;
        this.events = new EventReporter<>(listener, log, "Paranoid Pirate worker");
        this.core = new WorkerCore(clock(), settings, new WorkerCore.Outlet() {
            @Override
            public void reply(long request, int connection, ZmtpMessage reply) {
                if (connection != generation || socket == null) {
                    reply.release();
                    events.report(() -> new WorkerEvent.ReplyDropped(identity, request,
                            "its connection to the queue is gone"));
                } else {
                    socket.send(reply);
                }
            }

            @Override
            public void failed(long request, int connection, Throwable cause) {
                if (connection == generation && socket != null) {
                    socket.send(Ppp.signal(Ppp.READY)); // free again; the client retries
                }
            }

            @Override
            public void crash(long request) {
                closeAsync();
            }

            @Override
            public void overloadStarted() {
                freeze();
            }

            @Override
            public void overloadEnded() {
                thaw();
            }
        }, events, () -> identity);
        this.link = new UpstreamConnection(clock(), settings.heartbeat,
                new Backoff(settings.reconnectInterval, settings.reconnectIntervalMax), new UpstreamConnection.Sockets() {
                    @Override
                    public void open() {
                        connect();
                    }

                    @Override
                    public void announce() {
                        socket.send(Ppp.signal(Ppp.READY));
                        String id = identity;
                        events.report(() -> new WorkerEvent.Ready(id, settings.endpoint()));
                    }

                    @Override
                    public void close() {
                        socket.close(Duration.ZERO);
                        socket = null;
                        core.dropQueued();
                    }

                    @Override
                    public void heartbeat() {
                        ZmtpMessage hb = Ppp.signal(Ppp.HEARTBEAT);
                        if (!socket.trySend(hb)) {
                            hb.release(); // not connected (or full): a stale heartbeat is worth nothing later
                        }
                    }
                }, new UpstreamConnection.Listener() {
                    @Override
                    public void lost(Duration silence) {
                        events.report(() -> new WorkerEvent.HeartbeatLost(identity, silence));
                    }

                    @Override
                    public void reconnecting(Duration delay) {
                        events.report(() -> new WorkerEvent.Reconnecting(identity, delay));
                    }
                });
    }

    /** The guide's worker identity: two random 16-bit numbers in hex, "1A2B-3C4D". */
    public static String randomIdentity() {
        return WorkerSettings.randomIdentity();
    }

    public Settings settings() {
        return settings;
    }

    /** Connects to the queue, says READY and starts heartbeating; completes when the first connect has. */
    @Override
    protected CompletionStage<Void> onStart() {
        CompletableFuture<Void> connected = new CompletableFuture<>();
        firstConnect = connected;
        link.start();
        return connected;
    }

    private void connect() {
        int gen = ++generation;
        identity = settings.identity() != null ? settings.identity() : WorkerSettings.randomIdentity();
        ZmtpSocket s = context.socket(SocketType.DEALER, settings.socketOptions().toBuilder().identity(identity)
                .linger(Duration.ZERO).build(), eventLoop());
        socket = s;
        s.onMessage(m -> onMessage(gen, m));
        link.connecting(); // READY and the queue's silence wait for the handshake
        s.monitor(e -> connectionEvent(gen, e));
        io.netty.util.concurrent.Future<Void> f = s.connect(settings.endpoint());
        if (firstConnect != null) {
            CompletableFuture<Void> first = firstConnect;
            firstConnect = null;
            Futures.of(f).whenComplete((r, e) -> {
                if (e != null) {
                    first.completeExceptionally(e);
                } else {
                    first.complete(null);
                }
            });
        }
    }

    /**
     * The socket's monitor: the link hears when the connection comes up (the worker says READY:
     * the queue on a new connection does not know it) and when it drops (the socket reconnects by
     * itself; a queue that is down, or a proxy that closes, is not a silent queue).
     */
    private void connectionEvent(int gen, SocketEvent e) {
        if (gen != generation || isClosing()) {
            return;
        }
        if (e.type() == SocketEvent.Type.RECONNECT_STOPPED) {
            closeFailed(ReconnectStoppedException.of(e)); // the queue out of reach for good: nothing left to do
        } else if (e.type() == SocketEvent.Type.HANDSHAKE_SUCCEEDED) {
            link.connectionUp();
        } else if (e.type() == SocketEvent.Type.DISCONNECTED) {
            core.dropQueued(); // the requests of that connection: its queue is gone
            boolean wasUp = link.isUp(); // not when the link itself closed the socket
            link.connectionLost();
            if (wasUp) {
                String id = identity;
                events.report(() -> new WorkerEvent.ConnectionLost(id, settings.endpoint()));
            }
        }
    }

    private void onMessage(int gen, ZmtpMessage msg) {
        if (isClosing() || gen != generation) {
            msg.release();
            return;
        }
        if (frozen) {
            heldWhileFrozen.add(msg);
            return;
        }
        link.heard();
        if (msg.size() == 1 && Envelope.isSignal(msg, 0, Ppp.HEARTBEAT)) {
            msg.release();
            if (settings.traceMessages()) {
                events.report(() -> new WorkerEvent.QueueHeartbeat(identity));
            }
            return;
        }
        int d = Envelope.delimiter(msg);
        if (d < 0 || d == msg.size() - 1) {
            events.report(() -> new WorkerEvent.InvalidMessage(identity, Envelope.describe(msg)));
            msg.release();
            return;
        }
        core.offer(msg, d, gen);
    }

    /** Simulated overload: stop reading and heartbeating, as a worker stuck in a busy loop would. */
    private void freeze() {
        frozen = true;
        link.suspend();
        if (socket != null) {
            socket.pauseReceiving();
        }
    }

    private void thaw() {
        frozen = false;
        if (socket != null) {
            socket.resumeReceiving();
        }
        link.resume();
        ZmtpMessage next;
        while (!frozen && (next = heldWhileFrozen.poll()) != null) {
            onMessage(generation, next);
        }
    }

    /** Closes with linger 0, as a crash would: the request being handled is lost. */
    @Override
    protected CompletionStage<Void> onClose() {
        link.stop();
        core.close();
        ZmtpMessage m;
        while ((m = heldWhileFrozen.poll()) != null) {
            m.release();
        }
        if (firstConnect != null) {
            firstConnect.completeExceptionally(new io.zmtp.socket.SocketClosedException("closed"));
        }
        ZmtpSocket s = socket;
        socket = null;
        return s == null ? CompletableFuture.completedFuture(null) : Futures.of(s.close(Duration.ZERO));
    }

    /**
     * What a Paranoid Pirate worker needs. Defaults follow the guide: the queue at
     * tcp://localhost:5556, a heartbeat every second with liveness 3, reconnecting after 1 s
     * doubling up to 32 s, echoing requests.
     */
    public static final class Settings extends WorkerSettings {
        final Heartbeat heartbeat;
        final Duration reconnectInterval;
        final Duration reconnectIntervalMax;

        private Settings(Builder b) {
            super(b);
            heartbeat = b.heartbeat;
            reconnectInterval = b.reconnectInterval;
            reconnectIntervalMax = b.reconnectIntervalMax;
        }

        public static Builder builder() {
            return new Builder();
        }

        public Heartbeat heartbeat() {
            return heartbeat;
        }

        public Duration reconnectInterval() {
            return reconnectInterval;
        }

        public Duration reconnectIntervalMax() {
            return reconnectIntervalMax;
        }

        public static final class Builder extends WorkerSettings.Builder<Builder, Settings> {
            private Heartbeat heartbeat = Heartbeat.DEFAULT;
            private Duration reconnectInterval = Duration.ofSeconds(1);
            private Duration reconnectIntervalMax = Duration.ofSeconds(32);

            private Builder() {
                super("tcp://localhost:5556");
            }

            @Override
            protected Builder self() {
                return this;
            }

            /** The heartbeat interval and liveness; must match the queue's (the guide's: 1 s, 3). */
            public Builder heartbeat(Heartbeat heartbeat) {
                this.heartbeat = Objects.requireNonNull(heartbeat);
                return this;
            }

            /** The first reconnect delay after the queue is lost (the guide's INTERVAL_INIT, 1 s). */
            public Builder reconnectInterval(Duration d) {
                if (d.isNegative() || d.isZero()) {
                    throw new IllegalArgumentException("reconnectInterval must be positive");
                }
                this.reconnectInterval = d;
                return this;
            }

            /** The longest reconnect delay the doubling reaches (the guide's INTERVAL_MAX, 32 s). */
            public Builder reconnectIntervalMax(Duration d) {
                this.reconnectIntervalMax = Objects.requireNonNull(d);
                return this;
            }

            @Override
            public Settings build() {
                if (reconnectIntervalMax.compareTo(reconnectInterval) < 0) {
                    reconnectIntervalMax = reconnectInterval;
                }
                return new Settings(this);
            }
        }
    }
}
