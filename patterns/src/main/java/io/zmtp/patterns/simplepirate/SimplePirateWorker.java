package io.zmtp.patterns.simplepirate;

import io.zmtp.patterns.DelayedMessage;
import io.zmtp.patterns.EventReporter;

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
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * The guide's Simple Pirate worker: a REQ socket connected to a {@link SimplePirateQueue}'s
 * backend. It sends READY ({@code 01}) once, then answers each request it is given: the
 * envelope (up to the empty delimiter) is kept, the body goes to the {@link RequestHandler}, and
 * the reply goes back behind the envelope. A request it cannot answer (no envelope, or the
 * handler failed) is answered with READY again, which tells the queue it is free; the client
 * retries.
 *
 * <p>As in the guide, a Simple Pirate worker does not notice that its queue restarted (the new
 * queue never heard its READY); that is what the Paranoid Pirate's heartbeats are for.
 */
public final class SimplePirateWorker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SimplePirateWorker.class);

    private final Settings settings;
    private final EventReporter<Event> events;
    private final ZmtpSocket socket;
    private final String identity;
    private final Random random;
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();

    // On the event loop.
    private long requests;
    private boolean closing;
    private final DelayedMessage delayed = new DelayedMessage();

    public SimplePirateWorker(ZmtpContext context, Settings settings, Consumer<Event> listener) {
        this.settings = Objects.requireNonNull(settings);
        this.events = new EventReporter<>(listener, log, "Simple Pirate worker");
        this.identity = settings.identity != null ? settings.identity : randomIdentity();
        this.socket = context.socket(SocketType.REQ, settings.socketOptions.toBuilder().identity(identity).build());
        this.random = settings.simulation.newRandom();
        socket.closeFuture().addListener(f -> terminated.complete(null));
    }

    /** The guide's worker identity: two random 16-bit numbers in hex, "1A2B-3C4D". */
    public static String randomIdentity() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return String.format("%04X-%04X", r.nextInt(0x10000), r.nextInt(0x10000));
    }

    /** This worker's identity, as the queue knows it. */
    public String identity() {
        return identity;
    }

    /** Connects to the queue and says READY. */
    public SimplePirateWorker start() {
        socket.onMessage(this::onRequest);
        Futures.await(Futures.of(socket.connect(settings.backend)), Duration.ofSeconds(30));
        socket.inLoop(() -> {
            socket.send(ready());
            emit(() -> new Event(Event.Type.READY, 0, settings.backend));
        });
        return this;
    }

    /** Completes when the worker has closed, or crashed on purpose. */
    public CompletableFuture<Void> terminated() {
        return terminated;
    }

    private static ZmtpMessage ready() {
        return ZmtpMessage.of(new byte[] {SimplePirateQueue.READY});
    }

    private void onRequest(ZmtpMessage msg) {
        // The REQ socket removed the queue's delimiter: [client envelope..., "", body...]
        if (closing) {
            msg.release();
            return;
        }
        int d = Envelope.delimiter(msg);
        if (d < 0 || d == msg.size() - 1) {
            emit(() -> new Event(Event.Type.INVALID_MESSAGE, 0, Envelope.describe(msg)));
            msg.release();
            socket.send(ready());
            return;
        }
        long n = ++requests;
        FailureSimulation.Fault fault = settings.simulation.decide(n, random);
        if (fault == FailureSimulation.Fault.CRASH) {
            emit(() -> new Event(Event.Type.CRASHING, n, null));
            msg.release();
            close(Duration.ZERO);
            return;
        }
        Duration delay = settings.workTime;
        if (fault == FailureSimulation.Fault.OVERLOAD) {
            emit(() -> new Event(Event.Type.OVERLOADED, n, settings.simulation.overloadTime().toMillis() + " ms"));
            delay = delay.plus(settings.simulation.overloadTime());
        }
        emit(() -> new Event(Event.Type.REQUEST, n, Envelope.describe(msg, d + 1)));
        if (delay.isZero()) {
            handle(n, msg, d);
        } else {
            delayed.hold(socket.eventLoop(), msg, delay, m -> handle(n, m, d));
        }
    }

    private void handle(long n, ZmtpMessage msg, int delimiter) {
        ZmtpMessage envelope = msg.takeFirst(delimiter + 1);
        CompletionStage<ZmtpMessage> stage;
        try {
            stage = settings.handler.handle(msg);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((reply, error) -> onLoop(() -> finished(n, envelope, reply, error), () -> {
            envelope.release();
            if (reply != null) {
                reply.release();
            }
        }));
    }

    private void finished(long n, ZmtpMessage envelope, ZmtpMessage reply, Throwable error) {
        if (closing) {
            envelope.release();
            if (reply != null) {
                reply.release();
            }
            return;
        }
        if (error != null || reply == null) {
            envelope.release();
            emit(() -> new Event(Event.Type.HANDLER_FAILED, n, error == null ? "no reply" : error.toString()));
            socket.send(ready());
            return;
        }
        socket.send(reply.prepend(envelope));
    }

    /** Runs {@code task} on the loop; if the loop is gone (shut down), runs {@code orElse} here. */
    private void onLoop(Runnable task, Runnable orElse) {
        if (socket.eventLoop().inEventLoop()) {
            task.run();
            return;
        }
        try {
            socket.eventLoop().execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            orElse.run();
        }
    }

    /** Closes the socket with linger 0, as a crash would: a request being handled is lost. */
    @Override
    public void close() {
        close(Duration.ZERO);
        if (!socket.eventLoop().inEventLoop()) {
            Futures.awaitQuietly(terminated, Duration.ofSeconds(10));
        }
    }

    /** Closes the socket, flushing a reply for up to {@code linger}. */
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

    /** Something the worker did, for the listener (and the {@code spworker} command's output). */
    public static final class Event {
        public enum Type {
            /** Connected (in the background) and READY sent; {@link #detail()} is the endpoint. */
            READY,
            /** A request is being handled. */
            REQUEST,
            /** Simulated: this request finds the worker overloaded; it will answer late. */
            OVERLOADED,
            /** Simulated: the worker crashes on this request. */
            CRASHING,
            /** The handler failed: no reply, the worker said READY again. */
            HANDLER_FAILED,
            /** A request without an envelope was dropped; the worker said READY again. */
            INVALID_MESSAGE
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

        /** The request's number, counted from 1 since the worker started (0 when none). */
        public long request() {
            return request;
        }

        public String detail() {
            return detail;
        }

        @Override
        public String toString() {
            switch (type) {
                case READY:
                    return "worker ready, connected to " + detail;
                case REQUEST:
                    return "normal reply (" + request + "): " + detail;
                case OVERLOADED:
                    return "simulating CPU overload (" + request + "): answering " + detail + " late";
                case CRASHING:
                    return "simulating a crash (" + request + ")";
                case HANDLER_FAILED:
                    return "request " + request + " failed (" + detail + "), ready again";
                default:
                    return "invalid request dropped: " + detail;
            }
        }
    }

    /** What a Simple Pirate worker needs (the guide: the queue at tcp://localhost:5556, echo). */
    public static final class Settings {
        final String backend;
        final RequestHandler handler;
        final String identity;
        final Duration workTime;
        final FailureSimulation simulation;
        final SocketOptions socketOptions;

        private Settings(Builder b) {
            backend = b.backend;
            handler = b.handler;
            identity = b.identity;
            workTime = b.workTime;
            simulation = b.simulation;
            socketOptions = b.socketOptions;
        }

        public static Builder builder() {
            return new Builder();
        }

        public static final class Builder {
            private String backend = "tcp://localhost:5556";
            private RequestHandler handler = RequestHandler.echo();
            private String identity;
            private Duration workTime = Duration.ZERO;
            private FailureSimulation simulation = FailureSimulation.NONE;
            private SocketOptions socketOptions = SocketOptions.DEFAULTS;

            private Builder() {
            }

            /** The queue's backend. */
            public Builder backend(String endpoint) {
                this.backend = Objects.requireNonNull(endpoint);
                return this;
            }

            /** The user code (echo by default). */
            public Builder handler(RequestHandler handler) {
                this.handler = Objects.requireNonNull(handler);
                return this;
            }

            /** The identity (null, the default: a random "1A2B-3C4D" as the guide's). */
            public Builder identity(String identity) {
                this.identity = identity;
                return this;
            }

            /** A delay before each request is handled (the guide's worker: 1 s; default 0). */
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
