package io.zmtp.patterns.titanic;

import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.LoopClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * A server's claims on a shared store ({@link TitanicStore#shared()}), several Titanic servers
 * on one database: every third of {@link TitanicStore#claimLease()} it renews the leases of the
 * requests this server holds, then claims pending requests nobody holds (never claimed, or their
 * server stopped renewing: it died, or froze for longer than the lease) and hands them to the
 * dispatcher. So a dead server's requests are dispatched by the others within about one lease
 * and a third. A round that claims a full batch is followed at once by another, so a large
 * backlog is taken over in batches rather than one batch per round.
 *
 * <p>A server that froze past its lease may still dispatch requests another server has taken
 * since: the worker may then see a request twice, as Titanic's retries already allow, and the
 * store keeps the first reply ({@link TitanicStore#putReply}).
 *
 * <p>Runs on the server's loop with its clock; the store's futures complete elsewhere and hand
 * their result back to the loop.
 */
final class ClaimKeeper {
    /** Requests claimed per store call. */
    static final int BATCH = 1_000;
    private static final Logger log = LoggerFactory.getLogger(ClaimKeeper.class);

    private final TitanicStore store;
    private final LoopClock clock;
    private final Executor loop;
    private final TitanicDispatcher dispatcher;
    private final EventReporter<TitanicEvent> events;
    private final Duration period;
    private LoopClock.Timer timer;
    private boolean stopped;

    ClaimKeeper(TitanicStore store, LoopClock clock, Executor loop, TitanicDispatcher dispatcher,
                EventReporter<TitanicEvent> events) {
        this.store = store;
        this.clock = clock;
        this.loop = loop;
        this.dispatcher = dispatcher;
        this.events = events;
        this.period = store.claimLease().dividedBy(3);
    }

    /** The first round's claims, oldest first (what a starting server dispatches). */
    static java.util.concurrent.CompletableFuture<List<TitanicStore.PendingRequest>> firstClaims(TitanicStore store) {
        return store.claimRequests(BATCH);
    }

    /** Starts the rounds (loop only). */
    void start(boolean fullFirstBatch) {
        if (fullFirstBatch) {
            round();
        } else {
            schedule();
        }
    }

    void stop() {
        stopped = true;
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    /** Rounds failed one after another (the store unreachable): logged when they begin and end. Loop only. */
    private int failedRounds;

    private void schedule() {
        if (!stopped) {
            timer = clock.schedule(this::round, period);
        }
    }

    private void round() {
        timer = null;
        if (stopped) {
            return;
        }
        StoreCall.of(store::renewClaims)
                .thenCompose(renewed -> store.claimRequests(BATCH))
                .whenComplete((claimed, error) -> loop.execute(() -> claimed(claimed, error)));
    }

    private void claimed(List<TitanicStore.PendingRequest> claimed, Throwable error) {
        if (stopped) {
            return;
        }
        if (error != null) {
            // once when the failures begin (the store logs its outage itself), not every round
            if (failedRounds++ == 0) {
                log.warn("titanic: renewing or claiming requests failed (tried again every {} ms): {}",
                        period.toMillis(), StoreCall.unwrap(error).getMessage());
            } else {
                log.debug("titanic: renewing or claiming requests failed again", StoreCall.unwrap(error));
            }
            schedule();
            return;
        }
        if (failedRounds > 0) {
            log.info("titanic: renewing and claiming requests again, after {} failed round(s)", failedRounds);
            failedRounds = 0;
        }
        if (!claimed.isEmpty()) {
            dispatcher.recover(claimed);
            int n = claimed.size();
            events.report(() -> new TitanicEvent.Claimed(n));
        }
        if (claimed.size() == BATCH) {
            round();
        } else {
            schedule();
        }
    }
}
