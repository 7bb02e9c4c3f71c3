package io.zmtp.patterns.majordomo;

import io.zmtp.socket.RoutingId;
import io.zmtp.wire.ZmtpMessage;

/**
 * The request a worker is serving: which client it is for, in which version, and how the worker's
 * replies reach that client in <em>its</em> version ({@link #toClient}), whatever the worker's.
 *
 * <ul>
 *   <li>A 0.2 client gets each PARTIAL as a PARTIAL and the FINAL (or a 0.1 worker's REPLY) as a
 *       FINAL.</li>
 *   <li>A 0.1 client gets one REPLY. MDP/0.1 has no PARTIAL and its REQ clients accept exactly one
 *       reply, so a 0.2 worker's stream is joined: the frames of every PARTIAL, in order (held
 *       without a copy), then the FINAL's. A stream that adds up to more than the limit is dropped
 *       whole, never truncated: the client retries or gives up as with no reply.</li>
 * </ul>
 * Used on the broker's loop only.
 */
final class InFlightRequest {
    final RoutingId client;
    final MdpVersion clientVersion;
    private ZmtpMessage joined;
    private long joinedBytes;
    private boolean overflow;

    InFlightRequest(RoutingId client, MdpVersion clientVersion) {
        this.client = client;
        this.clientVersion = clientVersion;
    }

    /**
     * A worker's reply to this request, {@code body} (ownership passes), as the message that goes to
     * this request's client of service {@code service}; null when nothing goes out now (a PARTIAL
     * joined for a 0.1 client, or a joined stream dropped: see {@link #overflowed()}).
     */
    ZmtpMessage toClient(ZmtpMessage body, boolean partial, byte[] service, long limit) {
        ZmtpMessage out;
        if (clientVersion == MdpVersion.V0_2) {
            out = body;
        } else if (partial) {
            join(body, limit);
            out = null;
        } else {
            out = complete(body, limit);
        }
        if (out == null) {
            return null;
        }
        return MdpProtocol.replyToClient(client, out, clientVersion, !partial, MdpProtocol.constant(service));
    }

    /**
     * Adds a PARTIAL's body frames (ownership passes) to the reply joined for a 0.1 client. False
     * when the stream just went over {@code limit}: what was joined is dropped, and so will be the
     * rest of the stream.
     */
    private boolean join(ZmtpMessage body, long limit) {
        if (overflow) {
            body.release();
            return true; // dropped already, and reported then
        }
        long n = body.byteSize();
        if (joinedBytes + n > limit) {
            overflow = true;
            body.release();
            release();
            return false;
        }
        joinedBytes += n;
        if (joined == null) {
            joined = body;
            return true;
        }
        while (!body.isEmpty()) {
            joined.add(body.removeFirst());
        }
        body.release();
        return true;
    }

    /**
     * The whole reply for a 0.1 client, the FINAL's frames {@code last} (ownership passes) after
     * what was joined; null if the stream was over {@code limit} already, or is now (then
     * {@link #overflowed()} turned true with this call).
     */
    private ZmtpMessage complete(ZmtpMessage last, long limit) {
        if (overflow) {
            last.release();
            return null;
        }
        if (joined == null) {
            return last;
        }
        if (!join(last, limit)) {
            return null;
        }
        ZmtpMessage all = joined;
        joined = null;
        return all;
    }

    /** Whether the joined stream went over its limit and was dropped. */
    boolean overflowed() {
        return overflow;
    }

    /** Releases what was joined (the worker left, or the broker closed). */
    void release() {
        if (joined != null) {
            joined.release();
            joined = null;
        }
    }
}
