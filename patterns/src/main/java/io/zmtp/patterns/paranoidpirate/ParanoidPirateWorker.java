package io.zmtp.patterns.paranoidpirate;

import io.zmtp.patterns.DelayedMessage;
import io.zmtp.patterns.EventReporter;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import io.zmtp.patterns.Envelope;
import io.zmtp.patterns.FailureSimulation;
import io.zmtp.patterns.Futures;
import io.zmtp.patterns.RequestHandler;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The guide's Paranoid Pirate worker (6/PPP): a DEALER connected to a
 * {@link ParanoidPirateQueue}'s backend, which says READY, answers requests with its
 * {@link RequestHandler}, and heartbeats.
 *
 * <p>Every heartbeat interval it sends HEARTBEAT, and counts down its liveness if it heard
 * nothing from the queue since the last interval (anything from the queue resets it). At zero the
 * queue is taken for dead: the socket is closed at once (linger 0), and after a delay a new one
 * (with a new identity, unless one was set) connects and says READY again. The delay starts at the
 * reconnect interval (1 s) and doubles after each failure up to its maximum (32 s); anything heard
 * from the queue resets it.
 *
 * <p>The socket, its handler and the timer run on one event loop; user code must not block it (use
 * {@link RequestHandler#blocking}), so heartbeats go on while a request is handled. Requests are
 * handled one at a time; others wait, up to a bound. A reply whose request came through an earlier
 * connection is dropped (that connection's queue is gone). When the handler fails, no reply is
 * sent and the worker says READY again, so the queue gives it work again (the client retries).
 *
 * <p>For demonstrations, the guide's faults can be simulated ({@link Settings.Builder#simulation}):
 * a crash closes the worker at once; an overload freezes it (no reading, no heartbeats, as a worker
 * stuck in a busy loop) for the overload time, after which it answers.
 */
public final class ParanoidPirateWorker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ParanoidPirateWorker.class);

    private final ZmtpContext context;
    private final Settings settings;
    private final EventReporter<Event> events;
    private final EventLoop loop;
    private final Random random;
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();

    // On the event loop.
    private ZmtpSocket socket;
    private String identity;
    private int generation;
    private int liveness;
    private boolean heard;
    private Duration nextReconnectDelay;
    private HeartbeatTimer tick;
    private ScheduledFuture<?> reconnectTimer;
    private final ArrayDeque<ZmtpMessage> queued = new ArrayDeque<>();
    private boolean busy;
    private boolean draining;
    private boolean frozen;
    private final ArrayDeque<ZmtpMessage> heldWhileFrozen = new ArrayDeque<>();
    private final DelayedMessage delayed = new DelayedMessage();
    private long requests;
    private boolean closing;

    public ParanoidPirateWorker(ZmtpContext context, Settings settings, Consumer<Event> listener) {
        this.context = Objects.requireNonNull(context);
        this.settings = Objects.requireNonNull(settings);
        this.events = new EventReporter<>(listener, log, "Paranoid Pirate worker");
        this.loop = context.group().next();
        this.random = settings.simulation.newRandom();
        this.nextReconnectDelay = settings.reconnectInterval;
    }

    /** The guide's worker identity: two random 16-bit numbers in hex, "1A2B-3C4D". */
    public static String randomIdentity() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return String.format("%04X-%04X", r.nextInt(0x10000), r.nextInt(0x10000));
    }

    /** Connects to the queue, says READY and starts heartbeating. */
    public ParanoidPirateWorker start() {
        CompletableFuture<Void> connected = new CompletableFuture<>();
        loop.execute(() -> {
            if (closing) {
                connected.complete(null);
                return;
            }
            Futures.of(connect()).whenComplete((r, e) -> {
                if (e != null) {
                    connected.completeExceptionally(e);
                } else {
                    connected.complete(null);
                }
            });
            tick = new HeartbeatTimer(loop, settings.heartbeat.interval().toNanos(), this::onTick);
            tick.start();
        });
        if (!loop.inEventLoop()) {
            Futures.await(connected, Duration.ofSeconds(30));
        }
        return this;
    }

    /** Completes when the worker has closed, or crashed on purpose. */
    public CompletableFuture<Void> terminated() {
        return terminated;
    }

    public Settings settings() {
        return settings;
    }

    // ------------------------------------------------------------------ connection and heartbeats

    private io.netty.util.concurrent.Future<Void> connect() {
        int gen = ++generation;
        identity = settings.identity != null ? settings.identity : randomIdentity();
        ZmtpSocket s = context.socket(SocketType.DEALER, settings.socketOptions.toBuilder().identity(identity)
                .linger(Duration.ZERO).build(), loop);
        socket = s;
        s.onMessage(m -> onMessage(gen, m));
        io.netty.util.concurrent.Future<Void> f = s.connect(settings.backend);
        s.send(Ppp.signal(Ppp.READY));
        liveness = settings.heartbeat.liveness();
        heard = false;
        emit(() -> new Event(Event.Type.READY, identity, 0, settings.backend, null));
        return f;
    }

    private void onTick(boolean silenceCounts) {
        if (closing || frozen || socket == null) {
            return; // frozen: a stuck worker neither counts nor sends; no socket: reconnect pending
        }
        if (heard) {
            heard = false;
        } else if (silenceCounts && --liveness <= 0) {
            heartbeatLost();
            return;
        }
        ZmtpMessage hb = Ppp.signal(Ppp.HEARTBEAT);
        if (!socket.trySend(hb)) {
            hb.release(); // not connected (or full): a stale heartbeat is worth nothing later
        }
    }

    private void heartbeatLost() {
        emit(() -> new Event(Event.Type.HEARTBEAT_LOST, identity, 0,
                "nothing from the queue for " + settings.heartbeat.expiry().toMillis() + " ms", null));
        socket.close(Duration.ZERO);
        socket = null;
        releaseAll(queued);
        Duration delay = nextReconnectDelay;
        Duration doubled = delay.multipliedBy(2);
        nextReconnectDelay = doubled.compareTo(settings.reconnectIntervalMax) > 0
                ? settings.reconnectIntervalMax : doubled;
        emit(() -> new Event(Event.Type.RECONNECTING, identity, 0, null, delay));
        reconnectTimer = loop.schedule(() -> {
            reconnectTimer = null;
            if (!closing) {
                connect();
            }
        }, delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    // ------------------------------------------------------------------ requests

    private void onMessage(int gen, ZmtpMessage msg) {
        if (closing || gen != generation) {
            msg.release();
            return;
        }
        if (frozen) {
            heldWhileFrozen.add(msg);
            return;
        }
        liveness = settings.heartbeat.liveness();
        heard = true;
        nextReconnectDelay = settings.reconnectInterval;
        if (msg.size() == 1 && Envelope.isSignal(msg, 0, Ppp.HEARTBEAT)) {
            msg.release();
            if (settings.traceMessages) {
                emit(() -> new Event(Event.Type.QUEUE_HEARTBEAT, identity, 0, null, null));
            }
            return;
        }
        int d = Envelope.delimiter(msg);
        if (d < 0 || d == msg.size() - 1) {
            emit(() -> new Event(Event.Type.INVALID_MESSAGE, identity, 0, Envelope.describe(msg), null));
            msg.release();
            return;
        }
        if (busy || !queued.isEmpty()) {
            if (queued.size() >= settings.maxQueuedRequests) {
                emit(() -> new Event(Event.Type.REQUEST_DROPPED, identity, 0,
                        settings.maxQueuedRequests + " requests already wait", null));
                msg.release();
                return;
            }
            queued.add(msg);
            return;
        }
        process(gen, msg);
    }

    private void process(int gen, ZmtpMessage msg) {
        long n = ++requests;
        int d = Envelope.delimiter(msg);
        FailureSimulation.Fault fault = settings.simulation.decide(n, random);
        if (fault == FailureSimulation.Fault.CRASH) {
            emit(() -> new Event(Event.Type.CRASHING, identity, n, null, null));
            msg.release();
            close(Duration.ZERO);
            return;
        }
        busy = true;
        emit(() -> new Event(Event.Type.REQUEST, identity, n, Envelope.describe(msg, d + 1), null));
        if (fault == FailureSimulation.Fault.OVERLOAD) {
            emit(() -> new Event(Event.Type.OVERLOADED, identity, n, null, settings.simulation.overloadTime()));
            freeze(settings.simulation.overloadTime(), gen, n, msg, d);
        } else {
            afterWork(gen, n, msg, d);
        }
    }

    /** The guide's "heavy work": the request waits the work time (a timer), then goes to the handler. */
    private void afterWork(int gen, long n, ZmtpMessage msg, int d) {
        if (settings.workTime.isZero()) {
            handle(gen, n, msg, d);
            return;
        }
        delayed.hold(loop, msg, settings.workTime, m -> handle(gen, n, m, d));
    }

    private void handle(int gen, long n, ZmtpMessage msg, int d) {
        ZmtpMessage envelope = msg.takeFirst(d + 1);
        CompletionStage<ZmtpMessage> stage;
        try {
            stage = settings.handler.handle(msg);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((reply, error) -> {
            if (loop.inEventLoop()) {
                finished(gen, n, envelope, reply, error);
            } else {
                try {
                    loop.execute(() -> finished(gen, n, envelope, reply, error));
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    envelope.release(); // the event loop is gone: nobody will send the reply
                    if (reply != null) {
                        reply.release();
                    }
                }
            }
        });
    }

    private void finished(int gen, long n, ZmtpMessage envelope, ZmtpMessage reply, Throwable error) {
        busy = false;
        if (closing || gen != generation || socket == null) {
            envelope.release();
            if (reply != null) {
                reply.release();
            }
            if (!closing) {
                emit(() -> new Event(Event.Type.REPLY_DROPPED, identity, n, "its connection to the queue is gone", null));
            }
        } else if (error != null || reply == null) {
            envelope.release();
            emit(() -> new Event(Event.Type.HANDLER_FAILED, identity, n, error == null ? "no reply" : error.toString(),
                    null));
            socket.send(Ppp.signal(Ppp.READY)); // free again; the client retries
        } else {
            if (settings.traceMessages) {
                emit(() -> new Event(Event.Type.REPLIED, identity, n, Envelope.describe(reply), null));
            }
            socket.send(reply.prepend(envelope));
        }
        processQueued();
    }

    private void processQueued() {
        if (draining) {
            return;
        }
        draining = true;
        try {
            ZmtpMessage m;
            while (!busy && !frozen && !closing && (m = queued.poll()) != null) {
                process(generation, m);
            }
        } finally {
            draining = false;
        }
    }

    /**
     * Simulated overload: stop reading and heartbeating for {@code d}, as a worker stuck in a busy
     * loop would, then go on with the request.
     */
    private void freeze(Duration d, int gen, long n, ZmtpMessage msg, int delimiter) {
        frozen = true;
        ZmtpSocket frozenSocket = socket;
        frozenSocket.pauseReceiving();
        delayed.hold(loop, msg, d, m -> {
            frozen = false;
            if (socket == frozenSocket) {
                socket.resumeReceiving();
            }
            liveness = settings.heartbeat.liveness();
            afterWork(gen, n, m, delimiter);
            ZmtpMessage next;
            while (!frozen && (next = heldWhileFrozen.poll()) != null) {
                onMessage(generation, next);
            }
        });
    }

    // ------------------------------------------------------------------ closing

    /** Closes with linger 0, as a crash would: the request being handled is lost. */
    @Override
    public void close() {
        CompletableFuture<Void> f = close(Duration.ZERO);
        if (!loop.inEventLoop()) {
            Futures.awaitQuietly(f, Duration.ofSeconds(10));
        }
    }

    /** Stops heartbeating and closes the socket, flushing a reply for up to {@code linger}. */
    public CompletableFuture<Void> close(Duration linger) {
        Runnable r = () -> {
            if (closing) {
                return;
            }
            closing = true;
            if (tick != null) {
                tick.stop();
            }
            if (reconnectTimer != null) {
                reconnectTimer.cancel(false);
            }
            delayed.cancel();
            releaseAll(queued);
            releaseAll(heldWhileFrozen);
            if (socket == null) {
                terminated.complete(null);
            } else {
                socket.close(linger).addListener(f -> terminated.complete(null));
                socket = null;
            }
        };
        if (loop.inEventLoop()) {
            r.run();
        } else {
            loop.execute(r);
        }
        return terminated;
    }

    private static void releaseAll(ArrayDeque<ZmtpMessage> q) {
        ZmtpMessage m;
        while ((m = q.poll()) != null) {
            m.release();
        }
    }

    private void emit(java.util.function.Supplier<Event> event) {
        events.report(event);
    }

    /** Something the worker did, for the listener (and the {@code ppworker} command's output). */
    public static final class Event {
        public enum Type {
            /** A new socket connects to the queue and said READY; {@link #detail()} is the endpoint. */
            READY,
            /** The queue was silent for liveness x interval: the socket was closed. */
            HEARTBEAT_LOST,
            /** A new socket will connect after {@link #delay()}. */
            RECONNECTING,
            /** A request is being handled. */
            REQUEST,
            /** A reply went to the queue (per message: only with traceMessages). */
            REPLIED,
            /** A HEARTBEAT came from the queue (only with traceMessages). */
            QUEUE_HEARTBEAT,
            /** Simulated: the worker freezes for {@link #delay()} (no reading, no heartbeats). */
            OVERLOADED,
            /** Simulated: the worker crashes on this request. */
            CRASHING,
            /** The handler failed: no reply (the client retries); the worker said READY again. */
            HANDLER_FAILED,
            /** A reply was ready after the connection its request came on was replaced: dropped. */
            REPLY_DROPPED,
            /** Too many requests waited: this one was dropped. */
            REQUEST_DROPPED,
            /** The queue sent something that is neither HEARTBEAT nor a request: dropped. */
            INVALID_MESSAGE
        }

        private final Type type;
        private final String identity;
        private final long request;
        private final String detail;
        private final Duration delay;

        Event(Type type, String identity, long request, String detail, Duration delay) {
            this.type = type;
            this.identity = identity;
            this.request = request;
            this.detail = detail;
            this.delay = delay;
        }

        public Type type() {
            return type;
        }

        /** The identity of the worker's current connection. */
        public String identity() {
            return identity;
        }

        /** The request's number, counted from 1 since the worker started (0 when none). */
        public long request() {
            return request;
        }

        public String detail() {
            return detail;
        }

        /** The reconnect delay (RECONNECTING) or freeze time (OVERLOADED), else null. */
        public Duration delay() {
            return delay;
        }

        @Override
        public String toString() {
            String who = "(" + identity + ") ";
            switch (type) {
                case READY:
                    return who + "worker ready, connecting to " + detail;
                case HEARTBEAT_LOST:
                    return who + "heartbeat failure, can't reach queue: " + detail;
                case RECONNECTING:
                    return who + "reconnecting in " + delay.toMillis() + " ms";
                case REQUEST:
                    return who + "normal reply (" + request + "): " + detail;
                case REPLIED:
                    return who + "replied (" + request + "): " + detail;
                case QUEUE_HEARTBEAT:
                    return who + "queue heartbeat";
                case OVERLOADED:
                    return who + "simulating CPU overload (" + request + "): frozen for " + delay.toMillis() + " ms";
                case CRASHING:
                    return who + "simulating a crash (" + request + ")";
                case HANDLER_FAILED:
                    return who + "request " + request + " failed: " + detail;
                case REPLY_DROPPED:
                    return who + "reply " + request + " dropped: " + detail;
                case REQUEST_DROPPED:
                    return who + "request dropped: " + detail;
                default:
                    return who + "invalid message: " + detail;
            }
        }
    }

    /**
     * What a Paranoid Pirate worker needs. Defaults follow the guide: the queue at
     * tcp://localhost:5556, a heartbeat every second with liveness 3, reconnecting after 1 s
     * doubling up to 32 s, echoing requests.
     */
    public static final class Settings {
        final String backend;
        final PirateHeartbeat heartbeat;
        final Duration reconnectInterval;
        final Duration reconnectIntervalMax;
        final RequestHandler handler;
        final String identity;
        final Duration workTime;
        final int maxQueuedRequests;
        final FailureSimulation simulation;
        final SocketOptions socketOptions;

        final boolean traceMessages;

        private Settings(Builder b) {
            traceMessages = b.traceMessages;
            backend = b.backend;
            heartbeat = b.heartbeat;
            reconnectInterval = b.reconnectInterval;
            reconnectIntervalMax = b.reconnectIntervalMax;
            handler = b.handler;
            identity = b.identity;
            workTime = b.workTime;
            maxQueuedRequests = b.maxQueuedRequests;
            simulation = b.simulation;
            socketOptions = b.socketOptions;
        }

        public static Builder builder() {
            return new Builder();
        }

        public PirateHeartbeat heartbeat() {
            return heartbeat;
        }

        public Duration reconnectInterval() {
            return reconnectInterval;
        }

        public Duration reconnectIntervalMax() {
            return reconnectIntervalMax;
        }

        public static final class Builder {
            private String backend = "tcp://localhost:5556";
            private PirateHeartbeat heartbeat = PirateHeartbeat.DEFAULT;
            private Duration reconnectInterval = Duration.ofSeconds(1);
            private Duration reconnectIntervalMax = Duration.ofSeconds(32);
            private RequestHandler handler = RequestHandler.echo();
            private String identity;
            private Duration workTime = Duration.ZERO;
            private int maxQueuedRequests = 100;
            private FailureSimulation simulation = FailureSimulation.NONE;
            private SocketOptions socketOptions = SocketOptions.DEFAULTS;

            private boolean traceMessages;

            private Builder() {
            }

            /** The queue's backend. */
            public Builder backend(String endpoint) {
                this.backend = Objects.requireNonNull(endpoint);
                return this;
            }

            /** The heartbeat interval and liveness; must match the queue's (the guide's: 1 s, 3). */
            public Builder heartbeat(PirateHeartbeat heartbeat) {
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

            /** The user code (echo by default). */
            public Builder handler(RequestHandler handler) {
                this.handler = Objects.requireNonNull(handler);
                return this;
            }

            /** A fixed identity (null, the default: a random "1A2B-3C4D" for each new connection). */
            public Builder identity(String identity) {
                this.identity = identity;
                return this;
            }

            /** A delay before each request goes to the handler (the guide's worker: 1 s; default 0). */
            public Builder workTime(Duration d) {
                if (d.isNegative()) {
                    throw new IllegalArgumentException("workTime must not be negative");
                }
                this.workTime = d;
                return this;
            }

            /** Requests that may wait while one is handled (100 by default); more are dropped. */
            public Builder maxQueuedRequests(int n) {
                if (n < 0) {
                    throw new IllegalArgumentException("maxQueuedRequests must not be negative");
                }
                this.maxQueuedRequests = n;
                return this;
            }

            /** Simulated crashes and freezes ({@link FailureSimulation#NONE} by default). */
            public Builder simulation(FailureSimulation s) {
                this.simulation = Objects.requireNonNull(s);
                return this;
            }

            /** Options of the DEALER sockets (security, limits); identity and linger are the worker's. */
            public Builder socketOptions(SocketOptions options) {
                this.socketOptions = Objects.requireNonNull(options);
                return this;
            }

            /**
             * Also report an event for every message passed on (off by default: each costs a
             * description of the message). The commands turn it on with --verbose.
             */
            public Builder traceMessages(boolean on) {
                this.traceMessages = on;
                return this;
            }

            public Settings build() {
                if (reconnectIntervalMax.compareTo(reconnectInterval) < 0) {
                    reconnectIntervalMax = reconnectInterval;
                }
                return new Settings(this);
            }
        }
    }
}
