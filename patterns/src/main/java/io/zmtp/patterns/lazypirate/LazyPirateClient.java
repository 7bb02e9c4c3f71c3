package io.zmtp.patterns.lazypirate;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.NoReplyException;
import io.zmtp.patterns.kit.ReplyJudge;
import io.zmtp.patterns.kit.RequestEvent;
import io.zmtp.patterns.kit.RequesterClient;
import io.zmtp.patterns.kit.RetryPolicy;
import io.zmtp.patterns.kit.RetryingRequester;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The guide's Lazy Pirate client: reliable request-reply done by the client alone, a
 * {@link RetryingRequester} over REQ sockets.
 *
 * <p>A request goes out on a REQ socket and a timer starts. If the reply comes in time, the
 * request is done. If not, the socket is closed at once (linger 0: whatever it still held is
 * dropped), a new one is opened and the request sent again; after the last try the request
 * fails with {@link NoReplyException}. The socket is kept between requests as long as replies
 * come.
 *
 * <p>Replies are matched to their request explicitly: only the socket of the current try may
 * answer it, so a late reply to an earlier try (which could only arrive on that try's closed
 * socket) is never taken for the reply to a later one. With {@link Settings.Builder#correlate
 * correlate} on, every request also carries a request id in its envelope (ZMQ_REQ_CORRELATE),
 * and a reply carrying another id is dropped: that also covers replies routed to a new socket
 * that reuses a fixed identity, and a reply duplicated by something in between.
 *
 * <p>It is a reactor: the socket, its handler and the timers run on one event loop.
 * {@link #requestAsync} queues a request and returns at once; requests are sent one at a time,
 * in order (a REQ socket alternates). {@link #request} is a blocking facade for a user thread.
 * What the client does is reported to the listener ({@link RequestEvent}), on the event loop.
 */
public final class LazyPirateClient extends RequesterClient {
    private static final Logger log = LoggerFactory.getLogger(LazyPirateClient.class);

    private final Settings settings;

    public LazyPirateClient(ZmtpContext context, Settings settings, Consumer<? super RequestEvent> listener) {
        super(context.group().next(), settings.clock());
        this.settings = Objects.requireNonNull(settings);
        SocketOptions options = settings.socketOptions.toBuilder().linger(Duration.ZERO)
                .reqCorrelate(settings.correlate).build();
        requester(new RetryingRequester<>(clock(), settings.policy, settings.endpoint,
                () -> context.socket(SocketType.REQ, options, eventLoop()), ReplyJudge.Verdict::done,
                new EventReporter<>(listener, log, "Lazy Pirate")));
    }

    public LazyPirateClient(ZmtpContext context, Settings settings) {
        this(context, settings, null);
    }

    public Settings settings() {
        return settings;
    }

    /**
     * What a Lazy Pirate client needs to know. Defaults follow the guide: the server at
     * tcp://localhost:5555, 2500 ms per try, 3 tries.
     */
    public static final class Settings extends ComponentSettings {
        public static final Settings DEFAULTS = builder().build();

        final String endpoint;
        final RetryPolicy policy;
        final boolean correlate;
        final SocketOptions socketOptions;

        private Settings(Builder b) {
            super(b);
            endpoint = b.endpoint;
            policy = b.policy;
            correlate = b.correlate;
            socketOptions = b.socketOptions;
        }

        public static Builder builder() {
            return new Builder();
        }

        public String endpoint() {
            return endpoint;
        }

        public Duration timeout() {
            return policy.timeout();
        }

        public int retries() {
            return policy.tries();
        }

        public RetryPolicy policy() {
            return policy;
        }

        public boolean correlate() {
            return correlate;
        }

        public static final class Builder extends ComponentSettings.Builder<Builder, Settings> {
            private String endpoint = "tcp://localhost:5555";
            private RetryPolicy policy = RetryPolicy.DEFAULT;
            private boolean correlate;
            private SocketOptions socketOptions = ComponentSettings.SOCKET_OPTIONS;

            private Builder() {
            }

            @Override
            protected Builder self() {
                return this;
            }

            /** The server (or queue) to connect to. */
            public Builder endpoint(String endpoint) {
                this.endpoint = Objects.requireNonNull(endpoint);
                return this;
            }

            /** How long one try waits for the reply (the guide's REQUEST_TIMEOUT, 2500 ms). */
            public Builder timeout(Duration timeout) {
                this.policy = policy.withTimeout(timeout);
                return this;
            }

            /**
             * How many times a request is sent before it fails (the guide's REQUEST_RETRIES, 3:
             * the first try and two more).
             */
            public Builder retries(int tries) {
                if (tries < 1) {
                    throw new IllegalArgumentException("retries must be at least 1");
                }
                this.policy = policy.withTries(tries);
                return this;
            }

            /**
             * Whether each request carries a request id before its delimiter, and a reply with
             * another id is dropped (ZMQ_REQ_CORRELATE). Off by default: REP servers, libzmq's
             * and ours, and our queues pass it back, but the guide's Paranoid Pirate workers
             * expect exactly three frames and reject such requests.
             */
            public Builder correlate(boolean on) {
                this.correlate = on;
                return this;
            }

            /**
             * Options of the REQ sockets (security, reconnect interval, limits). Linger is always
             * 0. A fixed identity is only allowed with {@link #correlate}: a new socket with the
             * old identity could otherwise be handed the late reply to an earlier try by a queue.
             */
            public Builder socketOptions(SocketOptions options) {
                this.socketOptions = Objects.requireNonNull(options);
                return this;
            }

            /** Requests that may wait behind the one in flight before new ones are refused (1000). */
            public Builder maxWaitingRequests(int n) {
                this.policy = policy.withMaxWaiting(n);
                return this;
            }

            @Override
            public Settings build() {
                if (socketOptions.identity().length > 0 && !correlate) {
                    throw new IllegalArgumentException("a fixed identity needs correlate(true): a queue would route"
                            + " the late reply to an earlier try to the new socket that reuses the identity");
                }
                return new Settings(this);
            }
        }
    }
}
