package io.zmtp.socket;

import io.zmtp.wire.ConnectionFailed;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * What a socket has done since it was made, as read at one moment ({@link ZmtpSocket#metrics()}):
 * traffic, drops, reconnects, handshake failures by kind, and what waits in its queues. The
 * counters only grow; the queue depths and peer count are current values. Fields are read one by
 * one while the socket runs, so two of them may be a message apart.
 *
 * @param messagesIn messages received from peers (before a SUB's filter or a REQ's checks)
 * @param bytesIn payload bytes of those messages (frame bodies, without ZMTP's headers)
 * @param messagesOut messages written to peers: a PUB's message counts once per subscriber
 * @param bytesOut payload bytes of those messages
 * @param hwmDrops messages dropped for a peer at its send high-water mark (PUB, XPUB, ROUTER, REP)
 * @param unroutableDrops messages dropped because no peer could take them by the type's rules (a
 *        ROUTER's unknown routing id, a REP whose requester left)
 * @param tooLarge messages a peer sent past {@code maxMessageSize} (or past the socket's whole
 *        inbound budget): each closed its connection and was lost (the peer reconnects), and
 *        each is also a DISCONNECTED event whose failure is
 *        {@link ConnectionFailed.Kind#MESSAGE_TOO_LARGE}, naming the peer, the size and the limit
 * @param multipartDrops messages of more than one frame received by a type whose messages are
 *        single frames (CLIENT, SERVER, RADIO, DISH, GATHER, SCATTER, PEER, CHANNEL), dropped
 *        whole as libzmq drops them; the connection stays open
 * @param handshakesSucceeded connections that completed their handshake
 * @param disconnects connections closed after their handshake
 * @param connectFailures outgoing connection attempts that failed before a handshake began
 * @param reconnects reconnects scheduled after a failed attempt or a lost connection
 * @param handshakeFailures handshakes that failed, by what the codec found (every kind present,
 *        0 when none); a failure without a kind (inproc types that cannot talk) counts as
 *        {@link ConnectionFailed.Kind#HANDSHAKE}
 * @param peers peers attached now
 * @param queuedOut messages waiting to go out now: sends waiting at the high-water mark, a
 *        connection's backlog behind a full channel, a {@link BlockingSocket}'s outgoing queue
 * @param queuedIn messages received but not yet taken by the application now (waiting for a
 *        handler, or in a {@link BlockingSocket}'s incoming queue)
 * @param datagramDrops udp:// datagrams dropped (docs/radio-dish.md): received ones that were
 *        malformed, too large or of a group this DISH has not joined, and messages a RADIO could
 *        not fit in one datagram
 */
public record SocketMetrics(long messagesIn, long bytesIn, long messagesOut, long bytesOut,
                            long hwmDrops, long unroutableDrops, long tooLarge, long multipartDrops,
                            long handshakesSucceeded, long disconnects, long connectFailures, long reconnects,
                            Map<ConnectionFailed.Kind, Long> handshakeFailures,
                            int peers, long queuedOut, long queuedIn, long datagramDrops) {

    /** Makes the map of failures an unmodifiable copy. */
    public SocketMetrics {
        EnumMap<ConnectionFailed.Kind, Long> m = new EnumMap<>(ConnectionFailed.Kind.class);
        for (ConnectionFailed.Kind k : ConnectionFailed.Kind.values()) {
            m.put(k, handshakeFailures.getOrDefault(k, 0L));
        }
        handshakeFailures = Collections.unmodifiableMap(m);
    }

    /** Handshakes that failed with {@code kind}. */
    public long handshakeFailures(ConnectionFailed.Kind kind) {
        return handshakeFailures.get(kind);
    }

    /** Handshakes that failed, of every kind. */
    public long handshakeFailuresTotal() {
        long n = 0;
        for (long v : handshakeFailures.values()) {
            n += v;
        }
        return n;
    }

    /** One line: {@code in=3/120B out=...}, for logs and the command line. */
    public String toLine() {
        StringBuilder sb = new StringBuilder()
                .append("in=").append(messagesIn).append('/').append(bytesIn).append('B')
                .append(" out=").append(messagesOut).append('/').append(bytesOut).append('B')
                .append(" queued-in=").append(queuedIn)
                .append(" queued-out=").append(queuedOut)
                .append(" hwm-drops=").append(hwmDrops)
                .append(" unroutable=").append(unroutableDrops)
                .append(" too-large=").append(tooLarge)
                .append(" multipart-drops=").append(multipartDrops)
                .append(" datagram-drops=").append(datagramDrops)
                .append(" peers=").append(peers)
                .append(" handshakes=").append(handshakesSucceeded)
                .append(" disconnects=").append(disconnects)
                .append(" connect-failures=").append(connectFailures)
                .append(" reconnects=").append(reconnects)
                .append(" handshake-failures=").append(handshakeFailuresTotal());
        for (Map.Entry<ConnectionFailed.Kind, Long> e : handshakeFailures.entrySet()) {
            if (e.getValue() > 0) {
                sb.append(' ').append(e.getKey().name().toLowerCase(java.util.Locale.ROOT)).append('=').append(e.getValue());
            }
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "SocketMetrics[" + toLine() + "]";
    }
}
