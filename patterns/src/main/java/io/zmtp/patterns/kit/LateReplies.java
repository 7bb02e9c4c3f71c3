package io.zmtp.patterns.kit;

import java.util.ArrayDeque;

/**
 * The late-reply filter of a {@link RetryingRequester} with more than one request in flight: the
 * requests given up while they may still be answered on the current socket (the last try timed out
 * after the request went out again there, or it was cancelled), remembered with the key a reply
 * names (Majordomo's service) until their reply comes or the socket is replaced.
 *
 * <p>Why: such a request's reply can still arrive, and a reply names only a key, not a request, so
 * it would be taken for the answer to the next request with that key. Requests go out on a socket
 * in the order of their sequence numbers and replies with one key come back in that order, so a
 * reply naming a key answers the oldest request with that key that went out on the socket: the
 * remembered one, if it is older than the oldest in flight. At most {@value #MAX} are remembered;
 * past that the requester replaces its socket instead. Used on the requester's loop only.
 */
final class LateReplies {
    /** Requests remembered per socket before it is replaced instead. */
    static final int MAX = 1024;

    private final ArrayDeque<Given> given = new ArrayDeque<>();

    /** A request given up: its key and sequence number. */
    record Given(Object key, long sequence) {
    }

    boolean isEmpty() {
        return given.isEmpty();
    }

    /** Whether no more can be remembered (the socket should be replaced). */
    boolean isFull() {
        return given.size() >= MAX;
    }

    /** Remembers a request given up that may still be answered on the current socket. */
    void remember(Object key, long sequence) {
        given.add(new Given(key, sequence));
    }

    /**
     * The request given up that a reply naming {@code key} answers, or null: the oldest remembered
     * with that key (null matches any), if it went out before {@code oldestInFlight} (the sequence
     * of the oldest request in flight with that key; {@code Long.MAX_VALUE} for none). A final
     * reply {@link #forget}s it; a partial one leaves it.
     */
    Given answered(Object key, long oldestInFlight) {
        for (Given g : given) {
            if (key == null || g.key == null || key.equals(g.key)) {
                return g.sequence < oldestInFlight ? g : null;
            }
        }
        return null;
    }

    /** Its final reply came: nothing more can arrive for it. */
    void forget(Given g) {
        given.remove(g);
    }

    /** The socket was replaced: nothing more can arrive for any of them. */
    void clear() {
        given.clear();
    }
}
