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
 * client) up to that many requests are in flight at once, each with its own timer and tries. A
 * request may then carry a correlation key ({@link #submit(ZmtpMessage, Object, Consumer)}) and
 * the owner's {@link Replies} names the key a reply answers ({@link Verdict#done(Object, Object)}):
 * it goes to the oldest request in flight with that key (Majordomo: the service, as MDP has no
 * request id). When a request times out on the current socket, the socket is replaced and every
 * request in flight is sent again on the new one, in the order first sent; for the others this is
 * not a try (their own timers go on; a request whose timer runs out after it was already resent on
 * the newer socket uses up a try without replacing the socket again or sending a third time).
 *
 * <p>With a {@link Failover} of several endpoints, a timeout moves every request in flight to the
 * next endpoint: the socket is closed at once, the requests' timers stop, and after the settle
 * delay all of them are sent on a new socket to the next endpoint, each with a fresh timeout
 * (only the request whose timeout caused it has used a try); requests submitted during the
 * settle wait for it. So a request is sent at most once on any socket.
 *
 * <p>Only the socket of the current try may answer it: a late reply to an earlier try could only
 * arrive on that try's closed socket. A request given up while it may still be answered on the
 * current socket (its last try timed out after it went out again there, or it was cancelled) is
 * remembered with its key until its reply comes or the socket is replaced, and that late reply is
 * dropped: it never answers a later request with the same key. What a message on the current socket means is the owner's
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
    /** Abandoned requests remembered per socket before it is replaced instead. */
    static final int MAX_ABANDONED = 1024;

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

    /**
     * The meaning of a message: the reply, a partial reply, or something to drop. The key names
     * the request answered (the oldest in flight submitted with an equal key); null = the oldest
     * in flight.
     */
    public sealed interface Verdict<T> {
        /** The reply: the request is done. */
        record Done<T>(T reply, Object key) implements Verdict<T> {
        }

        /**
         * A partial reply (Majordomo 0.2): the try's timeout starts again; {@code value} (may be
         * null) goes to the request's partial-reply listener.
         */
        record Partial<T>(T value, Object key) implements Verdict<T> {
        }

        /** Not an answer to the request: dropped. */
        record Discard<T>(String reason) implements Verdict<T> {
        }

        static <T> Verdict<T> done(T reply) {
            return new Done<>(reply, null);
        }

        /** The reply to the oldest request in flight submitted with a key equal to {@code key}. */
        static <T> Verdict<T> done(Object key, T reply) {
            return new Done<>(reply, key);
        }

        static <T> Verdict<T> partial() {
            return new Partial<>(null, null);
        }

        /** A partial reply to the oldest request in flight with {@code key}; {@code value} to its listener. */
        static <T> Verdict<T> partial(Object key, T value) {
            return new Partial<>(value, key);
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
    /** Counts the sockets replaced because a request timed out (not those replaced after a drop). */
    private long timeoutReplacements;
    private final ArrayDeque<Call<T>> waiting = new ArrayDeque<>();
    /** In flight, oldest first. */
    private final ArrayDeque<Call<T>> inFlight = new ArrayDeque<>();
    /**
     * Requests given up (the last try timed out, or cancelled) that went out on the current socket
     * and may still be answered there, oldest first: a late reply with their key is theirs, and is
     * dropped, so that it cannot answer a later request with the same key. Emptied when the socket
     * is replaced (nothing more can arrive for them).
     */
    private final ArrayDeque<Abandoned> abandoned = new ArrayDeque<>();
    private long sequence;
    private int endpointIndex;
    /** Between a failover and the end of its settle delay: no socket, every request in flight waits for it. */
    private LoopClock.Timer settleTimer;
    private boolean started;
    private boolean closed;
    /** Requests submitted and not yet done (any thread reads it). */
    private volatile int pendingView;

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
        if (settleTimer != null) {
            settleTimer.cancel();
            settleTimer = null;
        }
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
            if (settleTimer != null) {
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
     * The abandoned request a reply naming {@code key} answers, if it is older than {@code call}
     * (the oldest request in flight with that key, or null): requests go out on a socket in the
     * order of their sequence, and replies with one key come back in that order.
     */
    private Abandoned answeredAbandoned(Object key, Call<T> call) {
        for (Abandoned a : abandoned) {
            if (key == null || a.key == null || key.equals(a.key)) {
                return call == null || a.sequence < call.sequence ? a : null;
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
        if (policy.window() <= 1 || socket == null || settleTimer != null) {
            return;
        }
        if (abandoned.size() >= MAX_ABANDONED) {
            timeoutReplacements++;
            closeSocket();
            if (!inFlight.isEmpty()) {
                resendInFlight();
            }
            return;
        }
        abandoned.add(new Abandoned(c.key, c.sequence));
    }

    private void onMessage(ZmtpSocket from, ZmtpMessage msg) {
        if (from != socket || (inFlight.isEmpty() && abandoned.isEmpty())) {
            Call<T> c = inFlight.peek();
            events.report(RequestEvent.Discarded.class, () -> new RequestEvent.Discarded(c == null ? 0 : c.sequence, c == null ? 0 : c.attempt,
                    Envelope.describe(msg)));
            msg.release();
            return;
        }
        String detail = events.isActive(RequestEvent.Replied.class) || events.isActive(RequestEvent.Progress.class)
                || events.isActive(RequestEvent.Discarded.class) ? Envelope.describe(msg) : null;
        Verdict<T> v;
        try {
            v = replies.judge(msg);
        } catch (RuntimeException e) {
            ReferenceCountUtil.safeRelease(msg);
            v = Verdict.discard(e.toString());
        }
        if (v instanceof Verdict.Done<T> done) {
            Call<T> c = answered(done.key());
            Abandoned late = answeredAbandoned(done.key(), c);
            if (late != null) {
                abandoned.remove(late);
                ReferenceCountUtil.release(done.reply());
                events.report(RequestEvent.Discarded.class, () -> new RequestEvent.Discarded(late.sequence, 0,
                        "a late reply to a request given up: " + detail));
                return;
            }
            if (c == null) {
                ReferenceCountUtil.release(done.reply());
                events.report(RequestEvent.Discarded.class, () -> new RequestEvent.Discarded(0, 0, "no request in flight for it: " + detail));
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
        } else if (v instanceof Verdict.Partial<T> partial) {
            Call<T> c = answered(partial.key());
            Abandoned late = answeredAbandoned(partial.key(), c);
            if (late != null) {
                ReferenceCountUtil.release(partial.value());
                events.report(RequestEvent.Discarded.class, () -> new RequestEvent.Discarded(late.sequence, 0,
                        "a late partial reply to a request given up: " + detail));
                return;
            }
            if (c == null) {
                ReferenceCountUtil.release(partial.value());
                events.report(RequestEvent.Discarded.class, () -> new RequestEvent.Discarded(0, 0, "no request in flight for it: " + detail));
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
            String why = ((Verdict.Discard<T>) v).reason();
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
            if (replace && !inFlight.isEmpty() && failover.rotates()) {
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
        if (failover.rotates() && replace) {
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
        endpointIndex = (endpointIndex + 1) % failover.endpoints().size();
        String to = endpoint();
        long seq = c.sequence;
        settleTimer = clock.schedule(this::settled, failover.settle()); // before the event
        events.report(RequestEvent.FailingOver.class, () -> new RequestEvent.FailingOver(seq, attempt, policy.tries(), reason, to,
                failover.settle()));
    }

    /** The settle delay after a failover is over: every request in flight goes to the next endpoint. */
    private void settled() {
        settleTimer = null;
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
        abandoned.clear();
        if (socket != null) {
            socket.close(Duration.ZERO);
            socket = null;
        }
    }

    /** A request given up that may still be answered on the current socket. */
    private record Abandoned(Object key, long sequence) {
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
