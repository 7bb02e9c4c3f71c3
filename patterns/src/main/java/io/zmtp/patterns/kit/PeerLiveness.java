package io.zmtp.patterns.kit;


import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A pattern's liveness of its peers: the one heartbeat concept of the pattern level (below it,
 * ZMTP's own PING/PONG keeps a connection alive, {@link io.zmtp.wire.HeartbeatPolicy}). It beats
 * every interval; on a beat that counts it forgets the peers silent for the expiry; and it says
 * when a peer is due a heartbeat. What a heartbeat is on the wire, and what a lost peer means,
 * stay with the owner ({@link Owner}).
 *
 * <h2>Why one class</h2>
 * The guide's heartbeats have three parts that every pattern combined by hand: a timer that beats
 * every interval, the time each peer was last heard from, and, for a worker, a countdown of its
 * one upstream peer's liveness. They are one mechanism seen from two sides:
 * <ul>
 *   <li>The beat and the expiry cannot be separated without getting the stall rule wrong twice:
 *       a beat that runs more than half an interval late (the loop itself stalled, and has not
 *       read what peers sent meanwhile) must expire nobody, and a long stall is one beat, not
 *       several. At most one beat in a row is discounted, so a loop that is always late still
 *       finds silent peers. Only the class that runs the beat knows whether it was late.</li>
 *   <li>Many peers (a queue's or a broker's workers, a Freelance client's servers, the other
 *       server of a Binary Star pair) and one upstream peer (a worker's queue or broker) are the
 *       same thing with a map of one: a deadline per peer, renewed when it is heard from. The
 *       countdown of one peer (liveness - 1 per silent beat) is that deadline counted in beats;
 *       counted in time instead it stays O(1) per message for thousands of peers, because
 *       {@link #heard} moves a peer to the end of an access-ordered map, so the peers whose time
 *       ran out are always at its head and expiry looks at nothing else.</li>
 *   <li>When a peer is due a heartbeat is the same bookkeeping in the other direction: the time
 *       something was last sent to it ({@link #sent}). A broker that heartbeats each worker one
 *       interval after it last sent it anything (MDP) needs one timer, set for the peer sent to
 *       longest ago; a queue or a worker that heartbeats on every beat does not call {@code sent}.</li>
 * </ul>
 * What is not here: reconnecting to a lost upstream peer, with its backoff, which is a worker's
 * failover ({@link UpstreamConnection}); the settings, interval and liveness ({@link Heartbeat}).
 *
 * <p>The peer's silence counts in time, from when it was last heard ({@code heard}), and a beat
 * that counts forgets the peers whose expiry has passed (at the expiry exactly, or later): so a
 * peer silent for liveness intervals is lost on the beat that ends the last of them, and a peer
 * heard between beats is given between liveness and liveness + 1 intervals.
 *
 * <p>Expiry runs in bounded batches ({@code batch} peers per loop task, then the rest is handed
 * back to the loop), so a mass expiry (a network split of thousands of workers) does not hold up
 * reading and routing; the owner's {@link Owner#beat beat} follows the last batch. Used on the
 * component's loop only.
 *
 * @param <P> the peer's key (a {@link io.zmtp.socket.RoutingId}, or the owner's peer object)
 */
public final class PeerLiveness<P> {
    /** How many peers one batch expires by default before giving the loop back. */
    public static final int DEFAULT_BATCH = 256;

    /** What the owner does with the beat (all on the loop). */
    public interface Owner<P> {
        /**
         * The beat, every interval, after this beat's expiry: send what goes every interval (a
         * heartbeat to every peer, to the upstream peer, the state of a pair...).
         *
         * @param counted false for a beat that ran late (the loop stalled): it expired nobody
         */
        void beat(boolean counted);

        /** {@code peer} was silent for the expiry: it is forgotten (already removed). */
        default void expired(P peer) {
        }

        /** Nothing was {@link #sent} to {@code peer} for an interval: send it a heartbeat now (it counts as sent). */
        default void due(P peer) {
        }
    }

    private final LoopClock clock;
    private final Duration interval;
    private final long intervalNanos;
    private final long expiryNanos;
    private final int batch;
    private final Owner<P> owner;
    /** The peers by when they were last heard from, longest silent first (access order: no allocation per message). */
    private final LinkedHashMap<P, Deadline> silence = new LinkedHashMap<>(16, 0.75f, true);
    /** The peers {@link #sent} to, by when they are due a heartbeat, the earliest first. */
    private final LinkedHashMap<P, Deadline> due = new LinkedHashMap<>(16, 0.75f, true);

    private boolean beating;
    /** Counts starts and stops: a beat whose owner restarted or stopped the beat meanwhile does no more. */
    private long phase;
    private LoopClock.Timer beatTimer;
    private long beatDue;
    private boolean discountedLast;
    private LoopClock.Timer dueTimer;
    private boolean expiring;

    /** The guide's use: a beat every {@code heartbeat} interval, peers lost after its expiry, batches of {@value #DEFAULT_BATCH}. */
    public PeerLiveness(LoopClock clock, Heartbeat heartbeat, Owner<P> owner) {
        this(clock, heartbeat.interval(), heartbeat.expiry(), DEFAULT_BATCH, owner);
    }

    /**
     * @param interval how often it beats
     * @param expiry how long a peer may stay silent (interval x liveness, or a time to live)
     * @param batch how many peers a beat expires per loop task, at least 1
     */
    public PeerLiveness(LoopClock clock, Duration interval, Duration expiry, int batch, Owner<P> owner) {
        this.clock = Objects.requireNonNull(clock);
        this.interval = Objects.requireNonNull(interval);
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the beat's interval must be positive");
        }
        if (batch < 1) {
            throw new IllegalArgumentException("batch must be at least 1");
        }
        this.intervalNanos = interval.toNanos();
        this.expiryNanos = expiry.toNanos();
        this.batch = batch;
        this.owner = Objects.requireNonNull(owner);
    }

    // ------------------------------------------------------------------ the beat

    /** Starts beating, or starts again: the next beat is an interval from now. */
    public void start() {
        phase++;
        cancelBeat();
        beating = true;
        discountedLast = false;
        scheduleBeat();
        if (dueTimer == null) {
            scheduleDue(clock.nanoTime());
        }
    }

    /** Stops beating and sending due heartbeats; the peers are kept. */
    public void stop() {
        phase++;
        beating = false;
        cancelBeat();
        if (dueTimer != null) {
            dueTimer.cancel();
            dueTimer = null;
        }
    }

    /** Whether it beats (between {@link #start} and {@link #stop}). */
    public boolean isBeating() {
        return beating;
    }

    private void cancelBeat() {
        if (beatTimer != null) {
            beatTimer.cancel();
            beatTimer = null;
        }
    }

    private void scheduleBeat() {
        beatDue = clock.nanoTime() + intervalNanos;
        beatTimer = clock.schedule(this::beat, interval);
    }

    private void beat() {
        beatTimer = null;
        if (!beating) {
            return;
        }
        long thisPhase = phase;
        boolean late = clock.nanoTime() - beatDue > intervalNanos / 2;
        boolean counted = !late || discountedLast;
        discountedLast = !counted;
        if (counted && !expiring) {
            expireInBatches(batch, owner::expired, () -> {
                if (phase == thisPhase) {
                    owner.beat(true);
                }
            });
        } else {
            owner.beat(counted);
        }
        if (phase == thisPhase && beating && beatTimer == null) {
            scheduleBeat();
        }
    }

    // ------------------------------------------------------------------ the peers' silence

    /** The peer sent something: alive until the expiry from now. True if the peer was new. */
    public boolean heard(P peer) {
        long at = clock.nanoTime() + expiryNanos;
        Deadline d = silence.get(peer);
        if (d != null) {
            d.at = at;
            return false;
        }
        silence.put(peer, new Deadline(at));
        return true;
    }

    /** Whether the peer is known and its expiry has not passed (it may be forgotten on the next beat). */
    public boolean isAlive(P peer) {
        Deadline d = silence.get(peer);
        return d != null && d.at - clock.nanoTime() > 0;
    }

    /** Forgets the peer (it left, or was removed otherwise); false if it was not known. */
    public boolean remove(P peer) {
        due.remove(peer);
        return silence.remove(peer) != null;
    }

    public boolean contains(P peer) {
        return silence.containsKey(peer);
    }

    public int size() {
        return silence.size();
    }

    public boolean isEmpty() {
        return silence.isEmpty();
    }

    /** The known peers, longest silent first (a view: do not change the set while iterating). */
    public Set<P> peers() {
        return Collections.unmodifiableSet(silence.keySet());
    }

    /** Forgets every peer. */
    public void clear() {
        silence.clear();
        due.clear();
        if (dueTimer != null) {
            dueTimer.cancel();
            dueTimer = null;
        }
    }

    /**
     * Removes at most {@code max} peers whose expiry has passed, longest silent first, then hands
     * each to {@code expired} (which may change the peers). Returns true if more are due. A beat
     * does this by itself; call it to expire between beats.
     */
    public boolean expire(int max, Consumer<? super P> expired) {
        long now = clock.nanoTime();
        Iterator<Map.Entry<P, Deadline>> oldestFirst = silence.entrySet().iterator();
        List<P> gone = new ArrayList<>(0);
        boolean more = false;
        while (oldestFirst.hasNext()) {
            Map.Entry<P, Deadline> e = oldestFirst.next();
            if (e.getValue().at - now > 0) {
                break; // the rest were heard from more recently
            }
            if (gone.size() == max) {
                more = true;
                break;
            }
            oldestFirst.remove();
            due.remove(e.getKey());
            gone.add(e.getKey());
        }
        for (P p : gone) {
            expired.accept(p);
        }
        return more;
    }

    /**
     * Expires every peer whose expiry has passed, {@code batch} at a time: the first batch now,
     * the next ones as new tasks on the loop (reading and routing run in between), then
     * {@code done}. A call while batches are still running adds nothing.
     */
    public void expireInBatches(int batch, Consumer<? super P> expired, Runnable done) {
        if (batch < 1) {
            throw new IllegalArgumentException("batch must be at least 1");
        }
        if (expiring) {
            return;
        }
        expiring = true;
        runBatch(batch, expired, done);
    }

    private void runBatch(int batch, Consumer<? super P> expired, Runnable done) {
        boolean more;
        try {
            more = expire(batch, expired);
        } catch (RuntimeException e) {
            expiring = false;
            throw e;
        }
        if (more) {
            clock.loop().execute(() -> runBatch(batch, expired, done));
        } else {
            expiring = false;
            done.run();
        }
    }

    // ------------------------------------------------------------------ heartbeats due

    /**
     * Something went to the peer: its next heartbeat is due an interval from now
     * ({@link Owner#due}), for an owner that heartbeats each peer only when it sent it nothing
     * else. Due heartbeats go while the beat runs.
     */
    public void sent(P peer) {
        long now = clock.nanoTime();
        dueFrom(peer, now);
        if (dueTimer == null && beating) {
            scheduleDue(now);
        }
    }

    /** The peer's next heartbeat is due an interval after {@code now} (it moves to the end). */
    private void dueFrom(P peer, long now) {
        Deadline d = due.get(peer);
        if (d != null) {
            d.at = now + intervalNanos;
        } else {
            due.put(peer, new Deadline(now + intervalNanos));
        }
    }

    /** Sets the one timer of due heartbeats for the peer sent to longest ago, if any. */
    private void scheduleDue(long now) {
        Iterator<Deadline> first = due.values().iterator();
        if (first.hasNext()) {
            dueTimer = clock.schedule(this::sendDue, Duration.ofNanos(first.next().at - now));
        }
    }

    /** Every peer nothing was sent to for an interval is due: it counts as sent now, and the owner heartbeats it. */
    private void sendDue() {
        dueTimer = null;
        long now = clock.nanoTime();
        List<P> peers = new ArrayList<>();
        for (Map.Entry<P, Deadline> e : due.entrySet()) {
            if (e.getValue().at - now > 0) {
                break;
            }
            peers.add(e.getKey());
        }
        for (P p : peers) {
            dueFrom(p, now);
        }
        for (P p : peers) {
            owner.due(p);
        }
        if (dueTimer == null && beating) {
            scheduleDue(now);
        }
    }

    /** When a peer's silence runs out, or its heartbeat is due (changed in place). */
    private static final class Deadline {
        long at;

        Deadline(long at) {
            this.at = at;
        }
    }
}
