package io.zmtp.patterns.kit;

import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * How every worker (the pirates', the Lazy Pirate server, the Majordomo worker) handles a request,
 * whatever its socket and protocol: one at a time (others wait in its queue, up to
 * {@link Handling#maxQueuedRequests()}), the guide's simulated faults and work time as timers on
 * the loop clock, the envelope kept while the body goes to the {@link RequestHandler}, and the
 * reply (and, where the worker's protocol has them, partial replies) handed back to the loop,
 * behind its envelope, to the worker's {@link Outlet}. Used on the worker's loop only.
 */
public final class WorkerCore {

    /**
     * How a worker handles its requests.
     *
     * @param handler the user code
     * @param workTime the guide's "heavy work": each request waits this long before it goes to the
     *        handler (zero: none)
     * @param simulation the guide's simulated crashes and overloads
     * @param maxQueuedRequests requests that may wait while one is handled; more are dropped
     * @param traceMessages whether a {@link WorkerEvent.Replied} is reported per reply
     */
    public record Handling(RequestHandler handler, Duration workTime, FailureSimulation simulation,
            int maxQueuedRequests, boolean traceMessages) {
        public Handling {
            Objects.requireNonNull(handler);
            Objects.requireNonNull(workTime);
            Objects.requireNonNull(simulation);
        }

        /** Requests handled as {@code handler} does, at once, without simulated faults, the queue unbounded. */
        public static Handling of(RequestHandler handler) {
            return new Handling(handler, Duration.ZERO, FailureSimulation.NONE, Integer.MAX_VALUE, false);
        }

        /** How a worker built from {@code settings} handles its requests. */
        public static Handling of(WorkerSettings settings) {
            return new Handling(settings.handler(), settings.workTime(), settings.simulation(),
                    settings.maxQueuedRequests(), settings.traceMessages());
        }
    }

    /** Where the core hands what a request came to. */
    public interface Outlet {
        /** The reply (envelope and body; ownership passes) to a request that came on {@code connection}. */
        void reply(long request, int connection, ZmtpMessage reply);

        /**
         * The handler failed ({@code cause}) or gave no reply ({@code cause} null): no reply (the
         * client retries).
         */
        void failed(long request, int connection, Throwable cause);

        /**
         * Whether the worker's protocol carries partial replies: then the handler is called with
         * {@link RequestHandler#handle(ZmtpMessage, RequestHandler.PartialReplies)} and its partial
         * replies go to {@link #partial}. False by default: the handler is called with
         * {@link RequestHandler#handle(ZmtpMessage)}.
         */
        default boolean carriesPartials() {
            return false;
        }

        /** A partial reply (envelope and body; ownership passes) to a request that came on {@code connection}. */
        default void partial(long request, int connection, ZmtpMessage partial) {
            partial.release();
        }

        /** Simulated: the worker crashes on this request; it must close at once. */
        void crash(long request);

        /** Simulated: an overload begins (it ends before the request goes on). */
        default void overloadStarted() {
        }

        /** Simulated: the overload is over. */
        default void overloadEnded() {
        }

        /**
         * The outlet of a worker with one socket for its life (REP, REQ): a reply goes out on
         * {@code socket}; after a failure, {@code afterFailure} (if any) goes out instead; a
         * crash runs {@code crash}.
         */
        static Outlet on(io.zmtp.socket.ZmtpSocket socket, Supplier<ZmtpMessage> afterFailure, Runnable crash) {
            return new Outlet() {
                @Override
                public void reply(long request, int connection, ZmtpMessage reply) {
                    socket.send(reply);
                }

                @Override
                public void failed(long request, int connection, Throwable cause) {
                    socket.send(afterFailure.get());
                }

                @Override
                public void crash(long request) {
                    crash.run();
                }
            };
        }
    }

    private final LoopClock clock;
    private final Handling handling;
    private final Outlet outlet;
    private final EventReporter<WorkerEvent> events;
    private final Supplier<String> identity;
    private final Random random;
    private final DelayedMessage delayed = new DelayedMessage();
    private final ArrayDeque<Pending> queued = new ArrayDeque<>();
    private long requests;
    /** The request being handled (its number), or 0. */
    private long current;
    /**
     * The envelope of the request being handled, released once: by the reply that takes it, or
     * when the request is abandoned or the worker closes (a handler that never answers must not
     * hold a read buffer for ever).
     */
    private AtomicReference<ZmtpMessage> currentEnvelope;
    private boolean busy;
    private boolean draining;
    private boolean closed;

    /** The core of a worker built from {@code settings}. */
    public WorkerCore(LoopClock clock, WorkerSettings settings, Outlet outlet, EventReporter<WorkerEvent> events,
            Supplier<String> identity) {
        this(clock, Handling.of(settings), outlet, events, identity);
    }

    /**
     * @param identity the worker's current identity, for events (may give null)
     */
    public WorkerCore(LoopClock clock, Handling handling, Outlet outlet, EventReporter<WorkerEvent> events,
            Supplier<String> identity) {
        this.clock = clock;
        this.handling = handling;
        this.outlet = outlet;
        this.events = events;
        this.identity = identity;
        this.random = handling.simulation().newRandom();
    }

    /**
     * A request (ownership passes): {@code delimiter} is the index of the empty frame that ends its
     * envelope, -1 when it has none (a REP socket keeps the envelope itself); {@code connection}
     * names the connection it came on, handed back with the reply.
     */
    public void offer(ZmtpMessage msg, int delimiter, int connection) {
        if (closed) {
            msg.release();
            return;
        }
        if (busy || !queued.isEmpty()) {
            if (queued.size() >= handling.maxQueuedRequests()) {
                events.report(() -> new WorkerEvent.RequestDropped(identity.get(),
                        handling.maxQueuedRequests() + " requests already wait"));
                msg.release();
                return;
            }
            queued.add(new Pending(msg, delimiter, connection));
            return;
        }
        process(msg, delimiter, connection);
    }

    /** Whether a request is being handled. */
    public boolean isBusy() {
        return busy;
    }

    /** Drops the requests waiting (their connection is gone); returns how many. */
    public int dropQueued() {
        int n = 0;
        Pending p;
        while ((p = queued.poll()) != null) {
            p.msg.release();
            n++;
        }
        return n;
    }

    /**
     * The connection every request came on is gone, and with it whoever waits for their replies:
     * the requests waiting are dropped, and the one being handled no longer holds up the next
     * request (its reply, when the handler gives it, is released).
     */
    public void abandon() {
        dropQueued();
        releaseCurrentEnvelope();
        current = 0;
        busy = false;
    }

    /**
     * Stops: the request held by a timer, those waiting and the envelope of the one being handled
     * are released; its reply, when the handler gives it, is dropped.
     */
    public void close() {
        closed = true;
        delayed.cancel();
        dropQueued();
        releaseCurrentEnvelope();
    }

    private void process(ZmtpMessage msg, int d, int connection) {
        long n = ++requests;
        FailureSimulation.Fault fault = handling.simulation().decide(n, random);
        if (fault == FailureSimulation.Fault.CRASH) {
            events.report(() -> new WorkerEvent.Crashing(identity.get(), n));
            msg.release();
            outlet.crash(n);
            return;
        }
        busy = true;
        current = n;
        // Events go out after the timers are set: whoever waits for one may move a manual clock.
        String detail = events.isActive() ? Envelope.describe(msg, d + 1) : null;
        if (fault == FailureSimulation.Fault.OVERLOAD) {
            Duration t = handling.simulation().overloadTime();
            outlet.overloadStarted();
            delayed.hold(clock, msg, t, m -> {
                outlet.overloadEnded();
                afterWork(n, m, d, connection);
            });
            events.report(() -> new WorkerEvent.Request(identity.get(), n, detail));
            events.report(() -> new WorkerEvent.Overloaded(identity.get(), n, t));
        } else {
            boolean later = !handling.workTime().isZero();
            if (later) {
                afterWork(n, msg, d, connection);
            }
            events.report(() -> new WorkerEvent.Request(identity.get(), n, detail));
            if (!later) {
                handle(n, msg, d, connection);
            }
        }
    }

    /** The guide's "heavy work": the request waits the work time (a timer), then goes to the handler. */
    private void afterWork(long n, ZmtpMessage msg, int d, int connection) {
        if (handling.workTime().isZero()) {
            handle(n, msg, d, connection);
        } else {
            delayed.hold(clock, msg, handling.workTime(), m -> handle(n, m, d, connection));
        }
    }

    private void handle(long n, ZmtpMessage msg, int d, int connection) {
        AtomicReference<ZmtpMessage> envelope = new AtomicReference<>(d >= 0 ? msg.takeFirst(d + 1) : null);
        currentEnvelope = envelope;
        Partials partials = outlet.carriesPartials() ? new Partials(n, connection, envelope) : null;
        CompletionStage<ZmtpMessage> stage;
        try {
            stage = partials != null ? handling.handler().handle(msg, partials) : handling.handler().handle(msg);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((reply, error) -> {
            Runnable finish = () -> finished(n, connection, envelope.getAndSet(null), reply, error);
            Runnable gone = () -> release(envelope.getAndSet(null), reply); // the loop is gone: nobody will send it
            if (partials != null && partials.queued.get() > 0) {
                // Partial replies handed to the loop from another thread still wait there: the reply goes after them.
                execute(finish, gone);
            } else {
                onLoop(finish, gone);
            }
        });
    }

    /**
     * Where the handler of request {@code n} sends its partial replies, from any thread: each goes
     * to the loop, in the order sent, and out behind a copy of the request's envelope, while the
     * request is still the one being handled; the reply follows the last of them.
     */
    private final class Partials implements RequestHandler.PartialReplies {
        private final long n;
        private final int connection;
        private final AtomicReference<ZmtpMessage> envelope;
        /** Partial replies handed to the loop and not yet out. */
        final AtomicInteger queued = new AtomicInteger();

        Partials(long n, int connection, AtomicReference<ZmtpMessage> envelope) {
            this.n = n;
            this.connection = connection;
            this.envelope = envelope;
        }

        @Override
        public boolean supported() {
            return true;
        }

        @Override
        public void send(ZmtpMessage partial) {
            if (clock.loop().inEventLoop()) {
                deliver(partial);
                return;
            }
            queued.incrementAndGet();
            execute(() -> {
                queued.decrementAndGet();
                deliver(partial);
            }, partial::release);
        }

        private void deliver(ZmtpMessage partial) {
            ZmtpMessage e = envelope.get();
            if (closed || current != n) {
                partial.release();
            } else {
                outlet.partial(n, connection, e == null ? partial : partial.prepend(e.retainedDuplicate()));
            }
        }
    }

    /** Runs {@code task} on the loop (now if called there), or {@code gone} if the loop no longer takes tasks. */
    private void onLoop(Runnable task, Runnable gone) {
        if (clock.loop().inEventLoop()) {
            task.run();
        } else {
            execute(task, gone);
        }
    }

    /** Hands {@code task} to the loop's task queue, or runs {@code gone} if the loop no longer takes tasks. */
    private void execute(Runnable task, Runnable gone) {
        try {
            clock.loop().execute(task);
        } catch (RejectedExecutionException e) {
            gone.run();
        }
    }

    private void finished(long n, int connection, ZmtpMessage envelope, ZmtpMessage reply, Throwable error) {
        if (closed || current != n) {
            release(envelope, reply); // closed, or abandoned: nobody waits for it
            return;
        }
        busy = false;
        current = 0;
        currentEnvelope = null;
        if (error != null || reply == null) {
            release(envelope, null);
            events.report(() -> new WorkerEvent.HandlerFailed(identity.get(), n,
                    error == null ? "no reply" : error.toString()));
            outlet.failed(n, connection, error);
        } else {
            if (handling.traceMessages()) {
                events.report(() -> new WorkerEvent.Replied(identity.get(), n, Envelope.describe(reply)));
            }
            outlet.reply(n, connection, envelope == null ? reply : reply.prepend(envelope));
        }
        processQueued();
    }

    private void processQueued() {
        if (draining) {
            return;
        }
        draining = true;
        try {
            Pending p;
            while (!busy && !closed && (p = queued.poll()) != null) {
                process(p.msg, p.delimiter, p.connection);
            }
        } finally {
            draining = false;
        }
    }

    private void releaseCurrentEnvelope() {
        if (currentEnvelope != null) {
            release(currentEnvelope.getAndSet(null), null);
            currentEnvelope = null;
        }
    }

    private static void release(ZmtpMessage envelope, ZmtpMessage reply) {
        if (envelope != null) {
            envelope.release();
        }
        if (reply != null) {
            reply.release();
        }
    }

    private record Pending(ZmtpMessage msg, int delimiter, int connection) {
    }
}
