package io.zmtp.patterns.freelance;

import io.zmtp.patterns.kit.BlockingReply;
import io.netty.buffer.Unpooled;
import io.zmtp.patterns.kit.Envelope;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.kit.NoReplyException;
import io.zmtp.patterns.kit.PeerLiveness;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.socket.SocketClosedException;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * The guide's Freelance model 3 client (flcliapi): a background agent on one event loop (no
 * thread of its own) that talks ROUTER to ROUTER with servers known by their endpoints (10/FLP).
 *
 * <ul>
 * <li>{@link #connect} adds a server at any time (any thread): the ROUTER connects to it, and
 *     addresses it by its endpoint, which the server announces as its identity.</li>
 * <li>The servers' liveness is the kit's {@link PeerLiveness}, beating every ping interval (the
 *     guide's 2 s) on the settings' clock: on each beat the agent sends {@code PING} to every
 *     server it knows, and once more as soon as a connection's handshake completes. Anything a
 *     server sends ({@code PONG}, a reply) keeps it alive for the server time to live (6 s); a
 *     server silent that long, or whose connection closed, is dead until it is heard from again.</li>
 * <li>A request ({@code [server, sequence, body...]}) goes to the first live server (live servers
 *     in the order they came alive). When that server dies before it answers, the request goes to
 *     the next live one; with none alive, it waits for one. A request with no reply within the
 *     global timeout (3 s) fails with {@link NoReplyException}, whether or not any server was
 *     ever known. A reply whose sequence number is no pending request's is discarded.</li>
 * </ul>
 *
 * <p>{@link #requestAsync} returns a future; {@link #request} is the blocking facade for a user
 * thread. Many clients share a context's loops.
 */
public final class FreelanceClient extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(FreelanceClient.class);

    private final Settings settings;
    private final ZmtpSocket socket;
    private final EventReporter<FreelanceEvent> events;
    /** The servers by when they were last heard from; beats every ping interval. */
    private final PeerLiveness<Server> liveness;
    // On the loop.
    private final Map<String, Server> servers = new HashMap<>();
    /** Live servers, in the order they came alive: requests go to the first. */
    private final LinkedHashSet<Server> live = new LinkedHashSet<>();
    private final LinkedHashMap<Long, Call> pending = new LinkedHashMap<>();
    private long sequence;
    /** The servers the current beat found silent for their time to live. */
    private final List<Server> silent = new ArrayList<>(0);

    public FreelanceClient(ZmtpContext context, Settings settings, Consumer<? super FreelanceEvent> listener) {
        super(context.group().next(), settings.clock());
        this.settings = Objects.requireNonNull(settings);
        this.events = new EventReporter<>(listener, log, "Freelance client");
        this.socket = context.socket(SocketType.ROUTER, settings.socketOptions.toBuilder().linger(Duration.ZERO)
                .build(), eventLoop());
        // Every server silent for its time to live is expired in the one task of the beat (no batches:
        // a client knows few servers), then the beat has them all die before it pings.
        this.liveness = new PeerLiveness<>(clock(), settings.pingInterval, settings.serverTtl, Integer.MAX_VALUE,
                new PeerLiveness.Owner<>() {
                    @Override
                    public void beat(boolean counted) {
                        tick();
                    }

                    @Override
                    public void expired(Server s) {
                        silent.add(s);
                    }
                });
    }

    public FreelanceClient(ZmtpContext context, Settings settings) {
        this(context, settings, null);
    }

    public Settings settings() {
        return settings;
    }

    @Override
    protected CompletionStage<Void> onStart() {
        socket.onMessage(this::onMessage);
        socket.monitor(this::onSocketEvent);
        liveness.start();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (String e : settings.endpoints) {
            all.add(doConnect(e));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    @Override
    protected CompletionStage<Void> onClose() {
        liveness.stop();
        for (Call c : new ArrayList<>(pending.values())) {
            finish(c);
            c.future.completeExceptionally(new SocketClosedException("client closed"));
        }
        return Futures.of(socket.close(Duration.ZERO));
    }

    /**
     * Adds a server by its endpoint (its identity), at any time, from any thread; the stage
     * completes when the connection is set up (connecting goes on in the background).
     */
    public CompletionStage<Void> connect(String endpoint) {
        Objects.requireNonNull(endpoint);
        CompletableFuture<Void> f = new CompletableFuture<>();
        inLoop(() -> doConnect(endpoint).whenComplete((r, e) -> {
            if (e != null) {
                f.completeExceptionally(e);
            } else {
                f.complete(null);
            }
        }));
        return f;
    }

    private CompletableFuture<Void> doConnect(String endpoint) {
        if (servers.containsKey(endpoint)) {
            return CompletableFuture.completedFuture(null);
        }
        if (isClosing()) {
            return CompletableFuture.failedFuture(new SocketClosedException("client closed"));
        }
        Server s = new Server(endpoint);
        servers.put(endpoint, s);
        return Futures.of(socket.connect(endpoint));
    }

    /**
     * Sends a request (ownership passes) to the first live server; the future completes with the
     * reply's frames after the control frame (the caller owns them), or fails with
     * {@link NoReplyException} after the global timeout. Any thread.
     */
    public CompletableFuture<ZmtpMessage> requestAsync(ZmtpMessage request) {
        return requestAsync(request, settings.globalTimeout);
    }

    /** {@link #requestAsync(ZmtpMessage)} with a timeout of its own. */
    public CompletableFuture<ZmtpMessage> requestAsync(ZmtpMessage request, Duration timeout) {
        Objects.requireNonNull(request);
        if (timeout.isZero() || timeout.isNegative()) {
            request.release();
            throw new IllegalArgumentException("timeout must be positive");
        }
        CompletableFuture<ZmtpMessage> f = new CompletableFuture<>();
        inLoop(() -> submit(request, timeout, f));
        return f;
    }

    /** Sends a request and waits for its reply (the caller owns it); see {@link #requestAsync}. */
    public ZmtpMessage request(ZmtpMessage request) {
        return BlockingReply.request(this, request, this::requestAsync);
    }

    /** {@link #request(ZmtpMessage)} with a timeout of its own. */
    public ZmtpMessage request(ZmtpMessage request, Duration timeout) {
        return BlockingReply.request(this, request, r -> requestAsync(r, timeout));
    }

    /** The servers the agent takes for alive now, first first (for tests and tools). */
    public CompletableFuture<List<String>> liveServers() {
        CompletableFuture<List<String>> f = new CompletableFuture<>();
        inLoop(() -> {
            List<String> l = new ArrayList<>();
            for (Server s : live) {
                l.add(s.endpoint);
            }
            f.complete(l);
        });
        return f;
    }

    private void submit(ZmtpMessage request, Duration timeout, CompletableFuture<ZmtpMessage> f) {
        if (isClosing()) {
            request.release();
            f.completeExceptionally(new SocketClosedException("client closed"));
            return;
        }
        if (pending.size() >= settings.maxPending) {
            request.release();
            f.completeExceptionally(new RejectedExecutionException("too many requests pending ("
                    + settings.maxPending + ")"));
            return;
        }
        Call c = new Call(++sequence, request, timeout, f);
        pending.put(c.seq, c);
        c.timer = clock().schedule(() -> timedOut(c), timeout);
        f.whenComplete((r, e) -> {
            if (f.isCancelled()) {
                inLoop(() -> {
                    if (pending.get(c.seq) == c) {
                        finish(c);
                    }
                });
            }
        });
        dispatch(c);
    }

    /** Sends the call to the first live server, or leaves it waiting for one. */
    private void dispatch(Call c) {
        c.server = null;
        Server s = firstLive();
        if (pending.get(c.seq) != c) {
            return; // done meanwhile
        }
        c.server = s;
        if (s == null) {
            return;
        }
        ZmtpMessage m = c.request.retainedDuplicate();
        m.addFirst(Unpooled.wrappedBuffer(Long.toString(c.seq).getBytes(StandardCharsets.US_ASCII)));
        m.addFirst(Unpooled.wrappedBuffer(s.id));
        socket.send(m);
        events.report(() -> new FreelanceEvent.Sent(c.seq, s.endpoint));
    }

    /** The first live server whose time to live has not run out (those that ran out die now). */
    private Server firstLive() {
        List<Server> dead = new ArrayList<>(0);
        Server first = null;
        for (Iterator<Server> it = live.iterator(); it.hasNext(); ) {
            Server s = it.next();
            if (liveness.isAlive(s)) {
                first = s;
                break;
            }
            it.remove();
            liveness.remove(s);
            dead.add(s);
        }
        for (Server s : dead) {
            died(s, "silent for " + settings.serverTtl.toMillis() + " ms");
        }
        return first;
    }

    /** The beat: the servers it found silent die (all of them gone from the live list first), then every server is pinged. */
    private void tick() {
        if (!silent.isEmpty()) {
            List<Server> dead = new ArrayList<>(silent);
            silent.clear();
            for (Server s : dead) {
                live.remove(s);
            }
            for (Server s : dead) {
                died(s, "silent for " + settings.serverTtl.toMillis() + " ms");
            }
        }
        for (Server s : servers.values()) {
            ping(s);
        }
    }

    private void ping(Server s) {
        socket.send(ZmtpMessage.newMessage().add(Unpooled.wrappedBuffer(s.id)).add(FreelanceServer.PING));
    }

    private void died(Server s, String reason) {
        events.report(() -> new FreelanceEvent.ServerDead(s.endpoint, reason));
        for (Call c : new ArrayList<>(pending.values())) {
            if (c.server == s) {
                events.report(() -> new FreelanceEvent.FailedOver(c.seq, s.endpoint, reason));
                dispatch(c);
            }
        }
    }

    private void heard(Server s) {
        liveness.heard(s);
        if (live.add(s)) {
            events.report(() -> new FreelanceEvent.ServerAlive(s.endpoint));
            for (Call c : new ArrayList<>(pending.values())) {
                if (c.server == null) {
                    dispatch(c);
                }
            }
        }
    }

    private void onSocketEvent(SocketEvent e) {
        Server s = e.endpoint() == null ? null : servers.get(e.endpoint());
        if (s == null || isClosing()) {
            return;
        }
        if (e.type() == SocketEvent.Type.HANDSHAKE_SUCCEEDED) {
            // The peer's routing id is known now (its pipe is attached right after this event):
            // no need to wait for the next tick.
            eventLoop().execute(() -> {
                if (!isClosing()) {
                    ping(s);
                }
            });
        } else if (e.type() == SocketEvent.Type.DISCONNECTED && live.remove(s)) {
            liveness.remove(s);
            died(s, "disconnected");
        }
    }

    private void onMessage(ZmtpMessage msg) {
        String id = msg.size() >= 2 ? msg.frame(0).toString(StandardCharsets.UTF_8) : null;
        Server s = id == null ? null : servers.get(id);
        if (s == null) {
            String detail = events.isActive() ? Envelope.describe(msg) : null;
            events.report(() -> new FreelanceEvent.Discarded("a message from no known server: " + detail));
            msg.release();
            return;
        }
        heard(s);
        if (msg.size() == 2 && FreelanceServer.isText(msg.frame(1), FreelanceServer.PONG)) {
            msg.release();
            return;
        }
        Long seq = BruteForceClient.parse(msg.frame(1));
        Call c = seq == null ? null : pending.get(seq);
        if (c == null) {
            String detail = events.isActive() ? FrameText.describe(msg.frame(1)) : null;
            events.report(() -> new FreelanceEvent.Discarded("a reply to no pending request from "
                    + s.endpoint + ": " + detail));
            msg.release();
            return;
        }
        finish(c);
        msg.dropFirst().dropFirst();
        events.report(() -> new FreelanceEvent.Replied(c.seq, s.endpoint));
        if (!c.future.complete(msg)) {
            msg.release();
        }
    }

    private void timedOut(Call c) {
        if (pending.get(c.seq) != c) {
            return;
        }
        c.timer = null;
        finish(c);
        String where = c.server == null ? (servers.isEmpty() ? "no server known" : "no server alive")
                : "last sent to " + c.server.endpoint;
        NoReplyException e = new NoReplyException("any of " + servers.size() + " servers (" + where + ")", 1,
                c.timeout);
        events.report(() -> new FreelanceEvent.Failed(c.seq, e.getMessage()));
        c.future.completeExceptionally(e);
    }

    private void finish(Call c) {
        pending.remove(c.seq);
        c.request.release();
        if (c.timer != null) {
            c.timer.cancel();
            c.timer = null;
        }
    }

    private static final class Server {
        final String endpoint;
        final byte[] id;

        Server(String endpoint) {
            this.endpoint = endpoint;
            this.id = endpoint.getBytes(StandardCharsets.UTF_8);
        }
    }

    private static final class Call {
        final long seq;
        final ZmtpMessage request;
        final Duration timeout;
        final CompletableFuture<ZmtpMessage> future;
        Server server;
        LoopClock.Timer timer;

        Call(long seq, ZmtpMessage request, Duration timeout, CompletableFuture<ZmtpMessage> future) {
            this.seq = seq;
            this.request = request;
            this.timeout = timeout;
            this.future = future;
        }
    }

    /**
     * Model 3 settings. Defaults: PING every 1000 ms, a server silent for 3000 ms is dead, a
     * request fails after 5000 ms; at most 1000 requests pending. The guide's (2000, 6000, 3000)
     * break its own promise: a request sent to a server that froze fails at 3 s, while the server
     * counts as dead, and the request goes to another, only at 6 s. The request timeout must be
     * longer than the time to live (plus a round trip) for a request to reach a second server.
     */
    public static final class Settings extends FreelanceClientSettings {
        final Duration pingInterval;
        final Duration serverTtl;
        final Duration globalTimeout;
        final int maxPending;

        private Settings(Builder b) {
            super(b);
            pingInterval = b.pingInterval;
            serverTtl = b.serverTtl;
            globalTimeout = b.globalTimeout;
            maxPending = b.maxPending;
        }

        public static Builder builder() {
            return new Builder();
        }

        public Duration pingInterval() {
            return pingInterval;
        }

        public Duration serverTtl() {
            return serverTtl;
        }

        public Duration globalTimeout() {
            return globalTimeout;
        }

        public static final class Builder extends FreelanceClientSettings.Builder<Builder, Settings> {
            private Duration pingInterval = Duration.ofMillis(1000);
            private Duration serverTtl = Duration.ofMillis(3000);
            private Duration globalTimeout = Duration.ofMillis(5000);
            private int maxPending = 1000;

            private Builder() {
            }

            @Override
            protected Builder self() {
                return this;
            }

            /** How often each server is pinged (1000 ms; the guide's PING_INTERVAL is 2000 ms). */
            public Builder pingInterval(Duration d) {
                this.pingInterval = positive(d, "pingInterval");
                return this;
            }

            /** How long a silent server counts as alive (3000 ms; the guide's SERVER_TTL is 6000 ms). */
            public Builder serverTtl(Duration d) {
                this.serverTtl = positive(d, "serverTtl");
                return this;
            }

            /**
             * How long a request may wait for its reply (5000 ms; the guide's GLOBAL_TIMEOUT is
             * 3000 ms): longer than {@link #serverTtl}, or a request sent to a server that froze
             * fails before the server counts as dead and the request can go to another.
             */
            public Builder globalTimeout(Duration d) {
                this.globalTimeout = positive(d, "globalTimeout");
                return this;
            }

            /** Requests that may wait for replies at once before new ones are refused (1000). */
            public Builder maxPending(int n) {
                this.maxPending = atLeast(n, 1, "maxPending");
                return this;
            }

            @Override
            public Settings build() {
                if (serverTtl.compareTo(pingInterval) <= 0) {
                    throw new IllegalArgumentException("serverTtl must be longer than pingInterval");
                }
                return new Settings(this);
            }
        }
    }
}
