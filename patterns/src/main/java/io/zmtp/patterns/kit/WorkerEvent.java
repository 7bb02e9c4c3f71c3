package io.zmtp.patterns.kit;

import java.time.Duration;

/**
 * What a worker (or the Lazy Pirate server) did, for its listener and its command's output: one
 * sealed type for every worker. {@code identity} is the worker's current identity (null for a
 * server); {@code request} a request's number, counted from 1 since the worker started.
 */
public sealed interface WorkerEvent {

    /** The line's prefix: "(1A2B-3C4D) " for a worker with an identity. */
    private static String who(String identity) {
        return identity == null ? "" : "(" + identity + ") ";
    }

    /** A server is bound to {@code endpoint}. */
    record Listening(String endpoint) implements WorkerEvent {
        @Override
        public String toString() {
            return "listening on " + endpoint;
        }
    }

    /** A new socket connects to {@code endpoint} and said READY. */
    record Ready(String identity, String endpoint) implements WorkerEvent {
        @Override
        public String toString() {
            return who(identity) + "worker ready, connecting to " + endpoint;
        }
    }

    /** A request is being handled (a server, with no identity, says so as the guide's lpserver). */
    record Request(String identity, long request, String detail) implements WorkerEvent {
        @Override
        public String toString() {
            return identity == null ? "normal request (" + request + "): " + detail
                    : who(identity) + "normal reply (" + request + "): " + detail;
        }
    }

    /** A reply went out (per message: only with traceMessages). */
    record Replied(String identity, long request, String detail) implements WorkerEvent {
        @Override
        public String toString() {
            return who(identity) + "replied (" + request + "): " + detail;
        }
    }

    /** A HEARTBEAT came from the queue (only with traceMessages). */
    record QueueHeartbeat(String identity) implements WorkerEvent {
        @Override
        public String toString() {
            return who(identity) + "queue heartbeat";
        }
    }

    /** Simulated: this request finds the worker overloaded for {@code time} (a Paranoid Pirate worker freezes). */
    record Overloaded(String identity, long request, Duration time) implements WorkerEvent {
        @Override
        public String toString() {
            return who(identity) + "simulating CPU overload (" + request + "): answering " + time.toMillis()
                    + " ms late";
        }
    }

    /** Simulated: the worker crashes on this request (its socket closes at once). */
    record Crashing(String identity, long request) implements WorkerEvent {
        @Override
        public String toString() {
            return who(identity) + "simulating a crash (" + request + ")";
        }
    }

    /** The handler failed: no reply (the client retries); a queue's worker said READY again. */
    record HandlerFailed(String identity, long request, String reason) implements WorkerEvent {
        @Override
        public String toString() {
            return who(identity) + "request " + request + " failed (" + reason + "), ready again";
        }
    }

    /** A reply was ready after the connection its request came on was replaced: dropped. */
    record ReplyDropped(String identity, long request, String reason) implements WorkerEvent {
        @Override
        public String toString() {
            return who(identity) + "reply " + request + " dropped: " + reason;
        }
    }

    /** Too many requests waited: this one was dropped. */
    record RequestDropped(String identity, String reason) implements WorkerEvent {
        @Override
        public String toString() {
            return who(identity) + "request dropped: " + reason;
        }
    }

    /** Something that is neither a heartbeat nor a request with an envelope: dropped. */
    record InvalidMessage(String identity, String detail) implements WorkerEvent {
        @Override
        public String toString() {
            return who(identity) + "invalid message: " + detail;
        }
    }

    /** The queue was silent for {@code silence} (interval x liveness): the socket was closed. */
    record HeartbeatLost(String identity, Duration silence) implements WorkerEvent {
        @Override
        public String toString() {
            return who(identity) + "heartbeat failure, can't reach queue: nothing from the queue for "
                    + silence.toMillis() + " ms";
        }
    }

    /**
     * The connection to {@code endpoint} dropped (the queue stopped, or a proxy closed it): the
     * socket reconnects by itself, and the queue's silence does not count until it is back.
     */
    record ConnectionLost(String identity, String endpoint) implements WorkerEvent {
        @Override
        public String toString() {
            return who(identity) + "connection to " + endpoint + " lost, reconnecting";
        }
    }

    /** A new socket will connect after {@code delay}. */
    record Reconnecting(String identity, Duration delay) implements WorkerEvent {
        @Override
        public String toString() {
            return who(identity) + "reconnecting in " + delay.toMillis() + " ms";
        }
    }
}
