package io.zmtp.patterns.reliability;

import io.netty.util.ReferenceCountUtil;
import io.zmtp.patterns.Envelope;
import io.zmtp.patterns.EventReporter;
import io.zmtp.patterns.time.LoopClock;
import io.zmtp.socket.SocketClosedException;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * Reliable request-reply done by the client alone (the core of the guide's Lazy Pirate client,
 * and of the Majordomo clients): a request goes out on a socket and a timer starts; if the reply
 * comes in time the request is done; if not, the socket is closed at once (linger 0: whatever it
 * still held is dropped), a new one is opened and the request sent again; after the last try the
 * request fails with {@link NoReplyException}. The socket is kept between requests as long as
 * replies come. Requests go one at a time, in order; others wait (up to a bound).
 *
 * <p>Only the socket of the current try may answer it: a late reply to an earlier try could only
 * arrive on that try's closed socket. What a message on the current socket means is the owner's
 * {@link Replies} (the reply, a partial reply that restarts the timeout, or something to drop).
 *
 * <p>Tries are counted by timeouts only: a request fails after {@code tries} timeouts, never
 * sooner. With {@link RetryPolicy#resendOnDisconnect()} a connection lost during a try replaces
 * the socket and resends within the same try, so a server that goes down (or flaps) cannot use
 * the budget up faster than the settings say.
 *
 * <p>Runs on one loop: the clock's. {@link #submit} may be called from any thread; everything
 * else on the loop.
 *
 * @param <T> the reply as the owner's {@link Replies} gives it (the message itself, say)
 */
public final class RetryingRequester<T> {
    private static final Logger log = LoggerFactory.getLogger(RetryingRequester.class);

    /** Makes the socket of a try. */
    @FunctionalInterface
    public interface Sockets {
        /** A new socket on the requester's loop, not yet connected, with linger 0. */
        ZmtpSocket newSocket();
    }

    /** What a message on the current try's socket means. */
    @FunctionalInterface
    public interface Replies<T> {
        /**
         * Judges {@code msg}, which it owns: a {@link Verdict#done} reply holds it (or a value made
         * from it), otherwise it is released here.
         */
        Verdict<T> judge(ZmtpMessage msg);
    }

    /** The meaning of a message: the reply, a partial reply, or something to drop. */
    public sealed interface Verdict<T> {
        /** The reply: the request is done. */
        record Done<T>(T reply) implements Verdict<T> {
        }

        /** A partial reply (Majordomo 0.2): the try's timeout starts again. */
        record Partial<T>() implements Verdict<T> {
        }

        /** Not an answer to the request: dropped. */
        record Discard<T>(String reason) implements Verdict<T> {
        }

        static <T> Verdict<T> done(T reply) {
            return new Done<>(reply);
        }

        static <T> Verdict<T> partial() {
            return new Partial<>();
        }

        static <T> Verdict<T> discard(String reason) {
            return new Discard<>(reason);
        }
    }

    private final LoopClock clock;
    private final RetryPolicy policy;
    private final Failover failover;
    private final Sockets sockets;
    private final Replies<T> replies;
    private final EventReporter<RequestEvent> events;

    // On the loop.
    private ZmtpSocket socket;
    private final ArrayDeque<Call<T>> waiting = new ArrayDeque<>();
    private Call<T> current;
    private long sequence;
    private int endpointIndex;
    private boolean started;
    private boolean closed;

    public RetryingRequester(LoopClock clock, RetryPolicy policy, String endpoint, Sockets sockets,
            Replies<T> replies, EventReporter<RequestEvent> events) {
        this(clock, policy, Failover.single(endpoint), sockets, replies, events);
    }

    /**
     * A requester that moves to the next of {@code failover}'s endpoints after each timeout,
     * after its settle delay (reported as {@link RequestEvent.FailingOver}); the endpoint that
     * last answered stays the current one.
     */
    public RetryingRequester(LoopClock clock, RetryPolicy policy, Failover failover, Sockets sockets,
            Replies<T> replies, EventReporter<RequestEvent> events) {
        this.clock = Objects.requireNonNull(clock);
        this.policy = Objects.requireNonNull(policy);
        this.failover = Objects.requireNonNull(failover);
        this.sockets = Objects.requireNonNull(sockets);
        this.replies = Objects.requireNonNull(replies);
        this.events = events == null ? new EventReporter<>(null, log, "requester") : events;
    }

    public RetryPolicy policy() {
        return policy;
    }

    /** The endpoint the current (or next) try goes to. Call on the loop. */
    public String endpoint() {
        return failover.endpoints().get(endpointIndex);
    }

    /** Opens the first socket; the future completes as its connect does. Call on the loop. */
    public io.netty.util.concurrent.Future<Void> start() {
        started = true;
        return openSocket();
    }

    /**
     * Queues a request (ownership passes) and returns its reply's future: the reply (the caller
     * then owns it), or {@link NoReplyException} after the last try, {@link SocketClosedException}
     * if the requester closes first, {@link RejectedExecutionException} if too many wait.
     * Cancelling the future abandons the request. Any thread.
     */
    public CompletableFuture<T> submit(ZmtpMessage request) {
        Objects.requireNonNull(request);
        Call<T> call = new Call<>(request);
        call.future.whenComplete((r, e) -> {
            if (call.future.isCancelled()) {
                inLoop(() -> cancelled(call));
            }
        });
        inLoop(() -> enqueue(call));
        return call.future;
    }

    /** Fails the request in flight and those waiting, and closes the socket. Call on the loop. */
    public io.netty.util.concurrent.Future<Void> close() {
        closed = true;
        List<Call<T>> dropped = new ArrayList<>();
        if (current != null) {
            current.cancelTimer();
            dropped.add(current);
            current = null;
        }
        dropped.addAll(waiting);
        waiting.clear();
        for (Call<T> c : dropped) {
            c.request.release();
            c.future.completeExceptionally(new SocketClosedException("client closed"));
        }
        ZmtpSocket s = socket;
        socket = null;
        return s == null ? clock.loop().newSucceededFuture(null) : s.close(Duration.ZERO);
    }

    private void inLoop(Runnable r) {
        if (clock.loop().inEventLoop()) {
            r.run();
        } else {
            try {
                clock.loop().execute(r);
            } catch (RejectedExecutionException e) {
                log.debug("loop gone", e);
            }
        }
    }

    private void enqueue(Call<T> call) {
        if (closed || !started) {
            call.request.release();
            call.future.completeExceptionally(new SocketClosedException(closed ? "client closed"
                    : "client not started"));
            return;
        }
        if (waiting.size() >= policy.maxWaiting()) {
            call.request.release();
            call.future.completeExceptionally(new RejectedExecutionException(
                    "too many requests waiting (" + policy.maxWaiting() + ")"));
            return;
        }
        call.sequence = ++sequence;
        waiting.add(call);
        next();
    }

    /** Starts the next waiting request if none is in flight. */
    private void next() {
        while (current == null && !closed) {
            Call<T> c = waiting.poll();
            if (c == null) {
                return;
            }
            if (c.future.isDone()) {
                c.request.release();
                continue;
            }
            current = c;
            c.attempt = 1;
            startTimer(c); // before the Sent event: whoever waits for it may move a manual clock
            send(c);
        }
    }

    /** Sends the current try (on a new socket if there is none). */
    private void send(Call<T> c) {
        if (socket == null) {
            openSocket();
        }
        int attempt = c.attempt;
        ZmtpSocket s = socket;
        events.report(() -> new RequestEvent.Sent(c.sequence, attempt, policy.tries(), Envelope.describe(c.request)));
        s.send(c.request.retainedCopy()).addListener(f -> { // may fail at once, on this loop
            if (!f.isSuccess() && current == c && c.attempt == attempt && socket == s
                    && !(f.cause() instanceof SocketClosedException)) {
                fail(c, f.cause());
            }
        });
    }

    private void startTimer(Call<T> c) {
        c.cancelTimer();
        int attempt = c.attempt;
        c.timer = clock.schedule(() -> timedOut(c, attempt), policy.timeout());
    }

    private void onMessage(ZmtpSocket from, ZmtpMessage msg) {
        Call<T> c = current;
        if (from != socket || c == null) {
            events.report(() -> new RequestEvent.Discarded(c == null ? 0 : c.sequence, c == null ? 0 : c.attempt,
                    Envelope.describe(msg)));
            msg.release();
            return;
        }
        String detail = events.isActive() ? Envelope.describe(msg) : null;
        Verdict<T> v;
        try {
            v = replies.judge(msg);
        } catch (RuntimeException e) {
            ReferenceCountUtil.safeRelease(msg);
            v = Verdict.discard(e.toString());
        }
        if (v instanceof Verdict.Done<T> done) {
            c.cancelTimer();
            current = null;
            events.report(() -> new RequestEvent.Replied(c.sequence, c.attempt, detail));
            c.request.release();
            if (!c.future.complete(done.reply())) {
                ReferenceCountUtil.release(done.reply());
            }
            next();
        } else if (v instanceof Verdict.Partial<T>) {
            events.report(() -> new RequestEvent.Progress(c.sequence, c.attempt, detail));
            startTimer(c);
        } else {
            String why = ((Verdict.Discard<T>) v).reason();
            events.report(() -> new RequestEvent.Discarded(c.sequence, c.attempt, why + ": " + detail));
        }
    }

    private void timedOut(Call<T> c, int attempt) {
        if (current != c || c.attempt != attempt) {
            return;
        }
        c.timer = null;
        closeSocket();
        String reason = "no reply within " + policy.timeout().toMillis() + " ms";
        if (attempt >= policy.tries()) {
            current = null;
            events.report(() -> new RequestEvent.Failed(c.sequence, attempt, reason));
            c.request.release();
            c.future.completeExceptionally(new NoReplyException(endpoint(), attempt, policy.timeout()));
            next();
            return;
        }
        c.attempt++;
        if (failover.rotates()) {
            endpointIndex = (endpointIndex + 1) % failover.endpoints().size();
            String to = endpoint();
            int next = c.attempt;
            c.timer = clock.schedule(() -> settled(c, next), failover.settle()); // before the event
            events.report(() -> new RequestEvent.FailingOver(c.sequence, attempt, policy.tries(), reason, to,
                    failover.settle()));
            return;
        }
        events.report(() -> new RequestEvent.Retrying(c.sequence, attempt, policy.tries(), reason));
        startTimer(c);
        send(c);
    }

    /** The settle delay after a failover is over: the try goes to the next endpoint. */
    private void settled(Call<T> c, int attempt) {
        if (current != c || c.attempt != attempt || closed) {
            return;
        }
        c.timer = null;
        startTimer(c);
        send(c);
    }

    private void onSocketEvent(ZmtpSocket from, SocketEvent e) {
        if (e.type() != SocketEvent.Type.DISCONNECTED || !policy.resendOnDisconnect() || from != socket
                || current == null || closed) {
            return;
        }
        Call<T> c = current;
        closeSocket();
        String reason = e.reason() == null ? "disconnected" : e.reason();
        events.report(() -> new RequestEvent.Reconnected(c.sequence, c.attempt, policy.tries(), reason));
        send(c); // the same try: its timer keeps running
    }

    private void fail(Call<T> c, Throwable cause) {
        c.cancelTimer();
        closeSocket();
        current = null;
        events.report(() -> new RequestEvent.Failed(c.sequence, c.attempt, String.valueOf(cause)));
        c.request.release();
        c.future.completeExceptionally(cause);
        next();
    }

    private void cancelled(Call<T> c) {
        if (c == current) {
            c.cancelTimer();
            closeSocket(); // a REQ would wait for a reply nobody wants
            current = null;
            c.request.release();
            next();
        } else if (waiting.remove(c)) {
            c.request.release();
        }
    }

    private io.netty.util.concurrent.Future<Void> openSocket() {
        ZmtpSocket s = sockets.newSocket();
        socket = s;
        s.onMessage(m -> onMessage(s, m));
        if (policy.resendOnDisconnect()) {
            s.monitor(e -> onSocketEvent(s, e));
        }
        String endpoint = endpoint();
        io.netty.util.concurrent.Future<Void> f = s.connect(endpoint);
        f.addListener(r -> {
            if (!r.isSuccess()) {
                log.warn("cannot connect to {}: {}", endpoint, r.cause().toString());
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

    private static final class Call<T> {
        final ZmtpMessage request;
        final CompletableFuture<T> future = new CompletableFuture<>();
        long sequence;
        int attempt;
        LoopClock.Timer timer;

        Call(ZmtpMessage request) {
            this.request = request;
        }

        void cancelTimer() {
            if (timer != null) {
                timer.cancel();
                timer = null;
            }
        }
    }
}
