package io.zmtp.patterns.freelance;

import io.zmtp.patterns.kit.BlockingReply;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.kit.NoReplyException;
import io.zmtp.patterns.kit.RequestEvent;
import io.zmtp.patterns.kit.RetryPolicy;
import io.zmtp.patterns.kit.ReplyJudge;
import io.zmtp.patterns.kit.RetryingRequester;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The guide's Freelance model 1, simple retry and failover: a request goes to the first server
 * with a timeout; without a reply in time it goes to the next, and so on; after the last server it
 * fails with {@link NoReplyException}. With a single server the request is retried on that one,
 * up to the try budget (the Lazy Pirate client). Each server has its own {@link RetryingRequester}
 * (a REQ socket per try, closed with linger 0 on a timeout), so a late reply from a server given
 * up on is never taken for another's. Runs on one event loop; {@link #request} is the blocking
 * facade for user threads.
 */
public final class FailoverClient extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(FailoverClient.class);

    private final Settings settings;
    private final List<RetryingRequester<ZmtpMessage>> requesters = new ArrayList<>();
    private final EventReporter<FreelanceEvent> events;
    private long sequence; // on the loop

    public FailoverClient(ZmtpContext context, Settings settings, Consumer<? super FreelanceEvent> listener) {
        super(context.group().next(), settings.clock());
        this.settings = Objects.requireNonNull(settings);
        this.events = new EventReporter<>(listener, log, "Freelance model 1 client");
        SocketOptions options = settings.socketOptions.toBuilder().linger(Duration.ZERO).build();
        RetryPolicy policy = RetryPolicy.DEFAULT.withTimeout(settings.timeout)
                .withTries(settings.endpoints.size() == 1 ? settings.retries : 1);
        for (String endpoint : settings.endpoints) {
            requesters.add(new RetryingRequester<>(clock(), policy, endpoint,
                    () -> context.socket(SocketType.REQ, options, eventLoop()), ReplyJudge.Verdict::done,
                    new EventReporter<RequestEvent>(null, log, "Freelance model 1 client")));
        }
    }

    public FailoverClient(ZmtpContext context, Settings settings) {
        this(context, settings, null);
    }

    @Override
    protected CompletionStage<Void> onStart() {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (RetryingRequester<ZmtpMessage> r : requesters) {
            all.add(Futures.of(r.start()));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    @Override
    protected CompletionStage<Void> onClose() {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (RetryingRequester<ZmtpMessage> r : requesters) {
            all.add(Futures.of(r.close()));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    /**
     * Sends a request (ownership passes) to the servers in turn; the future completes with the
     * reply (the caller owns it) or fails with {@link NoReplyException} after the last server.
     */
    public CompletableFuture<ZmtpMessage> requestAsync(ZmtpMessage request) {
        CompletableFuture<ZmtpMessage> result = new CompletableFuture<>();
        inLoop(() -> attempt(request, 0, result, ++sequence));
        return result;
    }

    private void attempt(ZmtpMessage request, int server, CompletableFuture<ZmtpMessage> result, long seq) {
        String endpoint = settings.endpoints.get(server);
        events.report(() -> new FreelanceEvent.Sent(seq, endpoint));
        requesters.get(server).submit(request.retainedDuplicate()).whenComplete((reply, e) -> {
            if (e == null) {
                request.release();
                events.report(() -> new FreelanceEvent.Replied(seq, endpoint));
                if (!result.complete(reply)) {
                    reply.release();
                }
            } else if (e instanceof NoReplyException && server + 1 < settings.endpoints.size() && !result.isDone()) {
                events.report(() -> new FreelanceEvent.FailedOver(seq, endpoint, e.getMessage()));
                attempt(request, server + 1, result, seq);
            } else {
                request.release();
                Throwable cause = e instanceof NoReplyException
                        ? new NoReplyException(describe(), settings.endpoints.size() == 1 ? settings.retries
                                : settings.endpoints.size(), settings.timeout)
                        : e;
                events.report(() -> new FreelanceEvent.Failed(seq, cause.getMessage()));
                result.completeExceptionally(cause);
            }
        });
    }

    private String describe() {
        return settings.endpoints.size() == 1 ? settings.endpoints.get(0)
                : "any of " + settings.endpoints.size() + " servers";
    }

    /** Sends a request and waits for its reply (the caller owns it); see {@link #requestAsync}. */
    public ZmtpMessage request(ZmtpMessage request) {
        return BlockingReply.request(this, request, this::requestAsync);
    }

    /**
     * Model 1 settings: the servers (at least one), the time a server has to answer (the guide's
     * 1000 ms), the tries on a single server (the guide's 3; with several servers each gets one).
     */
    public static final class Settings extends FreelanceClientSettings {
        final Duration timeout;
        final int retries;

        private Settings(Builder b) {
            super(b);
            timeout = b.timeout;
            retries = b.retries;
        }

        public static Builder builder() {
            return new Builder();
        }

        public Duration timeout() {
            return timeout;
        }

        public int retries() {
            return retries;
        }

        public static final class Builder extends FreelanceClientSettings.Builder<Builder, Settings> {
            private Duration timeout = Duration.ofMillis(1000);
            private int retries = 3;

            private Builder() {
            }

            @Override
            protected Builder self() {
                return this;
            }

            /** How long a server has to answer (the guide's REQUEST_TIMEOUT, 1000 ms). */
            public Builder timeout(Duration timeout) {
                this.timeout = positive(timeout, "timeout");
                return this;
            }

            /** Tries on a single server (the guide's MAX_RETRIES, 3). */
            public Builder retries(int tries) {
                this.retries = atLeast(tries, 1, "retries");
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
