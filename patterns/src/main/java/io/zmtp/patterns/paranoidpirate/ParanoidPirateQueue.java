package io.zmtp.patterns.paranoidpirate;

import io.zmtp.patterns.EventReporter;

import io.netty.channel.EventLoop;
import io.zmtp.patterns.Envelope;
import io.zmtp.patterns.Futures;
import io.zmtp.patterns.RoutingId;
import io.zmtp.socket.RouterSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The guide's Paranoid Pirate queue (6/PPP): a least-recently-used queue that knows which of
 * its workers are alive.
 *
 * <p>Clients (Lazy Pirate) connect to the frontend ROUTER, {@link ParanoidPirateWorker}s (DEALER)
 * to the backend ROUTER; both run on one event loop with the queue's timer, so nothing is locked.
 * Each request goes to the worker that has been ready longest, behind its address; the worker's
 * reply goes back to the client and makes it ready again. Every heartbeat interval the queue sends
 * HEARTBEAT to each worker it knows (busy ones too: their user code may take longer than the
 * heartbeat) and forgets the workers it has not heard from for liveness x interval; a request
 * such a worker held is lost, and its client retries.
 *
 * <p>Two maps keep this cheap: {@code ready} holds idle workers in least-recently-used order (a
 * request takes the first in constant time) and {@code known} holds every worker in the order
 * they were last heard from (expiry looks only at its head). Anything a worker sends counts as a
 * sign of life. As the guide's queue, it also takes a HEARTBEAT or a reply from a worker it does
 * not know (after the queue restarted, say) as that worker being ready.
 *
 * <p>A heartbeat tick that runs late because the queue's own loop stalled expires nobody: what the
 * workers sent meanwhile is read first ({@link HeartbeatTimer}).
 */
