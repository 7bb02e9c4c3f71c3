package io.zmtp.patterns.lazypirate;

import io.zmtp.patterns.EventReporter;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import io.zmtp.patterns.Envelope;
import io.zmtp.patterns.Futures;
import io.zmtp.socket.SocketClosedException;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The guide's Lazy Pirate client: reliable request-reply done by the client alone.
 *
 * <p>A request goes out on a REQ socket and a timer starts. If the reply comes in time, the
 * request is done. If not, the socket is closed at once (linger 0: whatever it still held is
 * dropped), a new one is opened and the request sent again; after the last try the request
 * fails with {@link NoReplyException}. The socket is kept between requests as long as replies
 * come.
 *
 * <p>Replies are matched to their request explicitly: only the socket of the current try may
 * answer it, so a late reply to an earlier try (which could only arrive on that try's closed
 * socket) is never taken for the reply to a later one. With {@link Settings.Builder#correlate
 * correlate} on, every request also carries a request id in its envelope (ZMQ_REQ_CORRELATE),
 * and a reply carrying another id is dropped: that also covers replies routed to a new socket
 * that reuses a fixed identity, and a reply duplicated by something in between.
 *
 * <p>It is a reactor: the socket, its handler and the timers run on one event loop.
 * {@link #requestAsync} queues a request and returns at once; requests are sent one at a time,
 * in order (a REQ socket alternates). {@link #request} is a blocking facade for a user thread.
 * What the client does is reported to the listener, on the event loop.
 */
public final class LazyPirateClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LazyPirateClient.class);

    private final ZmtpContext context;
    private final Settings settings;
    private final EventReporter<Event> events;
    private final EventLoop loop;
    private final SocketOptions socketOptions;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    // Everything below is touched on the event loop only.
    private ZmtpSocket socket;
    private final ArrayDeque<Call> waiting = new ArrayDeque<>();
    private Call current;
    private long sequence;
    private boolean started;
    private boolean closing;

    public LazyPirateClient(ZmtpContext context, Settings settings, Consumer<Event> listener) {
        this.context = Objects.requireNonNull(context);
        this.settings = Objects.requireNonNull(settings);
        this.events = new EventReporter<>(listener, log, "Lazy Pirate");
        this.loop = context.group().next();
        this.socketOptions = settings.socketOptions.toBuilder().linger(Duration.ZERO)
                .reqCorrelate(settings.correlate).build();
    }

    public LazyPirateClient(ZmtpContext context, Settings settings) {
        this(context, settings, null);
    }

    public Settings settings() {
        return settings;
    }

    /** The event loop that runs the client's socket, timers and listener. */
    public EventLoop eventLoop() {
        return loop;
    }

    /** Opens the first socket and starts connecting to the server (in the background). */
    public LazyPirateClient start() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        loop.execute(() -> {
            if (closing) {
                done.completeExceptionally(new SocketClosedException("client closed"));
                return;
            }
            started = true;
            openSocket().addListener(f -> {
                if (f.isSuccess()) {
                    done.complete(null);
                } else {
                    done.completeExceptionally(f.cause());
                }
            });
        });
        if (!loop.inEventLoop()) {
            Futures.await(done, Duration.ofSeconds(30));
        }
        return this;
    }

    // ------------------------------------------------------------------ requests

    /**
     * Queues a request (ownership passes to the client) and returns its reply's future. The
     * future completes with the reply, which the caller then owns and must release, or fails
     * with {@link NoReplyException} after the last try, or with {@link SocketClosedException}
     * if the client closes first. Cancelling the future abandons the request. Stages that depend
     * on the future run on the client's event loop unless added with an async method; they must
     * not block.
     */
    public CompletableFuture<ZmtpMessage> requestAsync(ZmtpMessage request) {
        Objects.requireNonNull(request);
        Call call = new Call(request);
        call.future.whenComplete((r, e) -> {
            if (call.future.isCancelled()) {
                loop.execute(() -> cancelled(call));
            }
        });
        if (loop.inEventLoop()) {
            enqueue(call);
        } else {
            loop.execute(() -> enqueue(call));
        }
        return call.future;
    }

    /**
     * Sends a request and waits for its reply (the caller owns it and must release it): at most
     * {@code timeout} per try, for {@code retries} tries, after the requests queued before it.
     *
     * @throws NoReplyException when the last try got no reply
     * @throws IllegalStateException when called on the client's event loop, which would deadlock
     */
    public ZmtpMessage request(ZmtpMessage request) {
        if (loop.inEventLoop()) {
            request.release();
            throw new IllegalStateException("a blocking request on the client's event loop would deadlock;"
                    + " use requestAsync");
        }
        CompletableFuture<ZmtpMessage> f = requestAsync(request);
        try {
            return f.get();
        } catch (InterruptedException e) {
            if (!f.cancel(false)) {
                ZmtpMessage late = f.getNow(null);
                if (late != null) {
                    late.release();
                }
            }
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a reply", e);
        } catch (ExecutionException e) {
            throw Futures.unchecked(e.getCause());
        }
    }

    /** Sends a request of UTF-8 frames and waits for the reply, as strings. */
    public List<String> request(String... frames) {
        ZmtpMessage reply = request(ZmtpMessage.ofStrings(frames));
        try {
            List<String> l = new ArrayList<>(reply.size());
            for (int i = 0; i < reply.size(); i++) {
                l.add(reply.frameString(i));
            }
            return l;
        } finally {
            reply.release();
        }
    }

    private void enqueue(Call call) {
        if (closing || !started) {
            call.request.release();
            call.future.completeExceptionally(new SocketClosedException(closing ? "client closed"
                    : "client not started"));
            return;
        }
        if (waiting.size() >= settings.maxWaitingRequests) {
            call.request.release();
            call.future.completeExceptionally(new RejectedExecutionException(
                    "too many requests waiting (" + settings.maxWaitingRequests + ")"));
            return;
        }
        call.sequence = ++sequence;
        waiting.add(call);
        next();
    }

    /** Starts the next waiting request if none is in flight. */
    private void next() {
        while (current == null && !closing) {
            Call c = waiting.poll();
            if (c == null) {
                return;
            }
            if (c.future.isDone()) {
                c.request.release();
                continue;
            }
            current = c;
            send(c);
        }
    }

    private void send(Call c) {
        if (socket == null) {
            openSocket();
        }
        c.attempt++;
        int attempt = c.attempt;
        ZmtpSocket s = socket;
        emit(() -> new Event(Event.Type.SENT, c.sequence, attempt, settings.retries, Envelope.describe(c.request)));
        c.timer = loop.schedule(() -> timedOut(c, attempt), settings.timeout.toNanos(), TimeUnit.NANOSECONDS);
        s.send(c.request.retainedCopy()).addListener(f -> { // may fail at once, on this loop
            if (!f.isSuccess() && current == c && c.attempt == attempt && socket == s
                    && !(f.cause() instanceof SocketClosedException)) {
                fail(c, f.cause());
            }
        });
    }

    private void onReply(ZmtpSocket from, ZmtpMessage reply) {
        Call c = current;
        if (from != socket || c == null) {
            emit(() -> new Event(Event.Type.DISCARDED, c == null ? 0 : c.sequence, c == null ? 0 : c.attempt,
                    settings.retries, Envelope.describe(reply)));
            reply.release();
            return;
        }
        c.timer.cancel(false);
        current = null;
        emit(() -> new Event(Event.Type.REPLY, c.sequence, c.attempt, settings.retries, Envelope.describe(reply)));
        c.request.release();
        if (!c.future.complete(reply)) {
            reply.release();
        }
        next();
    }

    private void timedOut(Call c, int attempt) {
        if (current != c || c.attempt != attempt) {
            return;
        }
        closeSocket();
        if (attempt >= settings.retries) {
            current = null;
            emit(() -> new Event(Event.Type.FAILED, c.sequence, attempt, settings.retries,
                    "no reply within " + settings.timeout.toMillis() + " ms"));
            c.request.release();
            c.future.completeExceptionally(new NoReplyException(settings.endpoint, attempt, settings.timeout));
            next();
            return;
        }
        emit(() -> new Event(Event.Type.RETRYING, c.sequence, attempt, settings.retries,
                "no reply within " + settings.timeout.toMillis() + " ms"));
        send(c);
    }

    private void fail(Call c, Throwable cause) {
        c.timer.cancel(false);
        closeSocket();
        current = null;
        emit(() -> new Event(Event.Type.FAILED, c.sequence, c.attempt, settings.retries, String.valueOf(cause)));
        c.request.release();
        c.future.completeExceptionally(cause);
        next();
    }

    private void cancelled(Call c) {
        if (c == current) {
            c.timer.cancel(false);
            closeSocket(); // the REQ would wait for a reply nobody wants
            current = null;
            c.request.release();
            next();
        } else if (waiting.remove(c)) {
            c.request.release();
        }
    }

    // ------------------------------------------------------------------ the socket

    private io.netty.util.concurrent.Future<Void> openSocket() {
        ZmtpSocket s = context.socket(SocketType.REQ, socketOptions, loop);
        socket = s;
        s.onMessage(m -> onReply(s, m));
        io.netty.util.concurrent.Future<Void> f = s.connect(settings.endpoint);
        f.addListener(r -> {
            if (!r.isSuccess()) {
                log.warn("cannot connect to {}: {}", settings.endpoint, r.cause().toString());
            }
        });
        return f;
    }

    private void closeSocket() {
        if (socket != null) {
            socket.close(Duration.ZERO);
            socket = null;
        }
    }

    // ------------------------------------------------------------------ closing

    /** Closes the socket; the request in flight and those waiting fail. */
    public CompletableFuture<Void> closeAsync() {
        loop.execute(() -> {
            if (closing) {
                return;
            }
            closing = true;
            List<Call> dropped = new ArrayList<>();
            if (current != null) {
                current.timer.cancel(false);
                dropped.add(current);
                current = null;
            }
            dropped.addAll(waiting);
            waiting.clear();
            for (Call c : dropped) {
                c.request.release();
                c.future.completeExceptionally(new SocketClosedException("client closed"));
            }
            ZmtpSocket s = socket;
            socket = null;
            if (s == null) {
                closed.complete(null);
            } else {
                s.close(Duration.ZERO).addListener(f -> closed.complete(null));
            }
        });
        return closed;
    }

    @Override
    public void close() {
        CompletableFuture<Void> f = closeAsync();
        if (!loop.inEventLoop()) {
            Futures.awaitQuietly(f, Duration.ofSeconds(10));
        }
    }

    private void emit(java.util.function.Supplier<Event> event) {
        events.report(event);
    }

    private static final class Call {
        final ZmtpMessage request;
        final CompletableFuture<ZmtpMessage> future = new CompletableFuture<>();
        long sequence;
        int attempt;
        ScheduledFuture<?> timer;

        Call(ZmtpMessage request) {
            this.request = request;
        }
    }

    // ------------------------------------------------------------------ events

    /** Something the client did, for the listener (and the {@code lpclient} command's output). */
    public static final class Event {
        public enum Type {
            /** A request was sent; {@link #attempt()} is 1 for the first try. */
            SENT,
            /** A try timed out; the socket was closed and the request is about to be resent. */
            RETRYING,
            /** The reply to the request arrived. */
            REPLY,
            /** The last try timed out (or the send failed): the request failed. */
            FAILED,
            /** A message that is not the reply to the current try was dropped. */
            DISCARDED
        }

        private final Type type;
        private final long request;
        private final int attempt;
        private final int tries;
        private final String detail;

        Event(Type type, long request, int attempt, int tries, String detail) {
            this.type = type;
            this.request = request;
            this.attempt = attempt;
            this.tries = tries;
            this.detail = detail;
        }

        public Type type() {
            return type;
        }

        /** The request's sequence number (1 for the client's first request). */
        public long request() {
            return request;
        }

        /** Which try of the request (1-based). */
        public int attempt() {
            return attempt;
        }

        /** The message (as text or hex) or reason the event concerns. */
        public String detail() {
            return detail;
        }

        @Override
        public String toString() {
            switch (type) {
                case SENT:
                    return attempt == 1 ? "sending request " + request + ": " + detail
                            : "resending request " + request + " (try " + attempt + " of " + tries + "): " + detail;
                case RETRYING:
                    return "no response to request " + request + " (" + detail + "), reconnecting and retrying";
                case REPLY:
                    return "server replied OK to request " + request + ": " + detail;
                case FAILED:
                    return "request " + request + " failed after " + attempt + (attempt == 1 ? " try" : " tries")
                            + " (" + detail + "): server seems to be offline, abandoning";
                default:
                    return "discarded a message that is not the reply to the current try: " + detail;
            }
        }
    }

    // ------------------------------------------------------------------ settings

    /**
     * What a Lazy Pirate client needs to know. Defaults follow the guide: the server at
     * tcp://localhost:5555, 2500 ms per try, 3 tries.
     */
    public static final class Settings {
        public static final Settings DEFAULTS = builder().build();

        final String endpoint;
        final Duration timeout;
        final int retries;
        final boolean correlate;
        final SocketOptions socketOptions;
        final int maxWaitingRequests;

        private Settings(Builder b) {
            endpoint = b.endpoint;
            timeout = b.timeout;
            retries = b.retries;
            correlate = b.correlate;
            socketOptions = b.socketOptions;
            maxWaitingRequests = b.maxWaitingRequests;
        }

        public static Builder builder() {
            return new Builder();
        }

        public String endpoint() {
            return endpoint;
        }

        public Duration timeout() {
            return timeout;
        }

        public int retries() {
            return retries;
        }

        public boolean correlate() {
            return correlate;
        }

        public static final class Builder {
            private String endpoint = "tcp://localhost:5555";
            private Duration timeout = Duration.ofMillis(2500);
            private int retries = 3;
            private boolean correlate;
            private SocketOptions socketOptions = SocketOptions.DEFAULTS;
            private int maxWaitingRequests = 1000;

            private Builder() {
            }

            /** The server (or queue) to connect to. */
            public Builder endpoint(String endpoint) {
                this.endpoint = Objects.requireNonNull(endpoint);
                return this;
            }

            /** How long one try waits for the reply (the guide's REQUEST_TIMEOUT, 2500 ms). */
            public Builder timeout(Duration timeout) {
                if (timeout.isNegative() || timeout.isZero()) {
                    throw new IllegalArgumentException("timeout must be positive");
                }
                this.timeout = timeout;
                return this;
            }

            /**
             * How many times a request is sent before it fails (the guide's REQUEST_RETRIES, 3:
             * the first try and two more).
             */
            public Builder retries(int tries) {
                if (tries < 1) {
                    throw new IllegalArgumentException("retries must be at least 1");
                }
                this.retries = tries;
                return this;
            }

            /**
             * Whether each request carries a request id before its delimiter, and a reply with
             * another id is dropped (ZMQ_REQ_CORRELATE). Off by default: REP servers, libzmq's
             * and ours, and our queues pass it back, but the guide's Paranoid Pirate workers
             * expect exactly three frames and reject such requests.
             */
            public Builder correlate(boolean on) {
                this.correlate = on;
                return this;
            }

            /**
             * Options of the REQ sockets (security, reconnect interval, limits). Linger is always
             * 0. A fixed identity is only allowed with {@link #correlate}: a new socket with the
             * old identity could otherwise be handed the late reply to an earlier try by a queue.
             */
            public Builder socketOptions(SocketOptions options) {
                this.socketOptions = Objects.requireNonNull(options);
                return this;
            }

            /** Requests that may wait behind the one in flight before new ones are refused. */
            public Builder maxWaitingRequests(int n) {
                if (n < 1) {
                    throw new IllegalArgumentException("maxWaitingRequests must be at least 1");
                }
                this.maxWaitingRequests = n;
                return this;
            }

            public Settings build() {
                if (socketOptions.identity().length > 0 && !correlate) {
                    throw new IllegalArgumentException("a fixed identity needs correlate(true): a queue would route"
                            + " the late reply to an earlier try to the new socket that reuses the identity");
                }
                return new Settings(this);
            }
        }
    }
}
