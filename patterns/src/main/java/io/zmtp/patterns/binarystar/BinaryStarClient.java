package io.zmtp.patterns.binarystar;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.ReplyJudge;
import io.zmtp.patterns.kit.RequesterClient;
import io.zmtp.patterns.kit.Failover;
import io.zmtp.patterns.kit.RequestEvent;
import io.zmtp.patterns.kit.RetryPolicy;
import io.zmtp.patterns.kit.RetryingRequester;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The guide's Binary Star client (bstarcli): requests on a REQ socket to one server of the
 * pair; a request without a reply within the timeout closes the socket, and after the settle
 * delay (time for the pair to fail over) goes to the other server on a new socket. The server
 * that last answered stays the current one. Built on the kit's {@link RetryingRequester} with a
 * {@link Failover} of the two endpoints.
 *
 * <p>A reactor on one loop ({@link #requestAsync}) with a blocking facade for a user thread
 * ({@link #request}). Events are the requester's ({@link RequestEvent}; a failover is
 * {@link RequestEvent.FailingOver}); {@link #stats()} counts timeouts and the longest time a
 * request took across a failover.
 */
public final class BinaryStarClient extends RequesterClient {
    private static final Logger log = LoggerFactory.getLogger(BinaryStarClient.class);

    /**
     * What the client has seen so far.
     *
     * @param replies requests answered
     * @param timeouts tries that got no reply in time (each one a failover, or the end of a request)
     * @param failedOver requests answered only after at least one failover
     * @param longestFailover the longest time from a request's first send to its reply, among
     *        those that failed over (zero if none did)
     */
    public record Stats(long replies, long timeouts, long failedOver, Duration longestFailover) {
    }

    private final Settings settings;
    private volatile Stats stats = new Stats(0, 0, 0, Duration.ZERO);
    private long firstSent; // on the loop: when the request in flight was first sent

    public BinaryStarClient(ZmtpContext context, Settings settings, Consumer<? super RequestEvent> listener) {
        super(context.group().next(), settings.clock());
        this.settings = Objects.requireNonNull(settings);
        SocketOptions options = settings.socketOptions.toBuilder().linger(Duration.ZERO).build();
        Consumer<RequestEvent> counting = this::count;
        requester(new RetryingRequester<>(clock(), settings.policy,
                new Failover(settings.endpoints, settings.settle),
                () -> context.socket(SocketType.REQ, options, eventLoop()), ReplyJudge.Verdict::done,
                new EventReporter<>(listener == null ? counting : counting.andThen(listener), log, "Binary Star client")));
    }

    public Settings settings() {
        return settings;
    }

    /** What the client has seen so far (any thread). */
    public Stats stats() {
        return stats;
    }

    private void count(RequestEvent e) {
        Stats s = stats;
        if (e instanceof RequestEvent.Sent sent && sent.attempt() == 1) {
            firstSent = clock().nanoTime();
        } else if (e instanceof RequestEvent.FailingOver || e instanceof RequestEvent.Failed) {
            stats = new Stats(s.replies(), s.timeouts() + 1, s.failedOver(), s.longestFailover());
        } else if (e instanceof RequestEvent.Replied r) {
            if (r.attempt() > 1) {
                Duration took = clock().since(firstSent);
                stats = new Stats(s.replies() + 1, s.timeouts(), s.failedOver() + 1,
                        took.compareTo(s.longestFailover()) > 0 ? took : s.longestFailover());
            } else {
                stats = new Stats(s.replies() + 1, s.timeouts(), s.failedOver(), s.longestFailover());
            }
        }
    }

    /**
     * A Binary Star client's settings; the guide's by default: tcp://localhost:5001 then
     * tcp://localhost:5002, 1000 ms per try, 2000 ms settle delay. The guide's client tries for
     * ever; here a request fails after {@link Builder#retries} tries (6: three times round the pair).
     */
    public static final class Settings extends ComponentSettings {
        final List<String> endpoints;
        final RetryPolicy policy;
        final Duration settle;
        final SocketOptions socketOptions;

        private Settings(Builder b) {
            super(b);
            endpoints = List.of(b.primary, b.backup);
            policy = b.policy;
            settle = b.settle;
            socketOptions = b.socketOptions;
        }

        public static Builder builder() {
            return new Builder();
        }

        public List<String> endpoints() {
            return endpoints;
        }

        public RetryPolicy policy() {
            return policy;
        }

        public Duration settle() {
            return settle;
        }

        public static final class Builder extends ComponentSettings.Builder<Builder, Settings> {
            /** The guide's REQUEST_TIMEOUT, SETTLE_DELAY, and a try budget. */
            public static final RetryPolicy DEFAULT_POLICY = RetryPolicy.DEFAULT.withTimeout(Duration.ofMillis(1000))
                    .withTries(6);
            public static final Duration DEFAULT_SETTLE = Duration.ofMillis(2000);

            private String primary = "tcp://localhost:5001";
            private String backup = "tcp://localhost:5002";
            private RetryPolicy policy = DEFAULT_POLICY;
            private Duration settle = DEFAULT_SETTLE;
            private SocketOptions socketOptions = ComponentSettings.SOCKET_OPTIONS;

            private Builder() {
            }

            @Override
            protected Builder self() {
                return this;
            }

            /** The server tried first (tcp://localhost:5001). */
            public Builder primary(String endpoint) {
                this.primary = Objects.requireNonNull(endpoint);
                return this;
            }

            /** The server tried after the first timeout (tcp://localhost:5002). */
            public Builder backup(String endpoint) {
                this.backup = Objects.requireNonNull(endpoint);
                return this;
            }

            /** How long one try waits for its reply (1000 ms). */
            public Builder timeout(Duration timeout) {
                this.policy = policy.withTimeout(timeout);
                return this;
            }

            /** Tries per request, the first included, before it fails (6). */
            public Builder retries(int tries) {
                this.policy = policy.withTries(tries);
                return this;
            }

            /** How long to wait after a timeout before connecting to the other server (2000 ms). */
            public Builder settle(Duration delay) {
                Objects.requireNonNull(delay);
                if (delay.isNegative()) {
                    throw new IllegalArgumentException("settle delay must not be negative");
                }
                this.settle = delay;
                return this;
            }

            /** Options of the REQ sockets (security, limits); linger is always 0. */
            public Builder socketOptions(SocketOptions options) {
                this.socketOptions = Objects.requireNonNull(options);
                return this;
            }

            @Override
            public Settings build() {
                return new Settings(this);
            }
        }
    }
}
