package io.zmtp.patterns.titanic;

import io.zmtp.wire.Frames;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Where Titanic keeps requests and replies (9/TSP): the durable half of the pattern.
 *
 * <p>Every method may be called from any thread (the Titanic server calls it from its event
 * loop) and never blocks the caller: the work runs on the store's own thread(s) and the returned
 * future completes there. A caller on an event loop hops back to its loop before touching its
 * state.
 *
 * <p>Promises an implementation documents and tests:
 * <ul>
 *   <li>{@link #putRequest} completes only once the request is durable: it survives {@code kill -9}
 *       of the process and is returned by {@link #pendingRequests()} after a restart, until a reply
 *       is stored for it or it is closed. Requests arriving together are committed together (one
 *       durable write for many), never one synchronous flush per request.</li>
 *   <li>{@link #putReply} keeps the first reply: a later one for the same uuid is refused
 *       ({@code false}) and never replaces it.</li>
 *   <li>{@link #reply} is idempotent: a stored reply is returned as often as asked until
 *       {@link #close}.</li>
 *   <li>{@link #close} of an unknown uuid succeeds.</li>
 *   <li>The store is bounded (its settings): a {@link #putRequest} past the bound fails with
 *       {@link TitanicStoreFullException} and stores nothing.</li>
 * </ul>
 *
 * <p>uuids are 32 lower-case hex characters ({@link TitanicIds}).
 */
public interface TitanicStore extends AutoCloseable {

    /**
     * Stores a new request (its service and body frames); completes when it is durable. Fails
     * with {@link TitanicStoreFullException} when the store is full.
     */
    CompletableFuture<Void> putRequest(String uuid, String service, Frames body);

    /** The stored request, empty if the uuid is unknown or closed. */
    CompletableFuture<Optional<StoredRequest>> request(String uuid);

    /**
     * Every request that has no reply yet and is not closed, oldest first: what a restarted
     * server must dispatch again.
     */
    CompletableFuture<List<PendingRequest>> pendingRequests();

    /**
     * Stores the reply to a request; completes when it is durable. {@code true} if it was stored;
     * {@code false} if a reply was already stored (the first one stays) or the request is unknown
     * or closed. May fail with {@link TitanicStoreFullException} if the store cannot take the reply
     * now (bounded stores); the request then stays pending, as if the reply had not come.
     */
    CompletableFuture<Boolean> putReply(String uuid, Frames reply);

    /** What {@code titanic.reply} answers: the reply, pending, or unknown. */
    CompletableFuture<ReplyLookup> reply(String uuid);

    /** Forgets the request and its reply; succeeds for an unknown uuid. */
    CompletableFuture<Void> close(String uuid);

    /**
     * Retention: deletes every request whose reply was stored at or before
     * {@code storedAtOrBeforeMillis} (epoch milliseconds of the store's clock) and was not closed.
     * Completes with the number deleted.
     */
    CompletableFuture<Integer> expireReplies(long storedAtOrBeforeMillis);

    /** Entries (requests, with or without replies) held now. */
    CompletableFuture<Long> size();

    /**
     * Whether several Titanic servers share this store at once (a database server), each
     * dispatching only the requests it has claimed; false for a store of one server (SQLite).
     * A shared store stores each new request claimed by its own server ({@link #putRequest}).
     */
    default boolean shared() {
        return false;
    }

    /**
     * A shared store: claims up to {@code max} pending requests that no live server holds (never
     * claimed, or their holder's lease has lapsed), oldest first, for this store's server, with a
     * lease of {@link #claimLease()}. Each pending request is claimed by one server at a time.
     */
    default CompletableFuture<List<PendingRequest>> claimRequests(int max) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("not a shared store"));
    }

    /**
     * A shared store: extends the lease of every pending request this store's server holds; a
     * server renews well within {@link #claimLease()}, so only a server that died (or froze for
     * longer) loses its requests to the others. Completes with the number renewed.
     */
    default CompletableFuture<Integer> renewClaims() {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("not a shared store"));
    }

    /** A shared store: how long after its holder stops renewing a claimed request may be taken over. */
    default Duration claimLease() {
        return Duration.ZERO;
    }

    /** Flushes what is pending and closes the database; waits for it. */
    @Override
    void close();

    /** A request as stored. */
    record StoredRequest(String uuid, String service, Frames body) {
    }

    /** A request still waiting for its reply. */
    record PendingRequest(String uuid, String service) {}

    /** The answer to {@link #reply}: one of three. */
    sealed interface ReplyLookup {
        record Ready(Frames reply) implements ReplyLookup {
        }

        /** The request is stored and has no reply yet (TSP 300). */
        record Pending() implements ReplyLookup {}

        /** No such request, or it was closed (TSP 400). */
        record Unknown() implements ReplyLookup {}
    }
}
