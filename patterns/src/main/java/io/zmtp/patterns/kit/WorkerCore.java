package io.zmtp.patterns.kit;

import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * How every worker (and the Lazy Pirate server) handles a request, whatever its socket: one at a
 * time (others wait, up to {@link WorkerSettings#maxQueuedRequests()}), the guide's simulated
 * faults and work time as timers on the loop clock, the envelope kept while the body goes to the
 * {@link RequestHandler}, and the reply handed back to the loop, behind its envelope, to the
 * worker's {@link Outlet}. Used on the worker's loop only.
 */
public final class WorkerCore {

    /** Where the core hands what a request came to. */
    public interface Outlet {
        /** The reply (envelope and body; ownership passes) to a request that came on {@code connection}. */
        void reply(long request, int connection, ZmtpMessage reply);

        /** The handler failed or gave no reply: no reply (the client retries). */
        void failed(long request, int connection);

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
                public void failed(long request, int connection) {
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
    private final WorkerSettings settings;
    private final Outlet outlet;
    private final EventReporter<WorkerEvent> events;
    private final Supplier<String> identity;
    private final Random random;
    private final DelayedMessage delayed = new DelayedMessage();
    private final ArrayDeque<Pending> queued = new ArrayDeque<>();
    private long requests;
    private boolean busy;
    private boolean draining;
    private boolean closed;

    public WorkerCore(LoopClock clock, WorkerSettings settings, Outlet outlet, EventReporter<WorkerEvent> events,
            Supplier<String> identity) {
        this.clock = clock;
        this.settings = settings;
        this.outlet = outlet;
        this.events = events;
        this.identity = identity;
        this.random = settings.simulation.newRandom();
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
            if (queued.size() >= settings.maxQueuedRequests) {
                events.report(() -> new WorkerEvent.RequestDropped(identity.get(),
                        settings.maxQueuedRequests + " requests already wait"));
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

    /** Drops the requests waiting (their connection is gone). */
    public void dropQueued() {
        Pending p;
        while ((p = queued.poll()) != null) {
            p.msg.release();
        }
    }

    /** Stops: the request held by a timer and those waiting are released; a late reply is dropped. */
    public void close() {
        closed = true;
        delayed.cancel();
        dropQueued();
    }

    private void process(ZmtpMessage msg, int d, int connection) {
        long n = ++requests;
        FailureSimulation.Fault fault = settings.simulation.decide(n, random);
        if (fault == FailureSimulation.Fault.CRASH) {
            events.report(() -> new WorkerEvent.Crashing(identity.get(), n));
            msg.release();
            outlet.crash(n);
            return;
        }
        busy = true;
        // Events go out after the timers are set: whoever waits for one may move a manual clock.
        String detail = events.isActive() ? Envelope.describe(msg, d + 1) : null;
        if (fault == FailureSimulation.Fault.OVERLOAD) {
            Duration t = settings.simulation.overloadTime();
            outlet.overloadStarted();
            delayed.hold(clock, msg, t, m -> {
                outlet.overloadEnded();
                afterWork(n, m, d, connection);
            });
            events.report(() -> new WorkerEvent.Request(identity.get(), n, detail));
            events.report(() -> new WorkerEvent.Overloaded(identity.get(), n, t));
        } else {
            boolean later = !settings.workTime.isZero();
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
        if (settings.workTime.isZero()) {
            handle(n, msg, d, connection);
        } else {
            delayed.hold(clock, msg, settings.workTime, m -> handle(n, m, d, connection));
        }
    }

    private void handle(long n, ZmtpMessage msg, int d, int connection) {
        ZmtpMessage envelope = d >= 0 ? msg.takeFirst(d + 1) : null;
        CompletionStage<ZmtpMessage> stage;
        try {
            stage = settings.handler.handle(msg);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((reply, error) -> {
            if (clock.loop().inEventLoop()) {
                finished(n, connection, envelope, reply, error);
            } else {
                try {
                    clock.loop().execute(() -> finished(n, connection, envelope, reply, error));
                } catch (RejectedExecutionException e) {
                    release(envelope, reply); // the loop is gone: nobody will send the reply
                }
            }
        });
    }

    private void finished(long n, int connection, ZmtpMessage envelope, ZmtpMessage reply, Throwable error) {
        busy = false;
        if (closed) {
            release(envelope, reply);
            return;
        }
        if (error != null || reply == null) {
            release(envelope, null);
            events.report(() -> new WorkerEvent.HandlerFailed(identity.get(), n,
                    error == null ? "no reply" : error.toString()));
            outlet.failed(n, connection);
        } else {
            if (settings.traceMessages) {
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
