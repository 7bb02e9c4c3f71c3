package io.zmtp.patterns.majordomo;

/**
 * Something that happened in a Majordomo broker, worker or client: one line of the command
 * line's output, and what tests wait for. Delivered on the component's event loop to the
 * listener of its settings; a listener must not block.
 *
 * <p>Every kind carries the same three facts, so one record holds them all: its {@link #type()}
 * (switch over it, or filter by it), the peer, the service and a detail. {@code toString()} is
 * the command line's line: {@code KIND peer service=S: detail}.
 *
 * @param type the kind of event
 * @param peer the worker's or client's routing id in hex (broker events), or the broker endpoint
 *        (worker and client events); may be null
 * @param service the service concerned, or null
 * @param detail a human explanation, or null
 */
public record MajordomoEvent(Type type, String peer, String service, String detail) {

    /** The kinds of event; the broker's, the worker's and the clients' do not overlap. */
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

    public MajordomoEvent {
        java.util.Objects.requireNonNull(type, "type");
    }

    /** The command line's line: {@code KIND peer service=S: detail}, leaving out what is null. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(type.name());
        if (peer != null) {
            sb.append(' ').append(peer);
        }
        if (service != null) {
            sb.append(" service=").append(service);
        }
        if (detail != null) {
            sb.append(": ").append(detail);
        }
        return sb.toString();
    }
}
