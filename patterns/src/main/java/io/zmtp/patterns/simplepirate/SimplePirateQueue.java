package io.zmtp.patterns.simplepirate;

import io.zmtp.patterns.EventReporter;

import io.netty.buffer.Unpooled;
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
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The guide's Simple Pirate queue: a least-recently-used queue between Lazy Pirate clients and
 * {@link SimplePirateWorker}s, with no reliability of its own (the clients retry).
 *
 * <p>Clients connect to the frontend ROUTER, workers to the backend ROUTER; both sockets run on
 * one event loop, so the worker list needs no lock. A worker announces itself with READY
 * ({@code 01}); each request goes to the worker that has been ready longest, behind the worker's
 * address and an empty delimiter; the worker's reply goes back to the client and makes the worker
 * ready again. While no worker is ready the queue stops reading requests (they wait in the
 * clients' connections, as the guide's queue does by not polling its frontend). A ready worker
 * whose connection is gone is dropped when its turn comes.
 */
public final class SimplePirateQueue implements AutoCloseable {
    /** The READY signal a worker sends first. */
    public static final byte READY = 0x01;

    private static final Logger log = LoggerFactory.getLogger(SimplePirateQueue.class);

    private final Settings settings;
    private final EventReporter<Event> events;
    private final EventLoop loop;
    private final RouterSocket frontend;
    private final RouterSocket backend;
    private volatile String frontendEndpoint;
    private volatile String backendEndpoint;
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();

    // On the event loop.
    private final LinkedHashSet<RoutingId> ready = new LinkedHashSet<>();
    private final ArrayDeque<ZmtpMessage> waiting = new ArrayDeque<>();
    private boolean reading = true;
    private boolean closing;

    public SimplePirateQueue(ZmtpContext context, Settings settings, Consumer<Event> listener) {
        this.settings = Objects.requireNonNull(settings);
        this.events = new EventReporter<>(listener, log, "Simple Pirate queue");
        this.loop = context.group().next();
        this.frontend = (RouterSocket) context.socket(SocketType.ROUTER, settings.frontendOptions, loop);
        this.backend = (RouterSocket) context.socket(SocketType.ROUTER, settings.backendOptions, loop);
    }

    /** Binds both sockets and starts routing. */
    public SimplePirateQueue start() {
        loop.execute(this::updateReading); // no worker yet: requests wait
        frontend.onMessage(this::onRequest);
        backend.onMessage(this::onWorkerMessage);
        frontendEndpoint = Futures.await(Futures.of(frontend.bind(settings.frontend)), Duration.ofSeconds(30));
        backendEndpoint = Futures.await(Futures.of(backend.bind(settings.backend)), Duration.ofSeconds(30));
        String listening = "clients on " + frontendEndpoint + ", workers on " + backendEndpoint;
        loop.execute(() -> emit(() -> new Event(Event.Type.LISTENING, null, listening)));
        return this;
    }

    /** The frontend endpoint bound (for clients), with the port chosen for port 0. */
    public String frontendEndpoint() {
        return frontendEndpoint;
    }

    /** The backend endpoint bound (for workers). */
    public String backendEndpoint() {
        return backendEndpoint;
    }

    /** The number of workers ready for a request (for tests and monitoring). */
    public CompletableFuture<Integer> readyWorkers() {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        loop.execute(() -> f.complete(ready.size()));
        return f;
    }

    private void onWorkerMessage(ZmtpMessage msg) {
        // From a REQ worker: [worker id, "", READY] or [worker id, "", client envelope..., "", reply...]
        if (closing) {
            msg.release();
            return;
        }
        RoutingId worker = RoutingId.of(msg.first());
        if (msg.size() < 3 || !msg.isFrameEmpty(1)) {
            emit(() -> new Event(Event.Type.INVALID_MESSAGE, worker, Envelope.describe(msg, 1)));
            msg.release();
            return;
        }
        if (Envelope.isSignal(msg, 2, READY)) {
            msg.release();
            if (ready.add(worker)) {
                emit(() -> new Event(Event.Type.WORKER_READY, worker, null));
            }
        } else {
            msg.dropFirst().dropFirst();
            if (settings.traceMessages) {
                emit(() -> new Event(Event.Type.REPLY_ROUTED, worker, Envelope.describe(msg)));
            }
            frontend.send(msg);
            ready.add(worker);
        }
        dispatchWaiting();
    }

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

    /** Sends the request to the least recently used worker; false (message kept) if none is ready. */
    private boolean dispatch(ZmtpMessage request) {
        Iterator<RoutingId> it = ready.iterator();
        while (it.hasNext()) {
            RoutingId worker = it.next();
            it.remove();
            if (!worker.connectedTo(backend)) {
                emit(() -> new Event(Event.Type.WORKER_GONE, worker, null));
                continue;
            }
            if (settings.traceMessages) {
                emit(() -> new Event(Event.Type.REQUEST_ROUTED, worker, Envelope.describe(request)));
            }
            request.addFirst(Unpooled.EMPTY_BUFFER).addFirst(worker.toFrame());
            backend.send(request);
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

    /** Closes both sockets; requests not yet routed are dropped (their clients retry). */
    public CompletableFuture<Void> close(Duration linger) {
        loop.execute(() -> {
            if (closing) {
                return;
            }
            closing = true;
            ZmtpMessage m;
            while ((m = waiting.poll()) != null) {
                m.release();
            }
            ready.clear();
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

    /** Something the queue did, for the listener (and the {@code spqueue} command's output). */
    public static final class Event {
        public enum Type {
            /** Both sockets are bound; {@link #detail()} names the endpoints. */
            LISTENING,
            /** A worker said READY and joined the queue. */
            WORKER_READY,
            /** A ready worker's connection was gone when its turn came: it left the queue. */
            WORKER_GONE,
            /** A worker sent something that is neither READY nor a reply; it was dropped. */
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

    /** Where a Simple Pirate queue binds (the guide: clients on tcp://*:5555, workers on tcp://*:5556). */
    public static final class Settings {
        final String frontend;
        final String backend;
        final SocketOptions frontendOptions;
        final SocketOptions backendOptions;
        final Duration linger;

        final boolean traceMessages;

        private Settings(Builder b) {
            traceMessages = b.traceMessages;
            frontend = b.frontend;
            backend = b.backend;
            linger = b.linger;
            frontendOptions = b.frontendOptions.toBuilder().linger(b.linger).build();
            backendOptions = b.backendOptions.toBuilder().linger(b.linger).build();
        }

        public static Builder builder() {
            return new Builder();
        }

        public static final class Builder {
            private String frontend = "tcp://*:5555";
            private String backend = "tcp://*:5556";
            private SocketOptions frontendOptions = SocketOptions.builder().routerHandover(true).build();
            private SocketOptions backendOptions = SocketOptions.builder().routerHandover(true).build();
            private Duration linger = Duration.ofSeconds(1);

            private boolean traceMessages;

            private Builder() {
            }

            /** Where clients connect. */
            public Builder frontend(String endpoint) {
                this.frontend = Objects.requireNonNull(endpoint);
                return this;
            }

            /** Where workers connect. */
            public Builder backend(String endpoint) {
                this.backend = Objects.requireNonNull(endpoint);
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

            /** How long {@link SimplePirateQueue#close()} keeps flushing (1 s by default). */
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
