package io.zmtp.patterns.titanic;

import io.netty.channel.EventLoop;
import io.zmtp.patterns.kit.Backoff;
import io.zmtp.patterns.majordomo.MajordomoClient;
import io.zmtp.patterns.majordomo.MajordomoException;
import io.zmtp.patterns.majordomo.MajordomoReply;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.Frames;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;

/**
 * A Titanic client (9/TSP over the Majordomo client, the guide's ticlient as an API): a blocking
 * facade for a user thread, never for an event loop. One call at a time, as the
 * {@link MajordomoClient} under it.
 *
 * <ul>
 *   <li>{@link #submit}: {@code titanic.request}; the uuid once the request is stored.</li>
 *   <li>{@link #poll}: {@code titanic.reply}; the reply, or empty while it is pending (300).</li>
 *   <li>{@link #close}: {@code titanic.close}.</li>
 *   <li>{@link #call}: all three, with retries, within a deadline.</li>
 * </ul>
 * A 400 answer is a {@link TitanicException} that is not {@link TitanicException#retryable()
 * retryable}; a 500 answer, a malformed answer or no answer at all (the Majordomo client's tries
 * used up) is a retryable one.
 */
public final class TitanicClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TitanicClient.class);

    private final MajordomoClient client;
    private final TitanicClientSettings settings;
    private final EventLoop loop;
    private final LoopClock clock;

    public TitanicClient(ZmtpContext ctx, String brokerEndpoint) {
        this(ctx, brokerEndpoint, TitanicClientSettings.DEFAULTS);
    }

    public TitanicClient(ZmtpContext ctx, String brokerEndpoint, TitanicClientSettings settings) {
        this.settings = Objects.requireNonNull(settings);
        this.client = new MajordomoClient(ctx, brokerEndpoint, settings.majordomo());
        this.loop = client.eventLoop();
        this.clock = settings.clock().on(loop);
    }

    /** Opens the Majordomo client's socket and connects (in the background). */
    public CompletionStage<Void> start() {
        return client.start();
    }

    @Override
    public void close() {
        client.close();
    }

    // ------------------------------------------------------------------ the three TSP calls

    /** Stores a request for {@code service}; returns its uuid (32 hex characters). */
    public String submit(String service, Frames body) {
        Objects.requireNonNull(service);
        Frames answer = ok(TitanicServer.REQUEST, body.push(service.getBytes(StandardCharsets.UTF_8)), false);
        if (answer.size() < 1) {
            throw new TitanicException("titanic.request answered 200 without a uuid", null);
        }
        String uuid = new String(answer.frame(0), StandardCharsets.ISO_8859_1);
        if (!TitanicIds.isValid(uuid)) {
            throw new TitanicException("titanic.request answered an invalid uuid: " + FrameText.escape(uuid), null);
        }
        return uuid;
    }

    public String submit(String service, String... body) {
        return submit(service, Frames.ofStrings(body));
    }

    /** The reply to {@code uuid} if it is there; empty while pending (300). */
    public Optional<Frames> poll(String uuid) {
        return Optional.ofNullable(ok(TitanicServer.REPLY, Frames.of(uuid.getBytes(StandardCharsets.US_ASCII)), true));
    }

    /** Tells Titanic the reply was handled: it forgets the request (200 even for an unknown uuid). */
    public void close(String uuid) {
        ok(TitanicServer.CLOSE, Frames.of(uuid.getBytes(StandardCharsets.US_ASCII)), false);
    }

    /**
     * The guide's ticlient flow as one call: submits (again after a 500 or no answer), polls until
     * the reply is there (100 ms, then longer pauses after each 300), closes, returns the reply.
     * Retryable failures are retried after {@link TitanicClientSettings#retryDelay()} until
     * {@code deadline} has passed; a 400 ends it at once. A close that fails after the reply came
     * is logged, not thrown (the reply stays until retention deletes it).
     *
     * @throws TitanicException 400, or the deadline passed (the last failure as its cause)
     */
    public Frames call(String service, Frames body, Duration deadline) {
        long end = clock.nanoTime() + deadline.toNanos();
        String uuid = retrying(end, () -> submit(service, body));
        // The guide's pause between polls, doubling after each 300 up to the longest.
        Backoff pause = new Backoff(settings.pollDelay(), settings.pollDelayMax());
        Frames reply;
        while (true) {
            pauseUntil(end, pause.next());
            Optional<Frames> r = retrying(end, () -> poll(uuid));
            if (r.isPresent()) {
                reply = r.get();
                break;
            }
            if (clock.nanoTime() - end >= 0) {
                throw new TitanicException("no reply to " + uuid + " within " + deadline.toMillis() + " ms",
                        TitanicStatus.PENDING);
            }
        }
        try {
            retrying(end, () -> {
                close(uuid);
                return null;
            });
        } catch (TitanicException e) {
            log.warn("titanic client: closing {} failed ({}); the reply stays stored until retention", uuid, e.getMessage());
        }
        return reply;
    }

    public Frames call(String service, Duration deadline, String... body) {
        return call(service, Frames.ofStrings(body), deadline);
    }

    // ------------------------------------------------------------------ inside

    private interface Call<T> {
        T run();
    }

    /**
     * The call until it succeeds, fails for good or the deadline passes; after each retryable
     * failure a pause that doubles from retryDelay up to retryDelayMax, so a client waiting out an
     * outage of Titanic or its store asks ever more rarely. One line when the failures begin
     * (DEBUG after it), one when the call succeeds after them.
     */
    private <T> T retrying(long end, Call<T> call) {
        Backoff pause = new Backoff(settings.retryDelay(), settings.retryDelayMax());
        int failures = 0;
        while (true) {
            try {
                T result = call.run();
                if (failures > 0) {
                    log.info("titanic client: answered after {} failed tr{}", failures, failures == 1 ? "y" : "ies");
                }
                return result;
            } catch (TitanicException e) {
                if (!e.retryable() || clock.nanoTime() - end >= 0 || Thread.currentThread().isInterrupted()) {
                    throw e;
                }
                failures++;
                if (failures == 1) {
                    log.warn("titanic client: {}; trying again, pausing {} ms doubling up to {} ms", e.getMessage(),
                            pause.peek().toMillis(), pause.max().toMillis());
                } else {
                    log.debug("titanic client: {}, trying again", e.getMessage());
                }
                pauseUntil(end, pause.next());
            }
        }
    }

    /**
     * One TSP call: the body after the status frame when it is 200; null for 300 when
     * {@code pendingAllowed}; else a {@link TitanicException}.
     */
    private Frames ok(String tsp, Frames frames, boolean pendingAllowed) {
        MajordomoReply r;
        try {
            r = client.request(tsp, null, frames);
        } catch (MajordomoException e) {
            throw new TitanicException(tsp + ": " + e.getMessage(), null, e);
        }
        Frames body = r.body();
        if (r.isRefused()) {
            throw new TitanicException(tsp + ": the broker refused the request: " + FrameText.escape(r.refusalReason()), null);
        }
        TitanicStatus status = body.isEmpty() ? null : TitanicStatus.parse(body.frame(0));
        if (status == null) {
            throw new TitanicException(tsp + ": an answer without a valid status frame", null);
        }
        switch (status) {
            case OK:
                return body.dropFirst(1);
            case PENDING:
                if (pendingAllowed) {
                    return null;
                }
                throw new TitanicException(tsp + " answered 300", status);
            case UNKNOWN:
                throw new TitanicException(tsp + " answered 400 (unknown or invalid, not retrying)", status);
            default:
                throw new TitanicException(tsp + " answered 500 (server error, retry later)", status);
        }
    }

    /** Waits {@code delay} on the clock (at most until {@code end}), on the calling thread. */
    private void pauseUntil(long end, Duration delay) {
        long left = end - clock.nanoTime();
        long nanos = Math.max(0, Math.min(delay.toNanos(), left));
        if (nanos == 0) {
            return;
        }
        if (loop.inEventLoop()) {
            throw new IllegalStateException("TitanicClient blocks: call it from a user thread, not its event loop");
        }
        CompletableFuture<Void> woken = new CompletableFuture<>();
        try {
            loop.execute(() -> clock.schedule(() -> woken.complete(null), Duration.ofNanos(nanos)));
        } catch (RejectedExecutionException e) {
            throw new TitanicException("client closed", null, e);
        }
        try {
            woken.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TitanicException("interrupted", null, e);
        } catch (ExecutionException e) {
            throw new TitanicException("pause failed", null, e.getCause());
        }
    }

    @Override
    public String toString() {
        return "TitanicClient" + Arrays.asList(client);
    }
}
