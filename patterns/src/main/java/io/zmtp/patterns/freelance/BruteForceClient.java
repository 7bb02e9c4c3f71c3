package io.zmtp.patterns.freelance;

import io.zmtp.patterns.kit.BlockingReply;
import io.netty.buffer.ByteBuf;
import io.zmtp.patterns.kit.Envelope;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.kit.NoReplyException;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.socket.SocketClosedException;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * The guide's Freelance model 2, brute force: one DEALER connected to every server; each request
 * gets a sequence number and goes to every server at once ({@code ["", sequence, body...]}, one
 * copy per server, spread by the DEALER over the connected ones); the first reply that carries
 * the request's sequence number completes it, and later replies (to it or to older requests) are
 * discarded. A request with no reply within the global timeout (the guide's 2500 ms, a timer of
 * the settings' clock) fails with {@link NoReplyException}. When a server's connection closes,
 * the copies it held are lost: every pending request goes out once more. Requests may overlap. Runs on one
 * event loop; {@link #request} is the blocking facade for user threads.
 */
public final class BruteForceClient extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(BruteForceClient.class);

    private final Settings settings;
    private final ZmtpSocket socket;
    private final EventReporter<FreelanceEvent> events;
    // On the loop.
    private final Map<Long, Call> pending = new HashMap<>();
    private long sequence;

    public BruteForceClient(ZmtpContext context, Settings settings, Consumer<? super FreelanceEvent> listener) {
        super(context.group().next(), settings.clock());
        this.settings = Objects.requireNonNull(settings);
        this.events = new EventReporter<>(listener, log, "Freelance model 2 client");
        this.socket = context.socket(SocketType.DEALER, settings.socketOptions.toBuilder().linger(Duration.ZERO)
                .build(), eventLoop());
    }

    public BruteForceClient(ZmtpContext context, Settings settings) {
        this(context, settings, null);
    }

    @Override
    protected CompletionStage<Void> onStart() {
        socket.onMessage(this::onReply);
        socket.monitor(this::onSocketEvent);
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (String e : settings.endpoints) {
            all.add(Futures.of(socket.connect(e)));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    @Override
    protected CompletionStage<Void> onClose() {
        for (Call c : new ArrayList<>(pending.values())) {
            finish(c);
            c.future.completeExceptionally(new SocketClosedException("client closed"));
        }
        return Futures.of(socket.close(Duration.ZERO));
    }

    /**
     * Sends a request (ownership passes) to every server; the future completes with the first
     * reply's frames after the sequence number (the caller owns them), or fails with
     * {@link NoReplyException} after the global timeout.
     */
    public CompletableFuture<ZmtpMessage> requestAsync(ZmtpMessage request) {
        CompletableFuture<ZmtpMessage> f = new CompletableFuture<>();
        inLoop(() -> send(request, f));
        return f;
    }

    /** Sends a request and waits for its reply (the caller owns it); see {@link #requestAsync}. */
    public ZmtpMessage request(ZmtpMessage request) {
        return BlockingReply.request(this, request, this::requestAsync);
    }

    private void send(ZmtpMessage request, CompletableFuture<ZmtpMessage> f) {
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
        long seq = ++sequence;
        Call c = new Call(seq, request, f);
        pending.put(seq, c);
        c.timer = clock().schedule(() -> timedOut(c), settings.globalTimeout);
        // One copy per server while servers are connected; with none, one copy that waits for the
        // first to come (a request is not multiplied in a socket nobody reads).
        int copies = socket.peerCount() == 0 ? 1 : settings.endpoints.size();
        for (int i = 0; i < copies; i++) {
            sendCopy(c);
        }
        events.report(() -> new FreelanceEvent.Sent(seq, copies + (copies == 1 ? " server" : " servers")));
        f.whenComplete((r, e) -> {
            if (f.isCancelled()) {
                inLoop(() -> {
                    if (pending.get(seq) == c) {
                        finish(c);
                    }
                });
            }
        });
    }

    private void sendCopy(Call c) {
        ZmtpMessage m = c.request.retainedDuplicate();
        m.addFirst(io.netty.buffer.Unpooled.wrappedBuffer(Long.toString(c.seq).getBytes(StandardCharsets.US_ASCII)));
        m.addFirst(io.netty.buffer.Unpooled.EMPTY_BUFFER);
        socket.send(m);
    }

    /**
     * A server's connection closed: the copies it held are lost, so every pending request goes
     * out once more (to a connected server, or to the first that connects).
     */
    private void onSocketEvent(SocketEvent e) {
        if (e.type() != SocketEvent.Type.DISCONNECTED || isClosing()) {
            return;
        }
        for (Call c : new ArrayList<>(pending.values())) {
            events.report(() -> new FreelanceEvent.FailedOver(c.seq, e.endpoint() == null ? "a server" : e.endpoint(),
                    "disconnected"));
            sendCopy(c);
        }
    }

    private void onReply(ZmtpMessage msg) {
        Call c = null;
        if (msg.size() >= 2 && msg.frame(0).readableBytes() == 0) {
            Long seq = parse(msg.frame(1));
            c = seq == null ? null : pending.get(seq);
        }
        if (c == null) {
            String detail = events.isActive() ? Envelope.describe(msg) : null;
            events.report(() -> new FreelanceEvent.Discarded("a reply to no pending request: " + detail));
            msg.release();
            return;
        }
        finish(c);
        msg.dropFirst().dropFirst();
        long seq = c.seq;
        events.report(() -> new FreelanceEvent.Replied(seq, "a server"));
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
        NoReplyException e = new NoReplyException("any of " + settings.endpoints.size() + " servers", 1,
                settings.globalTimeout);
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

    static Long parse(ByteBuf frame) {
        int n = frame.readableBytes();
        if (n == 0 || n > 19) {
            return null;
        }
        long v = 0;
        for (int i = 0; i < n; i++) {
            int d = frame.getByte(frame.readerIndex() + i) - '0';
            if (d < 0 || d > 9) {
                return null;
            }
            v = v * 10 + d;
        }
        return v;
    }

    private static final class Call {
        final long seq;
        final ZmtpMessage request;
        final CompletableFuture<ZmtpMessage> future;
        LoopClock.Timer timer;

        Call(long seq, ZmtpMessage request, CompletableFuture<ZmtpMessage> future) {
            this.seq = seq;
            this.request = request;
            this.future = future;
        }
    }

    /** Model 2 settings: the servers, the global timeout (the guide's 2500 ms), pending requests. */
    public static final class Settings extends FreelanceClientSettings {
        final Duration globalTimeout;
        final int maxPending;

        private Settings(Builder b) {
            super(b);
            globalTimeout = b.globalTimeout;
            maxPending = b.maxPending;
        }

        public static Builder builder() {
            return new Builder();
        }

        public Duration globalTimeout() {
            return globalTimeout;
        }

        public static final class Builder extends FreelanceClientSettings.Builder<Builder, Settings> {
            private Duration globalTimeout = Duration.ofMillis(2500);
            private int maxPending = 1000;

            private Builder() {
            }

            @Override
            protected Builder self() {
                return this;
            }

            /** How long a request waits for its first reply (the guide's GLOBAL_TIMEOUT, 2500 ms). */
            public Builder globalTimeout(Duration timeout) {
                this.globalTimeout = positive(timeout, "timeout");
                return this;
            }

            /** Requests that may wait for replies at once before new ones are refused (1000). */
            public Builder maxPending(int n) {
                this.maxPending = atLeast(n, 1, "maxPending");
                return this;
            }

            @Override
            public Settings build() {
                requireEndpoints();
                return new Settings(this);
            }
        }
    }
}
