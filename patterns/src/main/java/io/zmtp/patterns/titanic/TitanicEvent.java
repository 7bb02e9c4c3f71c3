package io.zmtp.patterns.titanic;

import io.zmtp.wire.FrameText;

/**
 * What a {@link TitanicServer} does, one record per kind; {@code toString()} is the command
 * line's line. Service names and reasons a peer chose are escaped. Reported on the server's loop.
 * A reason (a store's message, a connection's, a peer's) is escaped but kept whole up to
 * {@link #REASON_CHARS} characters: a reason cut after 64 says nothing to an operator.
 */
public sealed interface TitanicEvent {
    /** How much of a reason an event's line shows (escaped, so no line is forged). */
    int REASON_CHARS = 1024;

    /**
     * The store was read and the three services are registering with the broker; {@code store}
     * is the store's {@code toString()}, which names where it is (never a password) and, for a
     * shared store, this server's owner id, the one its claimed rows carry.
     */
    record Started(String broker, int recovered, String store) implements TitanicEvent {
        @Override
        public String toString() {
            return "titanic serving through " + broker + ", " + recovered + " stored request(s) to dispatch; store: "
                    + store;
        }
    }

    /** A request is durable and was answered 200 (only with {@code traceMessages}). */
    record Stored(String uuid, String service) implements TitanicEvent {
        @Override
        public String toString() {
            return "stored request " + uuid + " for '" + FrameText.escape(service) + "'";
        }
    }

    /** A stored request went to its service (only with {@code traceMessages}). */
    record Dispatched(String uuid, String service) implements TitanicEvent {
        @Override
        public String toString() {
            return "dispatching request " + uuid + " to '" + FrameText.escape(service) + "'";
        }
    }

    /** The reply to a request is durable (only with {@code traceMessages}). */
    record Replied(String uuid, String service) implements TitanicEvent {
        @Override
        public String toString() {
            return "stored the reply to " + uuid + " from '" + FrameText.escape(service) + "'";
        }
    }

    /** A dispatch got no reply (or a refusal); the request waits for the retry interval. */
    record DispatchFailed(String uuid, String service, String reason) implements TitanicEvent {
        @Override
        public String toString() {
            return "request " + uuid + " to '" + FrameText.escape(service) + "' not answered ("
                    + FrameText.escape(reason, REASON_CHARS) + "), retrying later";
        }
    }

    /** mmi.service said the service has no worker: its requests wait. */
    record ServiceAbsent(String service, int waiting) implements TitanicEvent {
        @Override
        public String toString() {
            return "service '" + FrameText.escape(service) + "' has no workers, " + waiting + " request(s) wait";
        }
    }

    /** mmi.service said the service has workers again. */
    record ServiceAvailable(String service) implements TitanicEvent {
        @Override
        public String toString() {
            return "service '" + FrameText.escape(service) + "' has workers";
        }
    }

    /** A TSP request answered 400 or 500 (malformed, store full or failing). */
    record Refused(String tspService, TitanicStatus status, String reason) implements TitanicEvent {
        @Override
        public String toString() {
            return tspService + " answered " + status.code() + ": " + FrameText.escape(reason, REASON_CHARS);
        }
    }

    /** Retention deleted replies nobody closed. */
    record Expired(int count) implements TitanicEvent {
        @Override
        public String toString() {
            return "retention deleted " + count + " unclosed repl" + (count == 1 ? "y" : "ies");
        }
    }

    /** A shared store: this server claimed pending requests nobody held (a dead server's, after its lease). */
    record Claimed(int count) implements TitanicEvent {
        @Override
        public String toString() {
            return "claimed " + count + " pending request" + (count == 1 ? "" : "s") + " nobody held";
        }
    }
}
