package io.zmtp.patterns.majordomo;

/**
 * Something that happened in a Majordomo broker, worker or client: one line of the command
 * line's output, and what tests wait for. Delivered on the component's event loop to the
 * listener of its settings; a listener must not block.
 *
 * <p>One sealed type, as every pattern component's events: a record per kind (switch over them,
 * or filter by {@link #type()}), each with the peer, the service and a detail, and whose
 * {@code toString()} is the command line's line: {@code KIND peer service=S: detail}.
 */
public sealed interface MajordomoEvent {

    public enum Type {
        // ---- broker
        /** A worker registered a service with READY. */
        WORKER_READY,
        /** A worker sent DISCONNECT, or its connection closed, and it was forgotten. */
        WORKER_LEFT,
        /** A worker sent nothing for the heartbeat expiry and was forgotten. */
        WORKER_EXPIRED,
        /** The broker answered a valid but unexpected command with DISCONNECT. */
        WORKER_DISCONNECTED,
        /** A request waited for a service without workers longer than the request expiry. */
        REQUEST_EXPIRED,
        /**
         * A request was refused (and the client told so): a queue limit, the service count or the
         * service-name length; the detail says which.
         */
        REQUEST_REJECTED,
        /** A client's connection closed while it had requests queued: they were dropped (detail: how many). */
        CLIENT_GONE,
        /** A streamed reply for an MDP/0.1 client outgrew the aggregation limit and was dropped. */
        REPLY_DROPPED,
        /** A message that follows neither protocol version was dropped. */
        INVALID_MESSAGE,
        /** The broker answered an MMI request itself. */
        MMI_ANSWERED,
        // ---- worker
        /** A worker opened a new connection to its broker and sent READY. */
        CONNECTING,
        /** The broker told the worker to disconnect; it reconnects on a new socket. */
        DISCONNECT_RECEIVED,
        /** Nothing came from the broker for the heartbeat expiry (or its connection dropped). */
        BROKER_LOST,
        /** A worker's request handler threw; the worker reconnects so the broker forgets the request. */
        HANDLER_FAILED,
        // ---- client
        /** No reply within the timeout, or the connection dropped: the client resends on a new socket. */
        RETRYING,
        /** A request was abandoned after its last attempt. */
        REQUEST_FAILED
    }

    /** The kind of event. */
    Type type();

    /** The worker's routing id in hex (broker events), or the broker endpoint; may be null. */
    String peer();

    /** The service concerned, or null. */
    String service();

    /** A human explanation, or null. */
    String detail();

    /** The event of {@code type}. */
    static MajordomoEvent of(Type type, String peer, String service, String detail) {
        return switch (type) {
            case WORKER_READY -> new WorkerReady(peer, service, detail);
            case WORKER_LEFT -> new WorkerLeft(peer, service, detail);
            case WORKER_EXPIRED -> new WorkerExpired(peer, service, detail);
            case WORKER_DISCONNECTED -> new WorkerDisconnected(peer, service, detail);
            case REQUEST_EXPIRED -> new RequestExpired(peer, service, detail);
            case REQUEST_REJECTED -> new RequestRejected(peer, service, detail);
            case CLIENT_GONE -> new ClientGone(peer, service, detail);
            case REPLY_DROPPED -> new ReplyDropped(peer, service, detail);
            case INVALID_MESSAGE -> new InvalidMessage(peer, service, detail);
            case MMI_ANSWERED -> new MmiAnswered(peer, service, detail);
            case CONNECTING -> new Connecting(peer, service, detail);
            case DISCONNECT_RECEIVED -> new DisconnectReceived(peer, service, detail);
            case BROKER_LOST -> new BrokerLost(peer, service, detail);
            case HANDLER_FAILED -> new HandlerFailed(peer, service, detail);
            case RETRYING -> new Retrying(peer, service, detail);
            case REQUEST_FAILED -> new RequestFailed(peer, service, detail);
        };
    }

    /** The command line's line for an event. */
    static String line(MajordomoEvent e) {
        StringBuilder sb = new StringBuilder(e.type().name());
        if (e.peer() != null) {
            sb.append(' ').append(e.peer());
        }
        if (e.service() != null) {
            sb.append(" service=").append(e.service());
        }
        if (e.detail() != null) {
            sb.append(": ").append(e.detail());
        }
        return sb.toString();
    }

    /** {@link Type#WORKER_READY}: A worker registered a service with READY. */
    record WorkerReady(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.WORKER_READY;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }

    /** {@link Type#WORKER_LEFT}: A worker sent DISCONNECT, or its connection closed, and it was forgotten. */
    record WorkerLeft(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.WORKER_LEFT;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }

    /** {@link Type#WORKER_EXPIRED}: A worker sent nothing for the heartbeat expiry and was forgotten. */
    record WorkerExpired(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.WORKER_EXPIRED;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }

    /** {@link Type#WORKER_DISCONNECTED}: The broker answered a valid but unexpected command with DISCONNECT. */
    record WorkerDisconnected(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.WORKER_DISCONNECTED;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }

    /** {@link Type#REQUEST_EXPIRED}: A request waited for a service without workers longer than the request expiry. */
    record RequestExpired(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.REQUEST_EXPIRED;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }

    /** {@link Type#REQUEST_REJECTED}: A request was refused (and the client told so): a queue limit, the service count or the service-name length; the detail says which. */
    record RequestRejected(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.REQUEST_REJECTED;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }

    /** {@link Type#CLIENT_GONE}: A client's connection closed while it had requests queued: they were dropped (detail: how many). */
    record ClientGone(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.CLIENT_GONE;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }

    /** {@link Type#REPLY_DROPPED}: A streamed reply for an MDP/0.1 client outgrew the aggregation limit and was dropped. */
    record ReplyDropped(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.REPLY_DROPPED;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }

    /** {@link Type#INVALID_MESSAGE}: A message that follows neither protocol version was dropped. */
    record InvalidMessage(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.INVALID_MESSAGE;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }

    /** {@link Type#MMI_ANSWERED}: The broker answered an MMI request itself. */
    record MmiAnswered(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.MMI_ANSWERED;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }

    /** {@link Type#CONNECTING}: A worker opened a new connection to its broker and sent READY. */
    record Connecting(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.CONNECTING;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }

    /** {@link Type#DISCONNECT_RECEIVED}: The broker told the worker to disconnect; it reconnects on a new socket. */
    record DisconnectReceived(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.DISCONNECT_RECEIVED;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }

    /** {@link Type#BROKER_LOST}: Nothing came from the broker for the heartbeat expiry (or its connection dropped). */
    record BrokerLost(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.BROKER_LOST;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }

    /** {@link Type#HANDLER_FAILED}: A worker's request handler threw; the worker reconnects so the broker forgets the request. */
    record HandlerFailed(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.HANDLER_FAILED;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }

    /** {@link Type#RETRYING}: No reply within the timeout, or the connection dropped: the client resends on a new socket. */
    record Retrying(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.RETRYING;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }

    /** {@link Type#REQUEST_FAILED}: A request was abandoned after its last attempt. */
    record RequestFailed(String peer, String service, String detail) implements MajordomoEvent {
        @Override
        public Type type() {
            return Type.REQUEST_FAILED;
        }

        @Override
        public String toString() {
            return line(this);
        }
    }
}
