package io.zmtp.patterns.simplepirate;

import io.zmtp.socket.RoutingId;

/**
 * What a queue (Simple or Paranoid Pirate) did, for its listener and its command's output: one
 * sealed type for every queue. {@code worker} is the worker's routing id.
 */
public sealed interface QueueEvent {

    /** The worker concerned, or null. */
    RoutingId worker();

    /** Both sockets are bound; {@code detail} names the endpoints (and the heartbeat). */
    record Listening(String detail) implements QueueEvent {
        @Override
        public RoutingId worker() {
            return null;
        }

        @Override
        public String toString() {
            return "queue ready: " + detail;
        }
    }

    /** A worker said READY and joined the queue. */
    record WorkerReady(RoutingId worker) implements QueueEvent {
        @Override
        public String toString() {
            return "worker " + worker + " ready";
        }
    }

    /**
     * A worker the queue did not know sent a HEARTBEAT or a reply (the queue restarted under it,
     * or had expired it): taken as alive and ready, as the guide's queue does.
     */
    record WorkerAdopted(RoutingId worker) implements QueueEvent {
        @Override
        public String toString() {
            return "worker " + worker + " ready (heard from it without a READY)";
        }
    }

    /** A worker that held a request said READY again (it restarted, or gave up): the request is lost. */
    record RequestAbandoned(RoutingId worker) implements QueueEvent {
        @Override
        public String toString() {
            return "worker " + worker + " is ready again without a reply: its request is lost";
        }
    }

    /** A worker was silent for liveness x interval and was forgotten; {@code busy}: its request is lost. */
    record WorkerExpired(RoutingId worker, boolean busy) implements QueueEvent {
        @Override
        public String toString() {
            return "worker " + worker + " expired (" + (busy ? "its request is lost" : "idle") + ")";
        }
    }

    /** A HEARTBEAT came from a worker (only with traceMessages). */
    record WorkerHeartbeat(RoutingId worker) implements QueueEvent {
        @Override
        public String toString() {
            return "worker " + worker + " heartbeat";
        }
    }

    /** A ready worker's connection was gone when its turn came: it was forgotten. */
    record WorkerGone(RoutingId worker) implements QueueEvent {
        @Override
        public String toString() {
            return "worker " + worker + " disconnected, removed from the queue";
        }
    }

    /** A worker sent something that is neither a signal nor a reply; it was dropped. */
    record InvalidMessage(RoutingId worker, String detail) implements QueueEvent {
        @Override
        public String toString() {
            return "invalid message from worker " + worker + ": " + detail;
        }
    }

    /** A request went to a worker (per message: only with traceMessages). */
    record RequestRouted(RoutingId worker, String detail) implements QueueEvent {
        @Override
        public String toString() {
            return "request to worker " + worker + ": " + detail;
        }
    }

    /** A reply went back to its client (per message: only with traceMessages). */
    record ReplyRouted(RoutingId worker, String detail) implements QueueEvent {
        @Override
        public String toString() {
            return "reply from worker " + worker + ": " + detail;
        }
    }
}
