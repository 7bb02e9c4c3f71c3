package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.time.LoopClock;
import io.zmtp.patterns.EventReporter;

import io.netty.channel.EventLoop;
import io.zmtp.patterns.majordomo.MdpProtocol.MdpFormatException;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
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
 * streams of requests served at once interleave. The guide notes that exact matching needs a
 * protocol change (numbered requests and replies); this client stays on the wire protocol.
 *
 * <h2>Surviving the broker</h2>
 * The client tracks every request until its final reply, and treats the broker as lost when
 * <ul>
 *   <li>its connection drops (a crashed or restarted broker: the socket reports DISCONNECTED), or</li>
 *   <li>nothing at all comes back for {@link MajordomoClientSettings#timeout() timeout} while
 *       requests are outstanding (a hung broker, lost messages); the timeout must therefore exceed
 *       the longest silence of a healthy service.</li>
 * </ul>
 * It then closes its socket, opens a new one and resends every outstanding request in the order
 * first sent; requests already queued at the lost broker are abandoned there (their replies would
 * go to the old connection). After {@link MajordomoClientSettings#retries() retries} sends without
 * any reply in between, every outstanding request fails with a {@link MajordomoException}. A
 * request may thus run twice at the workers, which MDP assumes are idempotent.
 */
public final class MajordomoAsyncClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MajordomoAsyncClient.class);

    private final ZmtpContext ctx;
    private final String endpoint;
    private final MajordomoClientSettings settings;
    private final MdpVersion version;
    private final EventLoop loop;
    private final long timeoutNanos;
    private final MessageTracer tracer;
    private final EventReporter<MajordomoEvent> events;
    private final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
    private volatile int outstandingView;
    private volatile boolean closed;

    // state on the loop
    private final Map<String, ArrayDeque<Pending>> byService = new HashMap<>();
    private int outstanding;
    private long nextSeq;
    private ZmtpSocket socket;
    private AutoCloseable monitor;
    private LoopClock.Timer timer;
    private final LoopClock clock;
    private long lastActivity;
    private int attempt;

    public MajordomoAsyncClient(ZmtpContext ctx, String brokerEndpoint) {
        this(ctx, brokerEndpoint, MajordomoClientSettings.DEFAULTS);
    }

    public MajordomoAsyncClient(ZmtpContext ctx, String brokerEndpoint, MajordomoClientSettings settings) {
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

    // ------------------------------------------------------------------ API

    /** Sends a request; its replies go to {@link #receive}. Returns at once. */
    public void send(String service, byte[]... body) {
        submit(new Pending(service, Arrays.asList(body), null, null));
    }

    public void send(String service, String... body) {
        submit(new Pending(service, utf8(body), null, null));
    }

    public void send(String service, List<byte[]> body) {
        submit(new Pending(service, new ArrayList<>(body), null, null));
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
            throw new MajordomoException(((MajordomoException) o).getMessage());
        }
        return (MajordomoReply) o;
    }

    /** Sends a request; the future completes with its final reply (on the client's event loop). */
    public CompletableFuture<MajordomoReply> request(String service, byte[]... body) {
        return request(service, null, Arrays.asList(body));
    }

    public CompletableFuture<MajordomoReply> request(String service, String... body) {
        return request(service, null, utf8(body));
    }

    /**
     * Sends a request; {@code partials} (may be null) sees each PARTIAL reply as it comes, then the
     * future completes with the FINAL one. Both run on the client's event loop.
     */
    public CompletableFuture<MajordomoReply> request(String service, Consumer<MajordomoReply> partials,
                                                     List<byte[]> body) {
        CompletableFuture<MajordomoReply> f = new CompletableFuture<>();
        submit(new Pending(service, new ArrayList<>(body), f, partials));
        return f;
    }

    /** The number of requests sent and not yet answered with a final reply. */
    public int outstanding() {
        return outstandingView;
    }

    private static List<byte[]> utf8(String... frames) {
        List<byte[]> l = new ArrayList<>(frames.length);
        for (String f : frames) {
            l.add(f.getBytes(StandardCharsets.UTF_8));
        }
        return l;
    }

    private void submit(Pending p) {
        Objects.requireNonNull(p.service);
        if (closed) {
            p.fail(new MajordomoException("client closed"), received);
            return;
        }
        loop.execute(() -> add(p));
    }

    // ------------------------------------------------------------------ on the loop

    private void add(Pending p) {
        if (closed) {
            p.fail(new MajordomoException("client closed"), received);
            return;
        }
        p.seq = nextSeq++;
        byService.computeIfAbsent(p.service, k -> new ArrayDeque<>()).add(p);
        outstanding++;
        outstandingView = outstanding;
        if (outstanding == 1) {
            attempt = 1;
            lastActivity = clock.nanoTime();
            arm(timeoutNanos);
        }
        openSocket();
        transmit(p);
    }

    private void transmit(Pending p) {
        ZmtpMessage m = MdpProtocol.clientRequest(version, true, p.service, p.body);
        if (tracer != null) {
            tracer.trace("I: send request to '" + p.service + "' service:", m);
        }
        ZmtpSocket s = socket;
        try {
            if (!s.trySend(m)) {
                s.send(m);
            }
        } catch (RuntimeException e) {
            m.release();
            log.debug("async client could not send: {}", e.toString());
        }
    }

    private void openSocket() {
        if (closed || socket != null) {
            return;
        }
        ZmtpSocket s = ctx.socket(SocketType.DEALER, settings.socketOptions(), loop);
        socket = s;
        s.onMessage(m -> received(s, m));
        monitor = s.monitor(e -> {
            if (e.type() == SocketEvent.Type.DISCONNECTED) {
                // not from inside the socket's own callback: replacing it closes it
                loop.execute(() -> {
                    if (s == socket) {
                        connectionDropped();
                    }
                });
            }
        });
        s.connect(endpoint);
    }

    private void dropSocket() {
        if (socket != null) {
            try {
                monitor.close();
            } catch (Exception ignored) {
                // a monitor's close does not fail
            }
            socket.close(Duration.ZERO);
            socket = null;
        }
    }

    private void arm(long delayNanos) {
        if (timer != null) {
            timer.cancel();
        }
        timer = clock.schedule(this::timedOut, Duration.ofNanos(delayNanos));
    }

    private void timedOut() {
        timer = null;
        if (closed || outstanding == 0) {
            return;
        }
        long left = lastActivity + timeoutNanos - clock.nanoTime();
        if (left > 0) {
            arm(left);
            return;
        }
        brokerLost("no reply within " + settings.timeout().toMillis() + " ms");
    }

    /**
     * The connection dropped: resend everything outstanding on a new socket within the current
     * try (tries are counted by timeouts only, so a broker that is down for a while does not use
     * up the budget twice: once for the drop and once for the timeout that follows).
     */
    private void connectionDropped() {
        if (closed) {
            return;
        }
        dropSocket();
        openSocket();
        if (outstanding == 0) {
            log.info("async client: the connection to the broker dropped; nothing outstanding, reconnecting");
            return;
        }
        log.warn("async client: the connection to the broker dropped; resending {} request(s) on a new connection "
                + "(attempt {} of {} goes on)", outstanding, attempt, settings.retries());
        event(MajordomoEvent.Type.RETRYING, "resending " + outstanding
                + " request(s): the connection to the broker dropped (same attempt)");
        resendAll();
    }

    private void resendAll() {
        List<Pending> all = new ArrayList<>(outstanding);
        for (ArrayDeque<Pending> q : byService.values()) {
            all.addAll(q);
        }
        all.sort(Comparator.comparingLong(p -> p.seq));
        for (Pending p : all) {
            transmit(p);
        }
    }

    /** No reply within the timeout: resend everything outstanding on a new socket, or give up. */
    private void brokerLost(String reason) {
        if (closed) {
            return;
        }
        dropSocket();
        if (outstanding == 0) {
            log.info("async client: {}; nothing outstanding, reconnecting", reason);
            openSocket();
            return;
        }
        if (attempt >= settings.retries()) {
            log.warn("async client: {}; {} request(s) abandoned after {} attempts", reason, outstanding,
                    settings.retries());
            event(MajordomoEvent.Type.REQUEST_FAILED, outstanding + " request(s) abandoned: " + reason);
            failAll(new MajordomoException("no reply from " + endpoint + " after " + settings.retries()
                    + " attempts: " + reason));
            openSocket();
            return;
        }
        attempt++;
        log.warn("async client: {}; resending {} request(s) on a new connection (attempt {} of {})", reason,
                outstanding, attempt, settings.retries());
        event(MajordomoEvent.Type.RETRYING, "resending " + outstanding + " request(s): " + reason);
        openSocket();
        resendAll();
        lastActivity = clock.nanoTime();
        arm(timeoutNanos);
    }

    private void failAll(MajordomoException cause) {
        List<Pending> all = new ArrayList<>(outstanding);
        for (ArrayDeque<Pending> q : byService.values()) {
            all.addAll(q);
        }
        all.sort(Comparator.comparingLong(p -> p.seq));
        byService.clear();
        outstanding = 0;
        outstandingView = 0;
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        for (Pending p : all) {
            p.fail(cause, received);
        }
    }

    private void received(ZmtpSocket s, ZmtpMessage m) {
        MajordomoReply r;
        try {
            if (s != socket) {
                return;
            }
            if (tracer != null) {
                tracer.trace("I: received reply:", m);
            }
            try {
                r = MdpProtocol.readClientReply(m, version, true);
            } catch (MdpFormatException e) {
                io.zmtp.wire.PeerFailureLog.get(MajordomoAsyncClient.class).warn("async client drops an invalid reply: {}", io.zmtp.wire.FrameText.escape(e.getMessage()));
                return;
            }
        } finally {
            m.release();
        }
        ArrayDeque<Pending> q = byService.get(r.service());
        if (q == null || q.isEmpty()) {
            log.debug("async client drops a reply from '{}': no request to it is outstanding", r.service());
            return;
        }
        lastActivity = clock.nanoTime();
        attempt = 1;
        if (!r.isFinal()) {
            q.peek().partial(r, received);
            return;
        }
        Pending p = q.poll();
        if (q.isEmpty()) {
            byService.remove(r.service());
        }
        outstanding--;
        outstandingView = outstanding;
        if (outstanding == 0 && timer != null) {
            timer.cancel();
            timer = null;
        }
        p.complete(r, received);
    }

    private void event(MajordomoEvent.Type type, String detail) {
        events.report(() -> new MajordomoEvent(type, endpoint, null, detail));
    }

    // ------------------------------------------------------------------ closing

    /** Closes the socket; every outstanding request fails. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Runnable shut = () -> {
            failAll(new MajordomoException("client closed"));
            dropSocket();
        };
        if (loop.inEventLoop()) {
            shut.run();
            return;
        }
        try {
            loop.submit(shut).awaitUninterruptibly(10_000);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the context was closed under the client: its socket is gone, its loop runs no more
            log.debug("async client closed after its event loop");
            try {
                if (loop.awaitTermination(5, TimeUnit.SECONDS)) {
                    failAll(new MajordomoException("client closed"));
                }
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A request until its final reply: what to resend, and where its replies go. */
    private static final class Pending {
        final String service;
        final List<byte[]> body;
        final CompletableFuture<MajordomoReply> future;
        final Consumer<MajordomoReply> partials;
        long seq;

        Pending(String service, List<byte[]> body, CompletableFuture<MajordomoReply> future,
                Consumer<MajordomoReply> partials) {
            this.service = service;
            this.body = body;
            this.future = future;
            this.partials = partials;
        }

        void partial(MajordomoReply r, BlockingQueue<Object> queue) {
            if (future == null) {
                queue.add(r);
            } else if (partials != null) {
                try {
                    partials.accept(r);
                } catch (RuntimeException e) {
                    log.warn("partial reply listener failed", e);
                }
            }
        }

        void complete(MajordomoReply r, BlockingQueue<Object> queue) {
            if (future == null) {
                queue.add(r);
            } else {
                future.complete(r);
            }
        }

        void fail(MajordomoException e, BlockingQueue<Object> queue) {
            if (future == null) {
                queue.add(e);
            } else {
                future.completeExceptionally(e);
            }
        }
    }
}
