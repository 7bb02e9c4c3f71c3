package io.zmtp.patterns.binarystar;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The Binary Star finite-state machine of the guide's chapter 4, without sockets: the state of
 * one server of the pair, driven by the state its peer publishes and by client requests, and
 * the time the peer was last heard from. Not thread-safe: one owner (a server's loop).
 *
 * <p>The table (anything not listed: no change, accepted):
 * <pre>
 *  PRIMARY + peer BACKUP   -> ACTIVE              PRIMARY + peer PRIMARY   -> fatal (both primary)
 *  PRIMARY + peer ACTIVE   -> PASSIVE
 *  PRIMARY + client request -> ACTIVE and served if the peer has been silent for the expiry since
 *                              this server started (or since it was last heard), else refused
 *  BACKUP  + peer ACTIVE   -> PASSIVE             BACKUP  + client request -> refused
 *  BACKUP  + peer BACKUP   -> fatal (both backup)
 *  ACTIVE  + peer ACTIVE   -> fatal (both active) ACTIVE  + client request -> served
 *  PASSIVE + peer PRIMARY  -> ACTIVE (the peer restarted)
 *  PASSIVE + peer BACKUP   -> ACTIVE (the peer restarted)
 *  PASSIVE + peer PASSIVE  -> fatal (both passive)
 *  PASSIVE + client request -> ACTIVE and served if the peer has been silent for the expiry
 *                              (split-brain rule: lost peer AND a client asking), else refused
 * </pre>
 * "Both primary" and "both backup" are not in the guide's code (there the pair would simply
 * never serve); here they are reported as the configuration error they are. A fatal outcome
 * leaves the state as it was; its owner stops, as the guide's servers do.
 *
 * <p>The primary's rule is that of the guide's reactor ({@code bstar}), not of its first server
 * ({@code bstarsrv}, which serves in PRIMARY at once): after a failover the backup is ACTIVE, and a
 * primary restarted on the same endpoint must not serve a client that reaches it before the
 * backup's state does, or both would answer. So a primary serves only once it knows its peer
 * (BACKUP: it becomes ACTIVE; ACTIVE: it becomes PASSIVE), or once the peer has been silent for
 * the expiry since {@link #start()}, as a passive server takes over.
 */
public final class BinaryStarFsm {

    /** What an event did. */
    public enum Verdict {
        /** Accepted: a peer state taken in, or a client request to serve. */
        ACCEPTED,
        /** A client request this server must not serve (drop it). */
        REFUSED,
        /** The pair is in a state that must not be (the server should stop). */
        FATAL
    }

    /**
     * The outcome of one event.
     *
     * @param from the state before
     * @param to the state after (equal to {@code from}: no transition)
     * @param verdict accepted, refused or fatal
     * @param reason what happened, in words (the guide's lines), or null when nothing did
     */
    public record Outcome(BinaryStarState from, BinaryStarState to, Verdict verdict, String reason) {
        public boolean changed() {
            return from != to;
        }

        public boolean accepted() {
            return verdict == Verdict.ACCEPTED;
        }

        public boolean fatal() {
            return verdict == Verdict.FATAL;
        }
    }

    private final LongSupplier nanoTime;
    private final long expiryNanos;
    private BinaryStarState state;
    private boolean peerHeard;
    private long peerExpiry; // until then the peer may be alive: since start, or since last heard

    /**
     * @param primary whether this server is the primary (else the backup)
     * @param peerExpiry how long the peer may be silent before it counts as gone (the guide's
     *        two heartbeats)
     * @param nanoTime the clock (a component's {@code clock()::nanoTime})
     */
    public BinaryStarFsm(boolean primary, Duration peerExpiry, LongSupplier nanoTime) {
        if (peerExpiry.isNegative() || peerExpiry.isZero()) {
            throw new IllegalArgumentException("peer expiry must be positive");
        }
        this.nanoTime = Objects.requireNonNull(nanoTime);
        this.expiryNanos = peerExpiry.toNanos();
        this.state = primary ? BinaryStarState.PRIMARY : BinaryStarState.BACKUP;
        start();
    }

    /**
     * This server starts waiting for its peer now: until the expiry has passed, or the peer is
     * heard, the peer may be active (the guide's {@code bstar_start}). The constructor calls it;
     * the owner calls it again when it starts its state exchange.
     */
    public void start() {
        peerExpiry = nanoTime.getAsLong() + expiryNanos;
    }

    public BinaryStarState state() {
        return state;
    }

    /** Whether the peer has been heard from and was silent for less than the expiry since. */
    public boolean peerAlive() {
        return peerHeard && nanoTime.getAsLong() - peerExpiry < 0;
    }

    /**
     * The peer published {@code peer}: the transition it causes, then the peer counts as alive
     * for one more expiry (not after a fatal outcome).
     */
    public Outcome peerState(BinaryStarState peer) {
        Objects.requireNonNull(peer);
        BinaryStarState from = state;
        Outcome o = switch (from) {
            case PRIMARY -> switch (peer) {
                case BACKUP -> to(BinaryStarState.ACTIVE, "connected to backup (passive), ready as active");
                case ACTIVE -> to(BinaryStarState.PASSIVE, "connected to backup (active), ready as passive");
                case PRIMARY -> fatal("both servers are primary (misconfigured pair)");
                case PASSIVE -> same();
            };
            case BACKUP -> switch (peer) {
                case ACTIVE -> to(BinaryStarState.PASSIVE, "connected to primary (active), ready as passive");
                case BACKUP -> fatal("both servers are backup (misconfigured pair)");
                default -> same();
            };
            case ACTIVE -> peer == BinaryStarState.ACTIVE ? fatal("dual actives (split brain)") : same();
            case PASSIVE -> switch (peer) {
                case PRIMARY -> to(BinaryStarState.ACTIVE, "primary (slave) is restarting, ready as active");
                case BACKUP -> to(BinaryStarState.ACTIVE, "backup (slave) is restarting, ready as active");
                case PASSIVE -> fatal("dual passives");
                case ACTIVE -> same();
            };
        };
        if (!o.fatal()) {
            peerHeard = true;
            peerExpiry = nanoTime.getAsLong() + expiryNanos;
        }
        return o;
    }

    /** A client request arrived: whether to serve it, and the transition it causes. */
    public Outcome clientRequest() {
        return switch (state) {
            case ACTIVE -> same();
            case PRIMARY -> peerMayBeAlive()
                    ? refused("primary has not heard from the backup yet (it may be active after a failover)")
                    : to(BinaryStarState.ACTIVE, "request from client, ready as active");
            case BACKUP -> refused("backup has not heard from the primary yet");
            case PASSIVE -> peerMayBeAlive() ? refused("passive while the peer is alive")
                    : to(BinaryStarState.ACTIVE, "failover successful, ready as active");
        };
    }

    /** Whether the expiry has not yet passed since the peer was last heard, or since {@link #start()}. */
    private boolean peerMayBeAlive() {
        return nanoTime.getAsLong() - peerExpiry < 0;
    }

    private Outcome to(BinaryStarState next, String reason) {
        BinaryStarState from = state;
        state = next;
        return new Outcome(from, next, Verdict.ACCEPTED, reason);
    }

    private Outcome same() {
        return new Outcome(state, state, Verdict.ACCEPTED, null);
    }

    private Outcome refused(String reason) {
        return new Outcome(state, state, Verdict.REFUSED, reason);
    }

    private Outcome fatal(String reason) {
        return new Outcome(state, state, Verdict.FATAL, reason);
    }
}
