package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.kit.RequesterComponent;
import io.zmtp.patterns.kit.Failover;
import io.zmtp.patterns.kit.NoReplyException;
import io.zmtp.patterns.kit.RequestEvent;
import io.zmtp.patterns.kit.RetryingRequester;
import io.zmtp.patterns.kit.ReplyJudge.Verdict;

import io.netty.channel.EventLoop;
import io.zmtp.patterns.majordomo.MdpProtocol.MdpFormatException;
import io.zmtp.socket.SocketClosedException;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.Frames;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The asynchronous Majordomo client (the guide's mdcliapi2): a DEALER socket, sending and
 * receiving separated, any number of requests in flight, and what the guide says mdcliapi2
 * lacks: it survives the loss of its broker by resending every outstanding request.
 *
 * <h2>Two ways to use it</h2>
 * <ul>
 *   <li>{@link #send} then {@link #receive}, as mdcliapi2: replies (PARTIAL and FINAL ones under
 *       0.2) are queued in the order they arrive, for any thread to take.</li>
 *   <li>{@link #request}: a future per request that completes with its final reply, and an optional
 *       listener of its PARTIAL replies. Futures complete, and listeners run, on the client's event
 *       loop: never block there (use the {@code ...Async} stages).</li>
 * </ul>
 *
 * <h2>Which reply answers which request</h2>
 * MDP carries no request id, so replies are matched per service, in the order requests were sent:
 * a reply for service S answers the oldest outstanding request to S. That is exact when replies of
 * one service come back in order (one worker per service, or one request per service in flight);
 * with several workers the reply of a later request can complete an earlier one, and PARTIAL
 * streams of requests served at once interleave. A request that failed (its last try timed out)
 * or was cancelled while it could still be answered on the current connection is remembered
 * until its reply comes or the connection is replaced: that late reply is dropped, and never
 * answers the next request to the same service. The guide notes that exact matching needs a
 * protocol change (numbered requests and replies); this client stays on the wire protocol.
 *
 * <h2>Surviving the broker</h2>
 * The retries are the kit's {@link RetryingRequester} with a window of any number of requests in
 * flight, each keyed by its service (the correlation value: a reply answers the oldest request in
 * flight to its service). Each request has its own {@link MajordomoClientSettings#timeout()
 * timeout} (a PARTIAL starts it again) and {@link MajordomoClientSettings#retries() tries}, counted
 * by timeouts only. When a request times out the socket is replaced and every request in flight is
 * resent on the new one, in the order first sent; when the connection drops (a crashed or
 * restarted broker) the same happens within the current tries. Requests already queued at the
 * lost broker are abandoned there (their replies would go to the old connection). After its last
 * try a request fails with a {@link MajordomoException}. A request may thus run twice at the
 * workers, which MDP assumes are idempotent.
 *
 * <p>Given several brokers (a {@link HighAvailabilityBroker} pair), a timeout sends every
 * outstanding request, after the {@link MajordomoClientSettings#failoverSettle() settle delay},
 * to the next broker, each once; only answers on the current socket count, so no request is
 * answered twice.
 *
 * <h2>Lifecycle</h2>
 * The kit's clients' ({@link RequesterComponent}), a {@link LoopComponent}: the constructor has no side effects; {@link #start()} opens the socket
 * and starts connecting (the stage completes when the connect is under way: a ZeroMQ connect
 * works before the broker binds); requests made before it fail. {@link #closeAsync()} closes the
 * socket and fails every outstanding request with a {@link MajordomoException} (its cause a
 * {@link SocketClosedException}). So does the shutdown of the client's event loop (its context
 * closed before the client): no request future is left waiting.
 */
public final class MajordomoAsyncClient extends RequesterComponent<MajordomoReply> {
    private static final Logger log = LoggerFactory.getLogger(MajordomoAsyncClient.class);
    private static final PeerFailureLog peerLog = PeerFailureLog.get(MajordomoAsyncClient.class);

    private final String endpoint;
    private final MajordomoClientSettings settings;
    private final MdpVersion version;
    private final MessageTracer tracer;
    private final EventReporter<MajordomoEvent> events;
    private final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
    private final AtomicInteger outstanding = new AtomicInteger();
    private volatile boolean closed;

    public MajordomoAsyncClient(ZmtpContext ctx, String brokerEndpoint) {
        this(ctx, brokerEndpoint, MajordomoClientSettings.DEFAULTS);
    }

    public MajordomoAsyncClient(ZmtpContext ctx, String brokerEndpoint, MajordomoClientSettings settings) {
        this(ctx, List.of(brokerEndpoint), settings);
    }

    /**
     * A client of a highly available broker pair (or any list of brokers): requests go to the
     * first endpoint; after a timeout, and the settings' {@link MajordomoClientSettings#failoverSettle()
     * settle delay}, to the next one, in turn; the endpoint that answered stays current.
     */
    public MajordomoAsyncClient(ZmtpContext ctx, List<String> brokerEndpoints, MajordomoClientSettings settings) {
        super(ctx.group().next(), settings.clock());
        this.endpoint = String.join(",", brokerEndpoints);
        this.settings = settings;
        this.version = settings.version();
        this.tracer = settings.tracer();
        this.events = new EventReporter<>(settings.listener(), log, "Majordomo client");
        SocketOptions options = settings.socketOptions().toBuilder().linger(Duration.ZERO).build();
        EventLoop loop = eventLoop();
        requester(new RetryingRequester<>(clock(),
                settings.policy().withMaxWaiting(1).withResendOnDisconnect(true).withWindow(Integer.MAX_VALUE), new Failover(brokerEndpoints, settings.failoverSettle()),
                () -> ctx.socket(SocketType.DEALER, options, loop), this::judge,
                new EventReporter<>(this::requestEvent, log, "Majordomo client", RequestEvent::isNotable)));
    }

    /** Closes the socket; every outstanding request fails. */
    @Override
    protected CompletionStage<Void> onClose() {
        closed = true;
        return super.onClose();
    }

    /** Whether the client closed, or its event loop was shut down under it (every unanswered request failed then). */
    private boolean closed() {
        return closed || isLoopTerminated();
    }

    public MdpVersion version() {
        return version;
    }

    // ------------------------------------------------------------------ API

    /** Sends a request; its replies go to {@link #receive}. Returns at once. */
    public void send(String service, byte[]... body) {
        send(service, Frames.of(body));
    }

    public void send(String service, String... body) {
        send(service, Frames.ofStrings(body));
    }

    public void send(String service, Frames body) {
        submitRequest(service, received::add, body)
                .whenComplete((r, e) -> received.add(e == null ? r : e));
    }

    /**
     * The next reply to a request made with {@link #send}, waiting at most {@code timeout}; null
     * if none came in time.
     *
     * @throws MajordomoException for a request that failed (no reply after every attempt, closed)
     */
    public MajordomoReply receive(Duration timeout) {
        Object o;
        try {
            o = received.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MajordomoException("interrupted");
        }
        if (o instanceof MajordomoException) {
            throw new MajordomoException(((MajordomoException) o).getMessage(), ((MajordomoException) o).getCause());
        }
        return (MajordomoReply) o;
    }

    /** Sends a request; the future completes with its final reply (on the client's event loop). */
    public CompletableFuture<MajordomoReply> request(String service, byte[]... body) {
        return request(service, null, Frames.of(body));
    }

    public CompletableFuture<MajordomoReply> request(String service, String... body) {
        return request(service, null, Frames.ofStrings(body));
    }

    /**
     * Sends a request; {@code partials} (may be null) sees each PARTIAL reply as it comes, then the
     * future completes with the FINAL one. Both run on the client's event loop.
     */
    public CompletableFuture<MajordomoReply> request(String service, Consumer<MajordomoReply> partials, Frames body) {
        return submitRequest(service, partials, body);
    }

    /** The number of requests sent and not yet answered with a final reply (or failed). */
    public int outstanding() {
        return outstanding.get();
    }

    /**
     * Hands the request to the requester, keyed by its service; the returned future completes
     * after the outstanding count went down, failures as {@link MajordomoException}.
     */
    private CompletableFuture<MajordomoReply> submitRequest(String service, Consumer<MajordomoReply> partials,
            Frames body) {
        Objects.requireNonNull(service);
        CompletableFuture<MajordomoReply> result = new CompletableFuture<>();
        if (closed()) {
            result.completeExceptionally(new MajordomoException("client closed"));
            return result;
        }
        ZmtpMessage m = MdpProtocol.clientRequest(version, true, service, body);
        if (tracer != null) {
            tracer.trace("I: send request to '" + service + "' service:", m);
        }
        outstanding.incrementAndGet();
        CompletableFuture<MajordomoReply> reply = submit(m, service, partials);
        reply.whenComplete((r, e) -> {
            outstanding.decrementAndGet();
            if (e == null) {
                result.complete(r);
            } else {
                result.completeExceptionally(failure(service, e));
            }
        });
        result.whenComplete((r, e) -> {
            if (result.isCancelled()) {
                reply.cancel(false);
            }
        });
        return result;
    }

    private MajordomoException failure(String service, Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof NoReplyException n) {
            return new MajordomoException("no reply from service '" + service + "' at " + endpoint
                    + " after " + n.tries() + " attempts");
        }
        if (cause instanceof SocketClosedException || closed()) {
            return new MajordomoException(closed() || cause.getMessage() == null ? "client closed" : cause.getMessage(), cause);
        }
        if (cause instanceof RejectedExecutionException) {
            return new MajordomoException(cause.getMessage());
        }
        return new MajordomoException(String.valueOf(cause));
    }

    // ------------------------------------------------------------------ on the loop

    /** A reply names its service: the requester matches it to the oldest request in flight to it. */
    private Verdict<MajordomoReply> judge(ZmtpMessage m) {
        try {
            if (tracer != null) {
                tracer.trace("I: received reply:", m);
            }
            MajordomoReply r;
            try {
                r = MdpProtocol.readClientReply(m, version, true);
            } catch (MdpFormatException e) {
                peerLog.warn("async client drops an invalid reply: {}", FrameText.escape(e.getMessage()));
                return Verdict.discard(e.getMessage());
            }
            return r.isFinal() ? Verdict.done(r.service(), r) : Verdict.partial(r.service(), r);
        } finally {
            m.release();
        }
    }

    /** The requester's events as the client's (one CLI line each), and WARN log lines when nobody listens. */
    private void requestEvent(RequestEvent e) {
        boolean warn = !events.hasListener();
        if (e instanceof RequestEvent.FailingOver f) {
            if (warn) {
                log.warn("async client: {} for request {}; failing over to {} in {} ms with every request outstanding"
                        + " (attempt {} of {})", f.reason(), f.request(), f.endpoint(), f.settle().toMillis(),
                        f.attempt() + 1, f.tries());
            }
            event(MajordomoEvent.Type.RETRYING, "failing over to " + f.endpoint() + " in " + f.settle().toMillis()
                    + " ms with every request outstanding: " + f.reason() + " for request " + f.request());
        } else if (e instanceof RequestEvent.Reconnected r) {
            if (warn) {
                log.warn("async client: the connection to the broker dropped ({}); resending request {} on a new "
                        + "connection (attempt {} of {} goes on)", r.reason(), r.request(), r.attempt(), r.tries());
            }
            event(MajordomoEvent.Type.RETRYING, "resending request " + r.request()
                    + ": the connection to the broker dropped (same attempt)");
        } else if (e instanceof RequestEvent.Retrying r) {
            if (warn) {
                log.warn("async client: {} for request {}; resending on a new connection (attempt {} of {})",
                        r.reason(), r.request(), r.attempt() + 1, r.tries());
            }
            event(MajordomoEvent.Type.RETRYING, "resending request " + r.request() + ": " + r.reason());
        } else if (e instanceof RequestEvent.Failed f) {
            if (warn) {
                log.warn("async client: request {} abandoned after {} attempts: {}", f.request(), f.attempt(), f.reason());
            }
            event(MajordomoEvent.Type.REQUEST_FAILED, "request " + f.request() + " abandoned: " + f.reason());
        }
    }

    private void event(MajordomoEvent.Type type, String detail) {
        events.report(() -> new MajordomoEvent(type, endpoint, null, detail));
    }
}
