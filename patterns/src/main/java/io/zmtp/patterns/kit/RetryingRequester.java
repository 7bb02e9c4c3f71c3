package io.zmtp.patterns.kit;

import io.netty.util.ReferenceCountUtil;
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
import java.util.function.Consumer;
import java.util.concurrent.RejectedExecutionException;

/**
 * Reliable request-reply done by the client alone (the core of the guide's Lazy Pirate client,
 * and of the Majordomo clients): a request goes out on a socket and a timer starts; if the reply
 * comes in time the request is done; if not, the socket is closed at once (linger 0: whatever it
 * still held is dropped), a new one is opened and the request sent again; after the last try the
 * request fails with {@link NoReplyException}. The socket is kept between requests as long as
 * replies come. Requests go one at a time, in order; others wait (up to a bound).
 *
 * <p>With a {@link RetryPolicy#window() window} above 1 (a DEALER: the asynchronous Majordomo
 * client) that many requests are in flight at once, each with its own timer and tries, and a
 * reply goes to the oldest request in flight with the key it names ({@link ReplyJudge.Verdict#done(Object,
 * Object)}; Majordomo: the service, as MDP has no request id). A timeout replaces the socket and
 * sends every request in flight again on the new one, in the order first sent; for the others
 * this is not a try (a request whose timer runs out after it was resent on the newer socket uses
 * up a try without replacing the socket again or sending a third time).
 *
 * <p>With a {@link Failover} of several endpoints ({@link EndpointRotation}), a timeout moves
 * every request in flight to the next endpoint: the socket is closed at once, the timers stop, and
 * after the settle delay all of them go on a new socket to the next endpoint, each with a fresh
 * timeout (only the request whose timeout caused it has used a try); requests submitted meanwhile
 * wait for it. So a request is sent at most once on any socket.
 *
 * <p>Only the socket of the current try may answer it: a late reply to an earlier try could only
 * arrive on that try's closed socket; one to a request given up on the current socket is dropped
 * by {@link LateReplies}. What a message on the current socket means is the owner's
 * {@link ReplyJudge} (the reply, a partial reply that restarts the timeout, or something to drop).
 *
 * <p>Tries are counted by timeouts only ({@link RetryPolicy#resendOnDisconnect()}: a lost
 * connection resends within the try), so a flapping server cannot use the budget up sooner. Runs
 * on the clock's loop; {@link #submit} may be called from any thread.
 *
 * @param <T> the reply as the owner's {@link ReplyJudge} gives it (the message itself, say)
 */
public final class RetryingRequester<T> {
    private static final Logger log = LoggerFactory.getLogger(RetryingRequester.class);

    /** Makes the socket of a try. */
    @FunctionalInterface
    public interface Sockets {
        /** A new socket on the requester's loop, not yet connected, with linger 0. */
        ZmtpSocket newSocket();
    }

    private final LoopClock clock;
    private final RetryPolicy policy;
    /** Where the tries go: one endpoint, or several in turn with a settle delay. */
    private final EndpointRotation endpoints;
    private final Sockets sockets;
    private final ReplyJudge<T> replies;
    private final EventReporter<RequestEvent> events;

    // On the loop.
    private ZmtpSocket socket;
    /** Counts the sockets replaced because a request timed out (not those replaced after a drop). */
    private long timeoutReplacements;
    private final ArrayDeque<Call<T>> waiting = new ArrayDeque<>();
    /** In flight, oldest first. */
    private final ArrayDeque<Call<T>> inFlight = new ArrayDeque<>();
    /** Requests given up that may still be answered on the current socket: their late replies are dropped. */
    private final LateReplies late = new LateReplies();
    private long sequence;
    private boolean started;
    private boolean closed;
    /** Requests submitted and not yet done (any thread reads it). */
    private volatile int pendingView;

    public RetryingRequester(LoopClock clock, RetryPolicy policy, String endpoint, Sockets sockets,
            ReplyJudge<T> replies, EventReporter<RequestEvent> events) {
        this(clock, policy, Failover.single(endpoint), sockets, replies, events);
    }

    /**
     * A requester that moves to the next of {@code failover}'s endpoints after each timeout,
     * after its settle delay (reported as {@link RequestEvent.FailingOver}); the endpoint that
     * last answered stays the current one.
     */
    public RetryingRequester(LoopClock clock, RetryPolicy policy, Failover failover, Sockets sockets,
            ReplyJudge<T> replies, EventReporter<RequestEvent> events) {
        this.clock = Objects.requireNonNull(clock);
        this.policy = Objects.requireNonNull(policy);
        this.endpoints = new EndpointRotation(failover, this.clock);
        this.sockets = Objects.requireNonNull(sockets);
        this.replies = Objects.requireNonNull(replies);
        this.events = events == null ? new EventReporter<>(null, log, "requester") : events;
    }

