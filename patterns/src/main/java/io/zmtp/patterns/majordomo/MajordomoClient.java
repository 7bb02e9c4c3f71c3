package io.zmtp.patterns.majordomo;

import io.netty.channel.EventLoop;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.kit.RequesterComponent;
import io.zmtp.patterns.majordomo.MdpProtocol.MdpFormatException;
import io.zmtp.patterns.kit.Failover;
import io.zmtp.patterns.kit.NoReplyException;
import io.zmtp.patterns.kit.RequestEvent;
import io.zmtp.patterns.kit.RetryingRequester;
import io.zmtp.patterns.kit.ReplyJudge.Verdict;
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
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The synchronous Majordomo client (the guide's mdcliapi): one request at a time, waiting for
 * its reply, with a timeout and retries. A blocking facade over the kit's
 * {@link RetryingRequester}, which owns the socket, the try's timer and the retries on the
 * client's event loop (on the settings' clock), with the lifecycle of the kit's clients
 * ({@link RequesterComponent}); the calling thread only waits for what the loop hands it.
 *
 * <p>Under MDP/0.1 it uses a REQ socket (which adds and strips the empty frame), under MDP/0.2 a
 * DEALER. When no reply (and, in 0.2, no PARTIAL: a PARTIAL starts the timeout again) comes within
 * the {@link MajordomoClientSettings#timeout() timeout}, it closes the socket, opens a new one and
 * sends the request again, up to {@link MajordomoClientSettings#retries() retries} sends in all;
 * then the request fails with a {@link MajordomoException} (the guide's "permanent error,
 * abandoning") and the next request starts on a new socket. A reply for another service, or one
 * that follows no layout, is dropped (rate-limited log line). Not for concurrent use: one thread
 * at a time, as a ZeroMQ socket.
 *
 * <p>Given several brokers (a {@link HighAvailabilityBroker} pair), each resend after a timeout
 * goes to the next one, after the {@link MajordomoClientSettings#failoverSettle() settle delay}.
 *
 * <p>A {@link LoopComponent}: the constructor has no side effects; {@link #start()} opens the
 * socket and starts connecting (the stage completes when the connect is under way: a ZeroMQ
 * connect works before the broker binds); {@link #closeAsync()} closes it, and a request in
 * progress fails. If the client's event loop is shut down first (its context closed), a request
 * in progress fails at once instead of waiting out its timeouts.
 */
public final class MajordomoClient extends RequesterComponent<MajordomoReply> {
    private static final Logger log = LoggerFactory.getLogger(MajordomoClient.class);
    private static final PeerFailureLog peerLog = PeerFailureLog.get(MajordomoClient.class);

    private final String endpoint;
    private final MajordomoClientSettings settings;
    private final MdpVersion version;
    private final long timeoutNanos;
    private final MessageTracer tracer;
    private final EventReporter<MajordomoEvent> events;
    private final AtomicBoolean inUse = new AtomicBoolean();
    /** The request in progress (set by the caller's thread before it is submitted). */
    private volatile Call current;
    private volatile boolean closed;

    public MajordomoClient(ZmtpContext ctx, String brokerEndpoint) {
        this(ctx, brokerEndpoint, MajordomoClientSettings.DEFAULTS);
    }

    public MajordomoClient(ZmtpContext ctx, String brokerEndpoint, MajordomoClientSettings settings) {
        this(ctx, List.of(brokerEndpoint), settings);
    }

    /**
     * A client of a highly available broker pair (or any list of brokers): requests go to the
     * first endpoint; after a timeout, and the settings' {@link MajordomoClientSettings#failoverSettle()
     * settle delay}, to the next one, in turn; the endpoint that answered stays current.
     */
    public MajordomoClient(ZmtpContext ctx, List<String> brokerEndpoints, MajordomoClientSettings settings) {
        super(ctx.group().next(), settings.clock());
        this.endpoint = String.join(",", brokerEndpoints);
        this.settings = settings;
        this.version = settings.version();
        this.timeoutNanos = settings.timeout().toNanos();
        this.tracer = settings.tracer();
        this.events = new EventReporter<>(settings.listener(), log, "Majordomo client");
        SocketOptions options = settings.socketOptions().toBuilder().linger(Duration.ZERO).build();
        SocketType type = version == MdpVersion.V0_1 ? SocketType.REQ : SocketType.DEALER;
        EventLoop loop = eventLoop();
        requester(new RetryingRequester<>(clock(),
                settings.policy().withMaxWaiting(1), new Failover(brokerEndpoints, settings.failoverSettle()),
                () -> ctx.socket(type, options, loop), this::judge,
                new EventReporter<>(this::requestEvent, log, "Majordomo client", RequestEvent::isNotable)));
    }

    /** Closes the socket; a request in progress fails. */
    @Override
    protected CompletionStage<Void> onClose() {
        closed = true;
        return super.onClose();
    }

    /** Whether the client closed, or its event loop was shut down under it. */
    private boolean closed() {
        return closed || isLoopTerminated();
    }

    public MdpVersion version() {
        return version;
    }

    /** Sends a request and waits for its final reply. */
    public MajordomoReply request(String service, byte[]... body) {
        return request(service, null, Frames.of(body));
    }

    /** Sends a request of UTF-8 frames and waits for its final reply. */
    public MajordomoReply request(String service, String... body) {
        return request(service, null, Frames.ofStrings(body));
    }

    /**
     * Sends a request and waits for its final reply; under MDP/0.2 each PARTIAL reply is passed to
     * {@code partials} on the calling thread as it comes.
     *
     * @throws MajordomoException when no reply came after every attempt, or the client closed
     */
    public MajordomoReply request(String service, Consumer<MajordomoReply> partials, Frames body) {
        Objects.requireNonNull(service);
        if (closed()) {
            throw new MajordomoException("client closed");
        }
        if (!inUse.compareAndSet(false, true)) {
            throw new IllegalStateException("a MajordomoClient serves one request at a time");
        }
        try {
            Call call = new Call(service);
            current = call;
            ZmtpMessage m = MdpProtocol.clientRequest(version, false, service, body);
            if (tracer != null) {
                tracer.trace("I: send request to '" + service + "' service:", m);
            }
            CompletableFuture<MajordomoReply> reply;
            try {
                reply = submit(m, null, null);
            } catch (RuntimeException e) {
                throw new MajordomoException("client closed");
            }
            reply.whenComplete((r, e) -> call.outcomes.add(e == null ? r : failure(service, e)));
            long wait = timeoutNanos * settings.retries() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                Object o = call.outcomes.poll(wait, TimeUnit.NANOSECONDS);
                if (o == null) {
                    reply.cancel(false);
                    throw new MajordomoException("the client's event loop did not answer");
                }
                if (o instanceof MajordomoException) {
                    throw new MajordomoException(((MajordomoException) o).getMessage(), ((MajordomoException) o).getCause());
                }
                MajordomoReply r = (MajordomoReply) o;
                if (r.isFinal()) {
                    return r;
                }
                if (partials != null) {
                    partials.accept(r);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MajordomoException("interrupted");
        } finally {
            current = null;
            inUse.set(false);
        }
    }

    private MajordomoException failure(String service, Throwable e) {
        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof NoReplyException) {
            return new MajordomoException("no reply from service '" + service + "' at " + endpoint
                    + " after " + settings.retries() + " attempts");
        }
        if (cause instanceof SocketClosedException && isLoopTerminated()) {
            return new MajordomoException(cause.getMessage(), cause); // the request can get no answer
        }
        if (cause instanceof SocketClosedException || closed()) {
            return new MajordomoException(closed() || cause.getMessage() == null ? "client closed" : cause.getMessage(), cause);
        }
        return new MajordomoException(String.valueOf(cause));
    }

    // ------------------------------------------------------------------ on the loop

    /** What a message on the current try's socket is: the final reply, a PARTIAL, or something to drop. */
    private Verdict<MajordomoReply> judge(ZmtpMessage m) {
        try {
            if (tracer != null) {
                tracer.trace("I: received reply:", m);
            }
            Call call = current;
            if (call == null) {
                return Verdict.discard("no request waits for it");
            }
            MajordomoReply r;
            try {
                r = MdpProtocol.readClientReply(m, version, false);
            } catch (MdpFormatException e) {
                peerLog.warn("client drops an invalid reply from the broker: {}", FrameText.escape(e.getMessage()));
                return Verdict.discard(e.getMessage());
            }
            if (!r.service().equals(call.service)) {
                peerLog.warn("client drops a reply from service '{}' while waiting for '{}'",
                        FrameText.escape(r.service()), FrameText.escape(call.service));
                return Verdict.discard("a reply from another service");
            }
            if (r.isFinal()) {
                return Verdict.done(r);
            }
            call.outcomes.add(r);
            return Verdict.partial();
        } finally {
            m.release();
        }
    }

    /**
     * The requester's events as the client's (one CLI line each, the guide's words), and as WARN
     * log lines when the application does not listen.
     */
    private void requestEvent(RequestEvent e) {
        Call call = current;
        String service = call == null ? null : call.service;
        boolean warn = !events.hasListener();
        if (e instanceof RequestEvent.FailingOver f) {
            if (warn) {
                log.warn("no reply from the broker for '{}' ({}), failing over to {} in {} ms (attempt {} of {})",
                        service == null ? "?" : FrameText.escape(service), f.reason(), f.endpoint(), f.settle().toMillis(),
                        f.attempt() + 1, f.tries());
            }
            event(MajordomoEvent.Type.RETRYING, service, "no reply, failing over to " + f.endpoint() + " in "
                    + f.settle().toMillis() + " ms");
        } else if (e instanceof RequestEvent.Retrying r) {
            if (warn) {
                log.warn("no reply from {} for '{}', reconnecting (attempt {} of {})", endpoint,
                        service == null ? "?" : FrameText.escape(service), r.attempt(), r.tries());
            }
            event(MajordomoEvent.Type.RETRYING, service, "no reply, reconnecting...");
        } else if (e instanceof RequestEvent.Failed) {
            if (warn) {
                log.warn("no reply from {} for '{}' after {} attempts, abandoning", endpoint,
                        service == null ? "?" : FrameText.escape(service), settings.retries());
            }
            event(MajordomoEvent.Type.REQUEST_FAILED, service, "permanent error, abandoning");
        }
    }

    private void event(MajordomoEvent.Type type, String service, String detail) {
        events.report(() -> new MajordomoEvent(type, endpoint, service, detail));
    }

    /** One request: its service, and where its outcomes (partials, then the reply or failure) go. */
    private static final class Call {
        final String service;
        final BlockingQueue<Object> outcomes = new LinkedBlockingQueue<>();

        Call(String service) {
            this.service = service;
        }
    }
}