public final class ParanoidPirateQueue implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ParanoidPirateQueue.class);

    private final Settings settings;
    private final EventReporter<Event> events;
    private final EventLoop loop;
    private final RouterSocket frontend;
    private final RouterSocket backend;
    private volatile String frontendEndpoint;
    private volatile String backendEndpoint;
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();

    // On the event loop.
    private final LinkedHashMap<RoutingId, Worker> ready = new LinkedHashMap<>();
    private final LinkedHashMap<RoutingId, Worker> known = new LinkedHashMap<>(16, 0.75f, true);
    private final ArrayDeque<ZmtpMessage> waiting = new ArrayDeque<>();
    private HeartbeatTimer heartbeatTimer;
    private boolean reading = true;
    private boolean closing;

    public ParanoidPirateQueue(ZmtpContext context, Settings settings, Consumer<Event> listener) {
        this.settings = Objects.requireNonNull(settings);
        this.events = new EventReporter<>(listener, log, "Paranoid Pirate queue");
        this.loop = context.group().next();
        this.frontend = (RouterSocket) context.socket(SocketType.ROUTER, settings.frontendOptions, loop);
        this.backend = (RouterSocket) context.socket(SocketType.ROUTER, settings.backendOptions, loop);
    }

    /** Binds both sockets and starts routing and heartbeating. */
    public ParanoidPirateQueue start() {
        loop.execute(this::updateReading); // no worker yet: requests wait
        frontend.onMessage(this::onRequest);
        backend.onMessage(this::onWorkerMessage);
        frontendEndpoint = Futures.await(Futures.of(frontend.bind(settings.frontend)), Duration.ofSeconds(30));
        backendEndpoint = Futures.await(Futures.of(backend.bind(settings.backend)), Duration.ofSeconds(30));
        loop.execute(() -> {
            if (!closing) {
                heartbeatTimer = new HeartbeatTimer(loop, settings.heartbeat.interval().toNanos(), this::onHeartbeatTick);
                heartbeatTimer.start();
            }
        });
        String listening = "clients on " + frontendEndpoint + ", workers on "
                + backendEndpoint + ", " + settings.heartbeat;
        loop.execute(() -> emit(() -> new Event(Event.Type.LISTENING, null, listening)));
        return this;
    }

    public String frontendEndpoint() {
        return frontendEndpoint;
    }

    public String backendEndpoint() {
        return backendEndpoint;
    }

    public Settings settings() {
        return settings;
    }

    /** The number of workers ready for a request and the number known (alive), for tests and monitoring. */
    public CompletableFuture<int[]> workerCounts() {
        CompletableFuture<int[]> f = new CompletableFuture<>();
        loop.execute(() -> f.complete(new int[] {ready.size(), known.size()}));
        return f;
    }

    // ------------------------------------------------------------------ workers

    private void onWorkerMessage(ZmtpMessage msg) {
        // [worker id, READY] | [worker id, HEARTBEAT] | [worker id, client envelope..., "", reply...]
        if (closing) {
            msg.release();
            return;
        }
        RoutingId id = RoutingId.of(msg.first());
        boolean signal = msg.size() == 2;
        boolean valid = signal ? Envelope.isSignal(msg, 1, Ppp.READY) || Envelope.isSignal(msg, 1, Ppp.HEARTBEAT)
                : isReply(msg);
        if (!valid) {
            emit(() -> new Event(Event.Type.INVALID_MESSAGE, id, Envelope.describe(msg, 1)));
            msg.release();
            return;
        }
        Worker w = known.get(id); // also moves it to the end: the most recently heard
        boolean isNew = w == null;
        if (isNew) {
            w = new Worker(id);
            known.put(id, w);
        }
        w.expiresAt = System.nanoTime() + settings.heartbeat.expiry().toNanos();
        if (signal && Envelope.isSignal(msg, 1, Ppp.READY)) {
            msg.release();
            if (w.busy) {
                emit(() -> new Event(Event.Type.REQUEST_ABANDONED, id, null));
            }
            makeReady(w, Event.Type.WORKER_READY);
        } else if (signal) {
            msg.release();
            if (isNew) {
                makeReady(w, Event.Type.WORKER_ADOPTED);
            }
        } else {
            msg.dropFirst();
            if (settings.traceMessages) {
                emit(() -> new Event(Event.Type.REPLY_ROUTED, id, Envelope.describe(msg)));
            }
            frontend.send(msg);
            makeReady(w, isNew ? Event.Type.WORKER_ADOPTED : null);
        }
        dispatchWaiting();
    }

    /** [worker id, client address..., "", body...]: at least one address frame, a delimiter, a body. */
    private static boolean isReply(ZmtpMessage msg) {
        int d = Envelope.delimiter(msg);
        return d >= 2 && d < msg.size() - 1;
    }

    private void makeReady(Worker w, Event.Type announce) {
        w.busy = false;
        boolean added = ready.put(w.id, w) == null;
        if (announce != null && added) {
            emit(() -> new Event(announce, w.id, null));
        }
    }

    private void forget(Worker w) {
        known.remove(w.id);
        ready.remove(w.id);
    }

    private void onHeartbeatTick(boolean silenceCounts) {
        if (closing) {
            return;
        }
        long now = System.nanoTime();
        Iterator<Worker> oldestFirst = known.values().iterator();
        while (silenceCounts && oldestFirst.hasNext()) {
            Worker w = oldestFirst.next();
            if (w.expiresAt - now > 0) {
                break; // the rest were heard from more recently
            }
            oldestFirst.remove();
            ready.remove(w.id);
            emit(() -> new Event(Event.Type.WORKER_EXPIRED, w.id, w.busy ? "its request is lost" : "idle"));
        }
        for (Worker w : known.values()) {
            ZmtpMessage hb = Ppp.signal(Ppp.HEARTBEAT).addFirst(w.id.toFrame());
            if (!backend.trySend(hb)) {
                hb.release();
            }
        }
        updateReading();
    }

    // ------------------------------------------------------------------ requests

    private void onRequest(ZmtpMessage msg) {
        // From a client, after the frontend ROUTER: [client id, envelope..., "", body...]
        if (closing) {
            msg.release();
            return;
        }
        if (!waiting.isEmpty() || !dispatch(msg)) {
            waiting.add(msg);
        }
        updateReading();
    }

    /** Sends the request to the least recently used live worker; false (message kept) if none is ready. */
    private boolean dispatch(ZmtpMessage request) {
        Iterator<Worker> lru = ready.values().iterator();
        while (lru.hasNext()) {
            Worker w = lru.next();
            lru.remove();
            if (!w.id.connectedTo(backend)) {
                known.remove(w.id);
                emit(() -> new Event(Event.Type.WORKER_GONE, w.id, null));
                continue;
            }
            w.busy = true;
            if (settings.traceMessages) {
                emit(() -> new Event(Event.Type.REQUEST_ROUTED, w.id, Envelope.describe(request)));
            }
            backend.send(request.addFirst(w.id.toFrame()));
            return true;
        }
        return false;
    }

    private void dispatchWaiting() {
        ZmtpMessage next;
        while ((next = waiting.peek()) != null && dispatch(next)) {
            waiting.poll();
        }
        updateReading();
    }

    /** Reads requests only while a worker is ready for one. */
    private void updateReading() {
        boolean read = !ready.isEmpty() && waiting.isEmpty() && !closing;
        if (read != reading) {
            reading = read;
            if (read) {
                frontend.resumeReceiving();
            } else {
                frontend.pauseReceiving();
            }
        }
    }

    // ------------------------------------------------------------------ closing

    /** Stops heartbeating and closes both sockets; requests not yet routed are dropped. */
    public CompletableFuture<Void> close(Duration linger) {
        loop.execute(() -> {
            if (closing) {
                return;
            }
            closing = true;
            if (heartbeatTimer != null) {
                heartbeatTimer.stop();
            }
            ZmtpMessage m;
            while ((m = waiting.poll()) != null) {
                m.release();
            }
            ready.clear();
            known.clear();
            Futures.of(frontend.close(linger)).thenCombine(Futures.of(backend.close(linger)), (a, b) -> null)
                    .whenComplete((r, e) -> terminated.complete(null));
        });
        return terminated;
    }

    /** Completes when the queue has closed. */
    public CompletableFuture<Void> terminated() {
        return terminated;
    }

    /** Closes with the settings' linger, waiting for it. */
    @Override
    public void close() {
        CompletableFuture<Void> f = close(settings.linger);
        if (!loop.inEventLoop()) {
            Futures.awaitQuietly(f, settings.linger.plusSeconds(10));
        }
    }

    private void emit(java.util.function.Supplier<Event> event) {
        events.report(event);
    }

    /** A worker as the queue sees it. */
    private static final class Worker {
        final RoutingId id;
        long expiresAt;
        boolean busy;

        Worker(RoutingId id) {
            this.id = id;
        }
    }

    /** Something the queue did, for the listener (and the {@code ppqueue} command's output). */
    public static final class Event {
        public enum Type {
            /** Both sockets are bound; {@link #detail()} names the endpoints. */
            LISTENING,
            /** A worker said READY and joined the queue. */
            WORKER_READY,
            /**
             * A worker the queue did not know sent a HEARTBEAT or a reply (the queue restarted under
             * it, or had expired it): taken as alive and ready, as the guide's queue does.
             */
            WORKER_ADOPTED,
            /** A worker that held a request said READY again (it restarted, or gave up): the request is lost. */
            REQUEST_ABANDONED,
            /** A worker was silent for liveness x interval and was forgotten. */
            WORKER_EXPIRED,
            /** A ready worker's connection was gone when its turn came: it was forgotten. */
            WORKER_GONE,
            /** A worker sent something that is neither a signal nor a reply; it was dropped. */
            INVALID_MESSAGE,
            /** A request went to a worker (per message: only with traceMessages). */
            REQUEST_ROUTED,
            /** A reply went back to its client (per message: only with traceMessages). */
            REPLY_ROUTED
        }

        private final Type type;
        private final RoutingId worker;
        private final String detail;

        Event(Type type, RoutingId worker, String detail) {
            this.type = type;
            this.worker = worker;
            this.detail = detail;
        }

        public Type type() {
            return type;
        }

        /** The worker concerned, or null. */
        public RoutingId worker() {
            return worker;
        }

        public String detail() {
            return detail;
        }

        @Override
        public String toString() {
            switch (type) {
                case LISTENING:
                    return "queue ready: " + detail;
                case WORKER_READY:
                    return "worker " + worker + " ready";
                case WORKER_ADOPTED:
                    return "worker " + worker + " ready (heard from it without a READY)";
                case REQUEST_ABANDONED:
                    return "worker " + worker + " is ready again without a reply: its request is lost";
                case WORKER_EXPIRED:
                    return "worker " + worker + " expired (" + detail + ")";
                case WORKER_GONE:
                    return "worker " + worker + " disconnected, removed from the queue";
                case INVALID_MESSAGE:
                    return "invalid message from worker " + worker + ": " + detail;
                case REQUEST_ROUTED:
                    return "request to worker " + worker + ": " + detail;
                default:
                    return "reply from worker " + worker + ": " + detail;
            }
        }
    }

    /**
     * What a Paranoid Pirate queue needs: where to bind (the guide: clients on tcp://*:5555,
     * workers on tcp://*:5556) and the heartbeat its workers use.
     */
    public static final class Settings {
        final String frontend;
        final String backend;
        final PirateHeartbeat heartbeat;
        final SocketOptions frontendOptions;
        final SocketOptions backendOptions;
        final Duration linger;

        final boolean traceMessages;

        private Settings(Builder b) {
            traceMessages = b.traceMessages;
            frontend = b.frontend;
            backend = b.backend;
            heartbeat = b.heartbeat;
            linger = b.linger;
            frontendOptions = b.frontendOptions.toBuilder().linger(b.linger).build();
            backendOptions = b.backendOptions.toBuilder().linger(b.linger).build();
        }

        public static Builder builder() {
            return new Builder();
        }

        public PirateHeartbeat heartbeat() {
            return heartbeat;
        }

        public static final class Builder {
            private String frontend = "tcp://*:5555";
            private String backend = "tcp://*:5556";
            private PirateHeartbeat heartbeat = PirateHeartbeat.DEFAULT;
            private SocketOptions frontendOptions = SocketOptions.builder().routerHandover(true).build();
            private SocketOptions backendOptions = SocketOptions.builder().routerHandover(true).build();
            private Duration linger = Duration.ofSeconds(1);

            private boolean traceMessages;

            private Builder() {
            }

            public Builder frontend(String endpoint) {
                this.frontend = Objects.requireNonNull(endpoint);
                return this;
            }

            public Builder backend(String endpoint) {
                this.backend = Objects.requireNonNull(endpoint);
                return this;
            }

            /** The heartbeat interval and liveness (the guide's: 1 s, 3). */
            public Builder heartbeat(PirateHeartbeat heartbeat) {
                this.heartbeat = Objects.requireNonNull(heartbeat);
                return this;
            }

            /**
             * Options of the frontend ROUTER. The default hands a client's identity over to its
             * newest connection: a Lazy Pirate client with a fixed identity reopens its socket on
             * every retry, and the new socket must be heard at once.
             */
            public Builder frontendOptions(SocketOptions options) {
                this.frontendOptions = Objects.requireNonNull(options);
                return this;
            }

            /**
             * Options of the backend ROUTER. The default hands a worker's identity over to its
             * newest connection (a restarted worker with a fixed identity is heard at once).
             */
            public Builder backendOptions(SocketOptions options) {
                this.backendOptions = Objects.requireNonNull(options);
                return this;
            }

            /** How long {@link ParanoidPirateQueue#close()} keeps flushing (1 s by default). */
            public Builder linger(Duration d) {
                if (d.isNegative()) {
                    throw new IllegalArgumentException("linger must not be negative");
                }
                this.linger = d;
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
                return new Settings(this);
            }
        }
    }
}
