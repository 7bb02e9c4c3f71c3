package io.zmtp.socket;

import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.ZmtpMessage;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.EnumMap;
import java.util.Map;

/**
 * A socket's counters. One writer, the socket's event loop, updates them with plain arithmetic and
 * opaque stores (no lock, no atomic read-modify-write, no fence: on x86 and ARM an opaque store of
 * a long is an ordinary store that cannot tear); any thread reads them with opaque loads through
 * {@link #snapshot}. Nothing here is allocated per message.
 */
final class SocketCounters {
    private static final VarHandle MESSAGES_IN;
    private static final VarHandle BYTES_IN;
    private static final VarHandle MESSAGES_OUT;
    private static final VarHandle BYTES_OUT;
    private static final VarHandle HWM_DROPS;
    private static final VarHandle UNROUTABLE_DROPS;
    private static final VarHandle TOO_LARGE;
    private static final VarHandle MULTIPART_DROPS;
    private static final VarHandle DATAGRAM_DROPS;
    private static final VarHandle HANDSHAKES;
    private static final VarHandle DISCONNECTS;
    private static final VarHandle CONNECT_FAILURES;
    private static final VarHandle RECONNECTS;
    private static final VarHandle PEERS;
    private static final VarHandle QUEUED_SENDS;
    private static final VarHandle BACKLOG;
    private static final VarHandle UNDELIVERED;
    private static final VarHandle FAILURES = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            MESSAGES_IN = l.findVarHandle(SocketCounters.class, "messagesIn", long.class);
            BYTES_IN = l.findVarHandle(SocketCounters.class, "bytesIn", long.class);
            MESSAGES_OUT = l.findVarHandle(SocketCounters.class, "messagesOut", long.class);
            BYTES_OUT = l.findVarHandle(SocketCounters.class, "bytesOut", long.class);
            HWM_DROPS = l.findVarHandle(SocketCounters.class, "hwmDrops", long.class);
            UNROUTABLE_DROPS = l.findVarHandle(SocketCounters.class, "unroutableDrops", long.class);
            TOO_LARGE = l.findVarHandle(SocketCounters.class, "tooLarge", long.class);
            MULTIPART_DROPS = l.findVarHandle(SocketCounters.class, "multipartDrops", long.class);
            DATAGRAM_DROPS = l.findVarHandle(SocketCounters.class, "datagramDrops", long.class);
            HANDSHAKES = l.findVarHandle(SocketCounters.class, "handshakes", long.class);
            DISCONNECTS = l.findVarHandle(SocketCounters.class, "disconnects", long.class);
            CONNECT_FAILURES = l.findVarHandle(SocketCounters.class, "connectFailures", long.class);
            RECONNECTS = l.findVarHandle(SocketCounters.class, "reconnects", long.class);
            PEERS = l.findVarHandle(SocketCounters.class, "peers", int.class);
            QUEUED_SENDS = l.findVarHandle(SocketCounters.class, "queuedSends", int.class);
            BACKLOG = l.findVarHandle(SocketCounters.class, "backlog", long.class);
            UNDELIVERED = l.findVarHandle(SocketCounters.class, "undelivered", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private long messagesIn;
    private long bytesIn;
    private long messagesOut;
    private long bytesOut;
    private long hwmDrops;
    private long unroutableDrops;
    private long tooLarge;
    private long multipartDrops;
    private long datagramDrops;
    private long handshakes;
    private long disconnects;
    private long connectFailures;
    private long reconnects;
    private int peers;
    private int queuedSends;
    private long backlog;
    private int undelivered;
    private final long[] failures = new long[ConnectionFailed.Kind.values().length];
    /** The queues of the facade over the socket, which count too; set once when it wraps the socket. */
    private volatile UserQueues userQueues;

    /** The queues between a socket and its user's thread ({@link BlockingSocket}'s), any thread. */
    interface UserQueues {
        /** Messages waiting to be handed to the socket. */
        long queuedOut();

        /** Messages received and not yet taken. */
        long queuedIn();
    }

    void userQueues(UserQueues q) {
        this.userQueues = q;
    }

    // ------------------------------------------------------------------ writers (the event loop)

    /** A message arrived from a peer (before the type looks at it). */
    void received(ZmtpMessage msg) {
        MESSAGES_IN.setOpaque(this, messagesIn + 1);
        BYTES_IN.setOpaque(this, bytesIn + msg.byteSize());
    }

    /** A message or subscription is being written to a peer; only messages count. */
    void writing(Object msg) {
        if (msg instanceof ZmtpMessage) {
            MESSAGES_OUT.setOpaque(this, messagesOut + 1);
            BYTES_OUT.setOpaque(this, bytesOut + ((ZmtpMessage) msg).byteSize());
        }
    }

    /** A message was not written to a peer at its send high-water mark. */
    void hwmDrop() {
        HWM_DROPS.setOpaque(this, hwmDrops + 1);
    }

    /** A message was dropped because no peer could take it by the type's rules. */
    void unroutableDrop() {
        UNROUTABLE_DROPS.setOpaque(this, unroutableDrops + 1);
    }

    /** A multipart message arrived at a single-frame type and was dropped. */
    void multipartDrop() {
        MULTIPART_DROPS.setOpaque(this, multipartDrops + 1);
    }

    /** A udp:// datagram was dropped: malformed, too large, or of a group nobody joined. */
    void datagramDrop() {
        DATAGRAM_DROPS.setOpaque(this, datagramDrops + 1);
    }

    void peers(int n) {
        PEERS.setOpaque(this, n);
    }

    /** Sends now waiting in the socket at the high-water mark. */
    void queuedSends(int n) {
        QUEUED_SENDS.setOpaque(this, n);
    }

    /** Messages added to (positive) or taken from (negative) a connection's backlog. */
    void backlog(int delta) {
        BACKLOG.setOpaque(this, backlog + delta);
    }

    /** Received messages now waiting for the application's handler. */
    void undelivered(int n) {
        UNDELIVERED.setOpaque(this, n);
    }

    /** Counts what the socket's monitor events say (handshakes, failures, reconnects). */
    void onEvent(SocketEvent e) {
        switch (e.type()) {
            case HANDSHAKE_SUCCEEDED -> HANDSHAKES.setOpaque(this, handshakes + 1);
            case DISCONNECTED -> {
                DISCONNECTS.setOpaque(this, disconnects + 1);
                if (e.failure() == ConnectionFailed.Kind.MESSAGE_TOO_LARGE) {
                    TOO_LARGE.setOpaque(this, tooLarge + 1);
                }
            }
            case CONNECT_FAILED -> CONNECT_FAILURES.setOpaque(this, connectFailures + 1);
            case RECONNECT_SCHEDULED -> RECONNECTS.setOpaque(this, reconnects + 1);
            case HANDSHAKE_FAILED -> {
                ConnectionFailed.Kind k = e.failure() == null ? ConnectionFailed.Kind.HANDSHAKE : e.failure();
                FAILURES.setOpaque(failures, k.ordinal(), failures[k.ordinal()] + 1);
            }
            default -> { }
        }
    }

    // ------------------------------------------------------------------ readers (any thread)

    SocketMetrics snapshot() {
        Map<ConnectionFailed.Kind, Long> f = new EnumMap<>(ConnectionFailed.Kind.class);
        for (ConnectionFailed.Kind k : ConnectionFailed.Kind.values()) {
            f.put(k, (long) FAILURES.getOpaque(failures, k.ordinal()));
        }
        long queuedOut = (int) QUEUED_SENDS.getOpaque(this) + (long) BACKLOG.getOpaque(this);
        long queuedIn = (int) UNDELIVERED.getOpaque(this);
        UserQueues b = userQueues;
        if (b != null) {
            queuedOut += b.queuedOut();
            queuedIn += b.queuedIn();
        }
        return new SocketMetrics(
                (long) MESSAGES_IN.getOpaque(this), (long) BYTES_IN.getOpaque(this),
                (long) MESSAGES_OUT.getOpaque(this), (long) BYTES_OUT.getOpaque(this),
                (long) HWM_DROPS.getOpaque(this), (long) UNROUTABLE_DROPS.getOpaque(this),
                (long) TOO_LARGE.getOpaque(this), (long) MULTIPART_DROPS.getOpaque(this),
                (long) HANDSHAKES.getOpaque(this), (long) DISCONNECTS.getOpaque(this),
                (long) CONNECT_FAILURES.getOpaque(this), (long) RECONNECTS.getOpaque(this),
                f, (int) PEERS.getOpaque(this), Math.max(0, queuedOut), queuedIn,
                (long) DATAGRAM_DROPS.getOpaque(this));
    }
}
