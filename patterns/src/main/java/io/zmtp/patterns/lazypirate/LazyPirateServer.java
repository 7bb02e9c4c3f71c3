package io.zmtp.patterns.lazypirate;

import io.zmtp.patterns.DelayedMessage;
import io.zmtp.patterns.EventReporter;

import io.zmtp.patterns.Envelope;
import io.zmtp.patterns.FailureSimulation;
import io.zmtp.patterns.Futures;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The guide's Lazy Pirate server: a plain REP echo server, answering one request at a time
 * with the request itself.
 *
 * <p>For demonstrations it can take its time ({@link Settings.Builder#workTime}) and simulate
 * the guide's faults ({@link Settings.Builder#simulation}, off by default): a crash closes the
 * socket at once, as a killed process would, and ends the server; an overload answers late.
 * Nothing blocks the event loop: delays are timers.
 */
public final class LazyPirateServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LazyPirateServer.class);

    private final Settings settings;
    private final EventReporter<Event> events;
    private final ZmtpSocket socket;
    private final Random random;
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    private volatile String endpoint;

    // On the event loop.
    private long requests;
    private final DelayedMessage delayed = new DelayedMessage();
    private boolean closing;

    public LazyPirateServer(ZmtpContext context, Settings settings, Consumer<Event> listener) {
        this.settings = Objects.requireNonNull(settings);
        this.events = new EventReporter<>(listener, log, "Lazy Pirate server");
        this.socket = context.socket(SocketType.REP, settings.socketOptions);
        this.random = settings.simulation.newRandom();
        socket.closeFuture().addListener(f -> terminated.complete(null));
    }

    /** Binds and starts answering; returns the endpoint bound (with the port chosen for port 0). */
    public String start() {
        socket.onMessage(this::onRequest);
        endpoint = Futures.await(Futures.of(socket.bind(settings.endpoint)), Duration.ofSeconds(30));
        String bound = endpoint;
        socket.inLoop(() -> emit(() -> new Event(Event.Type.LISTENING, 0, bound)));
        return endpoint;
    }

    /** The endpoint bound by {@link #start()}. */
    public String endpoint() {
        return endpoint;
    }

    /** Completes when the server has closed, or crashed on purpose. */
    public CompletableFuture<Void> terminated() {
        return terminated;
    }

    private void onRequest(ZmtpMessage request) {
        if (closing) {
            request.release();
            return;
        }
        long n = ++requests;
        FailureSimulation.Fault fault = settings.simulation.decide(n, random);
        if (fault == FailureSimulation.Fault.CRASH) {
            emit(() -> new Event(Event.Type.CRASHING, n, Envelope.describe(request)));
            request.release();
            close(Duration.ZERO);
            return;
        }
        Duration delay = settings.workTime;
        if (fault == FailureSimulation.Fault.OVERLOAD) {
            emit(() -> new Event(Event.Type.OVERLOADED, n, settings.simulation.overloadTime().toMillis() + " ms"));
            delay = delay.plus(settings.simulation.overloadTime());
        }
        emit(() -> new Event(Event.Type.REQUEST, n, Envelope.describe(request)));
        if (delay.isZero()) {
            answer(n, request);
        } else {
            delayed.hold(socket.eventLoop(), request, delay, r -> answer(n, r));
        }
    }

    private void answer(long n, ZmtpMessage request) {
        if (closing) {
            request.release();
            return;
        }
        socket.send(request); // the echo: the request is the reply
    }

    /** Closes with linger 0: unsent replies are dropped, as when a server process dies. */
    @Override
    public void close() {
        close(Duration.ZERO);
        if (!socket.eventLoop().inEventLoop()) {
            Futures.awaitQuietly(terminated, Duration.ofSeconds(10));
        }
    }

    /** Closes the socket, flushing replies for up to {@code linger}. */
    public CompletableFuture<Void> close(Duration linger) {
        socket.inLoop(() -> {
            if (closing) {
                return;
            }
            closing = true;
            delayed.cancel();
            socket.close(linger);
        });
        return terminated;
    }

    private void emit(java.util.function.Supplier<Event> event) {
        events.report(event);
    }

    /** Something the server did, for the listener (and the {@code lpserver} command's output). */
    public static final class Event {
        public enum Type {
            /** The server is bound; {@link #detail()} is the endpoint. */
            LISTENING,
            /** A request is being answered. */
            REQUEST,
            /** Simulated: this request finds the server overloaded; it will answer late. */
            OVERLOADED,
            /** Simulated: the server crashes on this request (its socket closes at once). */
            CRASHING
        }

        private final Type type;
        private final long request;
        private final String detail;

        Event(Type type, long request, String detail) {
            this.type = type;
            this.request = request;
            this.detail = detail;
        }

        public Type type() {
            return type;
        }

        /** The request's number, counted from 1 since the server started. */
        public long request() {
            return request;
        }

        public String detail() {
            return detail;
        }

        @Override
        public String toString() {
            switch (type) {
                case LISTENING:
                    return "listening on " + detail;
                case REQUEST:
                    return "normal request (" + request + "): " + detail;
                case OVERLOADED:
                    return "simulating CPU overload (" + request + "): answering " + detail + " late";
                default:
                    return "simulating a crash (" + request + ")";
            }
        }
    }

    /** What a Lazy Pirate server needs: where to bind (the guide: tcp://*:5555), how slow to be. */
    public static final class Settings {
        final String endpoint;
        final Duration workTime;
        final FailureSimulation simulation;
        final SocketOptions socketOptions;

        private Settings(Builder b) {
            endpoint = b.endpoint;
            workTime = b.workTime;
            simulation = b.simulation;
            socketOptions = b.socketOptions;
        }

        public static Builder builder() {
            return new Builder();
        }

        public static final class Builder {
            private String endpoint = "tcp://*:5555";
            private Duration workTime = Duration.ZERO;
            private FailureSimulation simulation = FailureSimulation.NONE;
            private SocketOptions socketOptions = SocketOptions.DEFAULTS;

            private Builder() {
            }

            public Builder endpoint(String endpoint) {
                this.endpoint = Objects.requireNonNull(endpoint);
                return this;
            }

            /** How long each request takes before its reply (the guide's server: 1 s; default 0). */
            public Builder workTime(Duration d) {
                if (d.isNegative()) {
                    throw new IllegalArgumentException("workTime must not be negative");
                }
                this.workTime = d;
                return this;
            }

            /** Simulated crashes and overloads ({@link FailureSimulation#NONE} by default). */
            public Builder simulation(FailureSimulation s) {
                this.simulation = Objects.requireNonNull(s);
                return this;
            }

            public Builder socketOptions(SocketOptions options) {
                this.socketOptions = Objects.requireNonNull(options);
                return this;
            }

            public Settings build() {
                return new Settings(this);
            }
        }
    }
}
