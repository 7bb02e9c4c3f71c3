package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.time.LoopClock;
import io.zmtp.patterns.EventReporter;

import io.netty.channel.EventLoop;
import io.zmtp.patterns.majordomo.MdpProtocol.MdpFormatException;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The synchronous Majordomo client (the guide's mdcliapi): one request at a time, waiting for
 * its reply, with a timeout and retries. A blocking facade over a reactor: the socket, its
 * handler and the timeout timer live on one event loop, and the calling thread only waits for
 * what the loop hands it.
 *
 * <p>Under MDP/0.1 it uses a REQ socket (which adds and strips the empty frame), under MDP/0.2 a
 * DEALER. When no reply (and, in 0.2, no PARTIAL) comes within the
 * {@link MajordomoClientSettings#timeout() timeout}, it closes the socket, opens a new one and
 * sends the request again, up to {@link MajordomoClientSettings#retries() retries} sends in all;
 * then the request fails with a {@link MajordomoException} (the guide's "permanent error,
 * abandoning") and the next request starts on a new socket. Not for concurrent use: one thread
 * at a time, as a ZeroMQ socket.
 */
public final class MajordomoClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MajordomoClient.class);

    private final ZmtpContext ctx;
    private final String endpoint;
    private final MajordomoClientSettings settings;
    private final MdpVersion version;
    private final EventLoop loop;
    private final long timeoutNanos;
    private final MessageTracer tracer;
    private final EventReporter<MajordomoEvent> events;
    private final AtomicBoolean inUse = new AtomicBoolean();

    // state on the loop
    private ZmtpSocket socket;
    private Call current;
    private LoopClock.Timer timer;
    private final LoopClock clock;
    private volatile boolean closed;

    public MajordomoClient(ZmtpContext ctx, String brokerEndpoint) {
        this(ctx, brokerEndpoint, MajordomoClientSettings.DEFAULTS);
    }

    public MajordomoClient(ZmtpContext ctx, String brokerEndpoint, MajordomoClientSettings settings) {
        this.ctx = ctx;
        this.endpoint = Objects.requireNonNull(brokerEndpoint);
        this.settings = settings;
        this.version = settings.version();
        this.loop = ctx.group().next();
        this.clock = settings.clock().on(loop);
        this.timeoutNanos = settings.timeout().toNanos();
        this.tracer = settings.tracer();
        this.events = new EventReporter<>(settings.listener(), log, "Majordomo client");
        loop.execute(this::openSocket);
    }

    public MdpVersion version() {
        return version;
    }

    /** Sends a request and waits for its final reply. */
    public MajordomoReply request(String service, byte[]... body) {
        return request(service, null, Arrays.asList(body));
    }

    /** Sends a request of UTF-8 frames and waits for its final reply. */
    public MajordomoReply request(String service, String... body) {
        List<byte[]> frames = new ArrayList<>(body.length);
        for (String b : body) {
            frames.add(b.getBytes(StandardCharsets.UTF_8));
        }
        return request(service, null, frames);
    }

    /**
     * Sends a request and waits for its final reply; under MDP/0.2 each PARTIAL reply is passed to
     * {@code partials} on the calling thread as it comes.
     *
     * @throws MajordomoException when no reply came after every attempt, or the client closed
     */
    public MajordomoReply request(String service, Consumer<MajordomoReply> partials, List<byte[]> body) {
        Objects.requireNonNull(service);
        if (closed) {
            throw new MajordomoException("client closed");
        }
        if (!inUse.compareAndSet(false, true)) {
            throw new IllegalStateException("a MajordomoClient serves one request at a time");
        }
        try {
            Call call = new Call(service, new ArrayList<>(body));
            loop.execute(() -> start(call));
            long wait = timeoutNanos * settings.retries() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                Object o = call.outcomes.poll(wait, TimeUnit.NANOSECONDS);
                if (o == null) {
                    throw new MajordomoException("the client's event loop did not answer");
                }
                if (o instanceof MajordomoException) {
                    throw new MajordomoException(((MajordomoException) o).getMessage());
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
            inUse.set(false);
        }
    }

    // ------------------------------------------------------------------ on the loop

    private void openSocket() {
        if (closed || socket != null) {
            return;
        }
        ZmtpSocket s = ctx.socket(version == MdpVersion.V0_1 ? SocketType.REQ : SocketType.DEALER,
                settings.socketOptions(), loop);
        socket = s;
        s.onMessage(m -> received(s, m));
        s.connect(endpoint);
        if (log.isDebugEnabled()) {
            log.debug("connecting to broker at {}", endpoint);
        }
    }

    private void dropSocket() {
        if (socket != null) {
            socket.close(Duration.ZERO);
            socket = null;
        }
    }

    private void start(Call call) {
        if (closed) {
            call.outcomes.add(new MajordomoException("client closed"));
            return;
        }
        current = call;
        call.attempt = 1;
        transmit(call);
    }

    private void transmit(Call call) {
        openSocket();
        ZmtpMessage m = MdpProtocol.clientRequest(version, false, call.service, call.body);
        if (tracer != null) {
            tracer.trace("I: send request to '" + call.service + "' service:", m);
        }
        socket.send(m);
        call.lastActivity = clock.nanoTime();
        arm(timeoutNanos);
    }

    private void arm(long delayNanos) {
        if (timer != null) {
            timer.cancel();
        }
        timer = clock.schedule(this::timedOut, java.time.Duration.ofNanos(delayNanos));
    }

    private void timedOut() {
        timer = null;
        Call call = current;
        if (call == null || closed) {
            return;
        }
        long left = call.lastActivity + timeoutNanos - clock.nanoTime();
        if (left > 0) {
            arm(left);
            return;
        }
        dropSocket();
        if (call.attempt < settings.retries()) {
            call.attempt++;
            log.warn("no reply from {} for '{}', reconnecting (attempt {} of {})", endpoint, call.service,
                    call.attempt, settings.retries());
            event(MajordomoEvent.Type.RETRYING, call.service, "no reply, reconnecting...");
            transmit(call);
        } else {
            log.warn("no reply from {} for '{}' after {} attempts, abandoning", endpoint, call.service,
                    settings.retries());
            event(MajordomoEvent.Type.REQUEST_FAILED, call.service, "permanent error, abandoning");
            current = null;
            call.outcomes.add(new MajordomoException("no reply from service '" + call.service + "' at " + endpoint
                    + " after " + settings.retries() + " attempts"));
        }
    }

    private void received(ZmtpSocket s, ZmtpMessage m) {
        try {
            if (s != socket || current == null) {
                log.debug("dropping a reply that no request waits for");
                return;
            }
            if (tracer != null) {
                tracer.trace("I: received reply:", m);
            }
            Call call = current;
            MajordomoReply r;
            try {
                r = MdpProtocol.readClientReply(m, version, false);
            } catch (MdpFormatException e) {
                io.zmtp.wire.PeerFailureLog.get(MajordomoClient.class).warn("client drops an invalid reply from the broker: {}", io.zmtp.wire.FrameText.escape(e.getMessage()));
                return;
            }
            if (!r.service().equals(call.service)) {
                io.zmtp.wire.PeerFailureLog.get(MajordomoClient.class).warn("client drops a reply from service '{}' while waiting for '{}'", io.zmtp.wire.FrameText.escape(r.service()), io.zmtp.wire.FrameText.escape(call.service));
                return;
            }
            call.lastActivity = clock.nanoTime();
            if (r.isFinal()) {
                current = null;
                if (timer != null) {
                    timer.cancel();
                    timer = null;
                }
            }
            call.outcomes.add(r);
        } finally {
            m.release();
        }
    }

    private void event(MajordomoEvent.Type type, String service, String detail) {
        events.report(() -> new MajordomoEvent(type, endpoint, service, detail));
    }

    // ------------------------------------------------------------------ closing

    /** Closes the socket; a request in progress fails. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        java.util.concurrent.Callable<ZmtpSocket> shut = () -> {
            if (timer != null) {
                timer.cancel();
            }
            if (current != null) {
                current.outcomes.add(new MajordomoException("client closed"));
                current = null;
            }
            ZmtpSocket s = socket;
            socket = null;
            return s;
        };
        if (loop.inEventLoop()) {
            try {
                ZmtpSocket s = shut.call();
                if (s != null) {
                    s.close(Duration.ZERO);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return;
        }
        if (loop.isShuttingDown()) {
            return;
        }
        ZmtpSocket s;
        try {
            s = LoopCalls.await(loop.submit(shut), Duration.ofSeconds(10));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return;
        }
        if (s != null) {
            s.close(Duration.ZERO).awaitUninterruptibly(10_000);
        }
    }

    /** One request: what to send, how many times it was sent, and where its outcomes go. */
    private static final class Call {
        final String service;
        final List<byte[]> body;
        final BlockingQueue<Object> outcomes = new LinkedBlockingQueue<>();
        int attempt;
        long lastActivity;

        Call(String service, List<byte[]> body) {
            this.service = service;
            this.body = body;
        }
    }
}