    public RetryPolicy policy() {
        return policy;
    }

    /** The endpoint the current (or next) try goes to. Call on the loop. */
    public String endpoint() {
        return endpoints.current();
    }

    /** Requests in flight or waiting (any thread; a snapshot). */
    public int pending() {
        return pendingView;
    }

    /** Opens the first socket; the future completes as its connect does. Call on the loop. */
    public io.netty.util.concurrent.Future<Void> start() {
        started = true;
        return openSocket();
    }

    /**
     * Queues a request (ownership passes) and returns its reply's future: the reply (the caller
     * then owns it), or {@link NoReplyException} after the last try, {@link SocketClosedException}
     * if the requester closes first (or its event loop was shut down), {@link RejectedExecutionException}
     * if too many wait.
     * Cancelling the future abandons the request. Any thread.
     */
    public CompletableFuture<T> submit(ZmtpMessage request) {
        return submit(request, null, null);
    }

    /**
     * As {@link #submit(ZmtpMessage)}, for a request that replies name by {@code key} (null: any),
     * whose partial replies' values go to {@code partials} (may be null) on the loop.
     */
    public CompletableFuture<T> submit(ZmtpMessage request, Object key, Consumer<? super T> partials) {
        Objects.requireNonNull(request);
        Call<T> call = new Call<>(request, key, partials);
        call.future.whenComplete((r, e) -> {
            if (call.future.isCancelled()) {
                inLoop(() -> cancelled(call));
            }
        });
        try {
            if (clock.loop().inEventLoop()) {
                enqueue(call);
            } else {
                clock.loop().execute(() -> enqueue(call));
            }
        } catch (RejectedExecutionException e) {
            // the loop is gone (its context was closed): nothing would ever answer the request
            call.request.release();
            call.future.completeExceptionally(new SocketClosedException("the requester's event loop was shut down"));
        }
        return call.future;
    }

