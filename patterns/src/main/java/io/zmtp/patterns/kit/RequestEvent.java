package io.zmtp.patterns.kit;

/**
 * What a {@link RetryingRequester} did with a request: the events of the Lazy Pirate client (and
 * of the clients built on the requester). {@code request} is the request's sequence number (1 for
 * the first), {@code attempt} which try (1-based), {@code tries} the budget.
 */
public sealed interface RequestEvent {
    /**
     * Whether events of {@code type} change a request's course (a retry, a failover, a reconnect,
     * a failure), as opposed to its routine (sent, progress, replied, discarded), which only a
     * trace wants.
     */
    static boolean isNotable(Class<?> type) {
        return type == Retrying.class || type == FailingOver.class || type == Reconnected.class
                || type == Failed.class;
    }

    long request();

    int attempt();

    /** A request was sent (attempt 1) or resent. */
    record Sent(long request, int attempt, int tries, String detail) implements RequestEvent {
        @Override
        public String toString() {
            return attempt == 1 ? "sending request " + request + ": " + detail
                    : "resending request " + request + " (try " + attempt + " of " + tries + "): " + detail;
        }
    }

    /** A try timed out; the socket was closed and the request is about to be resent. */
    record Retrying(long request, int attempt, int tries, String reason) implements RequestEvent {
        @Override
        public String toString() {
            return "no response to request " + request + " (" + reason + "), reconnecting and retrying";
        }
    }

    /**
     * A try timed out with endpoints to fail over to: the socket was closed, and after the
     * settle delay the request goes to {@code endpoint} (a {@link Failover} requester).
     */
    record FailingOver(long request, int attempt, int tries, String reason, String endpoint,
            java.time.Duration settle) implements RequestEvent {
        @Override
        public String toString() {
            return "no response to request " + request + " (" + reason + "), failing over to " + endpoint
                    + " in " + settle.toMillis() + " ms";
        }
    }

    /**
     * The connection was lost during a try: the request goes out again on a new socket, within
     * the same try (no try used up).
     */
    record Reconnected(long request, int attempt, int tries, String reason) implements RequestEvent {
        @Override
        public String toString() {
            return "connection lost during request " + request + " (" + reason + "), resending on a new socket";
        }
    }

    /** A partial reply arrived: the try's timeout starts again. */
    record Progress(long request, int attempt, String detail) implements RequestEvent {
        @Override
        public String toString() {
            return "partial reply to request " + request + ": " + detail;
        }
    }

    /** The reply arrived. */
    record Replied(long request, int attempt, String detail) implements RequestEvent {
        @Override
        public String toString() {
            return "server replied OK to request " + request + ": " + detail;
        }
    }

    /** The last try timed out (or the send failed): the request failed. */
    record Failed(long request, int attempt, String reason) implements RequestEvent {
        @Override
        public String toString() {
            return "request " + request + " failed after " + attempt + (attempt == 1 ? " try" : " tries")
                    + " (" + reason + "): server seems to be offline, abandoning";
        }
    }

    /** A message that is not the reply to the current try was dropped. */
    record Discarded(long request, int attempt, String detail) implements RequestEvent {
        @Override
        public String toString() {
            return "discarded a message that is not the reply to the current try: " + detail;
        }
    }
}