    /** Fails the requests in flight and those waiting, and closes the socket. Call on the loop. */
    public io.netty.util.concurrent.Future<Void> close() {
        closed = true;
        List<Call<T>> dropped = new ArrayList<>(inFlight);
        inFlight.clear();
        dropped.addAll(waiting);
        waiting.clear();
        pendingView = 0;
        endpoints.cancel();
        for (Call<T> c : dropped) {
            c.cancelTimer();
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

    private void updateView() {
        pendingView = inFlight.size() + waiting.size();
    }

    private void enqueue(Call<T> call) {
        if (closed || !started) {
            call.request.release();
            call.future.completeExceptionally(new SocketClosedException(closed ? "client closed"
                    : "client not started"));
            return;
        }
        if (inFlight.size() >= policy.window() && waiting.size() >= policy.maxWaiting()) {
            call.request.release();
            call.future.completeExceptionally(new RejectedExecutionException(
                    "too many requests waiting (" + policy.maxWaiting() + ")"));
            return;
        }
        call.sequence = ++sequence;
        waiting.add(call);
        next();
    }

    /** Starts waiting requests while the window has room. */
    private void next() {
        while (inFlight.size() < policy.window() && !closed) {
            Call<T> c = waiting.poll();
            if (c == null) {
                break;
            }
            if (c.future.isDone()) {
                c.request.release();
                continue;
            }
            inFlight.add(c);
            c.attempt = 1;
            if (endpoints.settling()) {
                continue; // sent with the others when the settle delay is over
            }
            if (socket == null) {
                openSocket();
            }
            startTimer(c); // before the Sent event: whoever waits for it may move a manual clock
            send(c);
        }
        updateView();
    }

    /** Sends the request's current try on the current socket (a new one if there is none). */
    private void send(Call<T> c) {
        if (socket == null) {
            openSocket();
        }
        int attempt = c.attempt;
        ZmtpSocket s = socket;
        events.report(RequestEvent.Sent.class, () -> new RequestEvent.Sent(c.sequence, attempt, policy.tries(), Envelope.describe(c.request)));
        s.send(c.request.retainedDuplicate()).addListener(f -> { // may fail at once, on this loop
            if (!f.isSuccess() && inFlight.contains(c) && c.attempt == attempt && socket == s
                    && !(f.cause() instanceof SocketClosedException)) {
                fail(c, f.cause());
            }
        });
    }

    private void startTimer(Call<T> c) {
        c.cancelTimer();
        int attempt = c.attempt;
        c.timerReplacements = timeoutReplacements;
        c.timer = clock.schedule(() -> timedOut(c, attempt), policy.timeout());
    }

    /**
     * The request in flight a reply ({@code fin}) or partial reply naming {@code key} answers; null
     * when it answers none, after {@code value} is dropped and reported: a late reply to a request
     * given up ({@link LateReplies}), or a reply nobody waits for.
     */
    private Call<T> answeredBy(Object key, T value, boolean fin, String detail) {
        Call<T> c = answered(key);
        LateReplies.Given given = late.answered(key, c == null ? Long.MAX_VALUE : c.sequence);
        if (given != null) {
            if (fin) {
                late.forget(given);
            }
            ReferenceCountUtil.release(value);
            events.report(RequestEvent.Discarded.class, () -> new RequestEvent.Discarded(given.sequence(), 0,
                    (fin ? "a late reply" : "a late partial reply") + " to a request given up: " + detail));
            return null;
        }
        if (c == null) {
            ReferenceCountUtil.release(value);
            events.report(RequestEvent.Discarded.class, () -> new RequestEvent.Discarded(0, 0,
                    "no request in flight for it: " + detail));
        }
        return c;
    }

    /** The oldest request in flight that a reply naming {@code key} answers. */
    private Call<T> answered(Object key) {
        for (Call<T> c : inFlight) {
            if (key == null || c.key == null || key.equals(c.key)) {
                return c;
            }
        }
        return null;
    }

    /**
     * {@code c} is given up while it may still be answered on the current socket (a socket with
     * correlation keys, where that answer would go to the next request with its key): remembered
     * until its final reply comes or the socket is replaced. Too many remembered replace the socket.
     */
    private void abandon(Call<T> c) {
        if (policy.window() <= 1 || socket == null || endpoints.settling()) {
            return;
        }
        if (late.isFull()) {
            timeoutReplacements++;
            closeSocket();
            if (!inFlight.isEmpty()) {
                resendInFlight();
            }
            return;
        }
        late.remember(c.key, c.sequence);
    }

    private void onMessage(ZmtpSocket from, ZmtpMessage msg) {
        if (from != socket || (inFlight.isEmpty() && late.isEmpty())) {
            Call<T> c = inFlight.peek();
            events.report(RequestEvent.Discarded.class, () -> new RequestEvent.Discarded(c == null ? 0 : c.sequence, c == null ? 0 : c.attempt,
                    Envelope.describe(msg)));
            msg.release();
            return;
        }
        String detail = events.isActive(RequestEvent.Replied.class) || events.isActive(RequestEvent.Progress.class)
                || events.isActive(RequestEvent.Discarded.class) ? Envelope.describe(msg) : null;
        ReplyJudge.Verdict<T> v;
        try {
            v = replies.judge(msg);
        } catch (RuntimeException e) {
            ReferenceCountUtil.safeRelease(msg);
            v = ReplyJudge.Verdict.discard(e.toString());
        }
        if (v instanceof ReplyJudge.Verdict.Done<T> done) {
            Call<T> c = answeredBy(done.key(), done.reply(), true, detail);
            if (c == null) {
                return;
            }
            c.cancelTimer();
            inFlight.remove(c);
            updateView();
            events.report(RequestEvent.Replied.class, () -> new RequestEvent.Replied(c.sequence, c.attempt, detail));
            c.request.release();
            if (!c.future.complete(done.reply())) {
                ReferenceCountUtil.release(done.reply());
            }
            next();
        } else if (v instanceof ReplyJudge.Verdict.Partial<T> partial) {
            Call<T> c = answeredBy(partial.key(), partial.value(), false, detail);
            if (c == null) {
                return;
            }
            events.report(RequestEvent.Progress.class, () -> new RequestEvent.Progress(c.sequence, c.attempt, detail));
            startTimer(c);
            if (partial.value() != null) {
                if (c.partials == null) {
                    ReferenceCountUtil.release(partial.value());
                } else {
                    try {
                        c.partials.accept(partial.value());
                    } catch (RuntimeException e) {
                        log.warn("partial reply listener failed", e);
                    }
                }
            }
        } else {
            String why = ((ReplyJudge.Verdict.Discard<T>) v).reason();
            Call<T> c = inFlight.peek();
            events.report(RequestEvent.Discarded.class, () -> new RequestEvent.Discarded(c == null ? 0 : c.sequence, c == null ? 0 : c.attempt,
                    why + ": " + detail));
        }
    }

    private void timedOut(Call<T> c, int attempt) {
        if (!inFlight.contains(c) || c.attempt != attempt) {
            return;
        }
        c.timer = null;
        // Replace the socket unless another request's timeout did so during this try: then this
        // one went out again on the new socket already, and that send is its next try.
        boolean replace = c.timerReplacements == timeoutReplacements;
        String reason = "no reply within " + policy.timeout().toMillis() + " ms";
        if (attempt >= policy.tries()) {
            inFlight.remove(c);
            updateView();
            events.report(RequestEvent.Failed.class, () -> new RequestEvent.Failed(c.sequence, attempt, reason));
            c.request.release();
            c.future.completeExceptionally(new NoReplyException(endpoint(), attempt, policy.timeout()));
            if (replace && !inFlight.isEmpty() && endpoints.rotates()) {
                failOver(inFlight.peek(), inFlight.peek().attempt, reason); // the others move with the failover, using no try
            } else if (replace) {
                timeoutReplacements++;
                closeSocket();
                resendInFlight();
            } else {
                abandon(c); // it went out again on this socket when another request's timeout replaced it
            }
            next();
            return;
        }
        c.attempt++;
        if (endpoints.rotates() && replace) {
            failOver(c, attempt, reason);
            return;
        }
        events.report(RequestEvent.Retrying.class, () -> new RequestEvent.Retrying(c.sequence, attempt, policy.tries(), reason));
        if (replace) {
            timeoutReplacements++;
            closeSocket();
            openSocket();
            startTimer(c);
            resendInFlight();
        } else {
            startTimer(c);
        }
    }

    /**
     * The next endpoint, after the settle delay: the socket is closed now, every request in
     * flight stops its timer and waits (as do new ones), and when the delay is over all of them go
     * to the next endpoint on a new socket, each with a fresh timeout. Only {@code c}, whose
     * timeout (its try {@code attempt}) caused it, has used a try.
     */
    private void failOver(Call<T> c, int attempt, String reason) {
        timeoutReplacements++;
        closeSocket();
        for (Call<T> o : inFlight) {
            o.cancelTimer();
        }
        endpoints.nextAfterSettle(this::settled); // the timer before the event
        String to = endpoint();
        long seq = c.sequence;
        Duration settle = endpoints.settle();
        events.report(RequestEvent.FailingOver.class, () -> new RequestEvent.FailingOver(seq, attempt, policy.tries(), reason, to,
                settle));
    }

    /** The settle delay after a failover is over: every request in flight goes to the next endpoint. */
    private void settled() {
        if (closed) {
            return;
        }
        if (socket == null) {
            openSocket();
        }
        for (Call<T> c : inFlight) {
            startTimer(c); // before the send: whoever waits for the Sent event may move a manual clock
        }
        resendInFlight();
        next();
    }

    /** Sends every request in flight again on the current socket (a new one), oldest first. */
    private void resendInFlight() {
        for (Call<T> c : inFlight) {
            send(c);
        }
    }

    private void onSocketEvent(ZmtpSocket from, SocketEvent e) {
        if (e.type() != SocketEvent.Type.DISCONNECTED || !policy.resendOnDisconnect() || from != socket
                || inFlight.isEmpty() || closed) {
            return;
        }
        closeSocket();
        openSocket();
        String reason = e.reason() == null ? "disconnected" : e.reason();
        for (Call<T> c : inFlight) {
            events.report(RequestEvent.Reconnected.class, () -> new RequestEvent.Reconnected(c.sequence, c.attempt, policy.tries(), reason));
        }
        resendInFlight(); // the same tries: their timers keep running
    }

    private void fail(Call<T> c, Throwable cause) {
        c.cancelTimer();
        inFlight.remove(c);
        updateView();
        closeSocket();
        events.report(RequestEvent.Failed.class, () -> new RequestEvent.Failed(c.sequence, c.attempt, String.valueOf(cause)));
        c.request.release();
        c.future.completeExceptionally(cause);
        if (!inFlight.isEmpty()) {
            openSocket();
            resendInFlight();
        }
        next();
    }

    private void cancelled(Call<T> c) {
        if (inFlight.remove(c)) {
            c.cancelTimer();
            c.request.release();
            if (policy.window() == 1) {
                closeSocket(); // a REQ would wait for a reply nobody wants
            } else {
                abandon(c);
            }
            next();
        } else if (waiting.remove(c)) {
            c.request.release();
            updateView();
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
        late.clear();
        if (socket != null) {
            socket.close(Duration.ZERO);
            socket = null;
        }
    }

    private static final class Call<T> {
        final ZmtpMessage request;
        final Object key;
        final Consumer<? super T> partials;
        final CompletableFuture<T> future = new CompletableFuture<>();
        long sequence;
        int attempt;
        long timerReplacements;
        LoopClock.Timer timer;

        Call(ZmtpMessage request, Object key, Consumer<? super T> partials) {
            this.request = request;
            this.key = key;
            this.partials = partials;
        }

        void cancelTimer() {
            if (timer != null) {
                timer.cancel();
                timer = null;
            }
        }
    }
}
