package io.zmtp.patterns.kit;


import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A queue's or broker's view of which peers are alive: every peer in the order it was last heard
 * from, with the time its silence runs out. {@link #heard} moves a peer to the end, so the peers
 * whose time ran out are always at the head and {@link #expire} looks at nothing else. All
 * operations are O(1) (expiry: per peer expired).
 *
 * <p>Expiry runs in bounded batches ({@link #expireInBatches}): after each batch the rest is
 * handed back to the loop, so a mass expiry (a network split of thousands of workers) does not
 * hold up reading and routing. Call {@code expire} only on a tick that counts silence
 * ({@link HeartbeatTicker}): a tick late because the loop stalled must not expire peers whose
 * messages the loop has not read yet. Used on the component's loop only.
 *
 * @param <P> the peer's key (a {@link io.zmtp.socket.RoutingId}, or the owner's worker object)
 */
public final class PeerLiveness<P> {
    /** How many peers one batch expires by default before giving the loop back. */
    public static final int DEFAULT_BATCH = 256;

    private final LoopClock clock;
    private final long expiryNanos;
    /** In access order: {@link #heard}'s lookup moves a peer to the end, with no allocation. */
    private final LinkedHashMap<P, Deadline> deadlines = new LinkedHashMap<>(16, 0.75f, true);
    private boolean expiring;

    /** @param expiry how long a peer may stay silent (interval x liveness) */
    public PeerLiveness(LoopClock clock, Duration expiry) {
        this.clock = clock;
        this.expiryNanos = expiry.toNanos();
    }

    /** The peer sent something: alive until expiry from now. True if the peer was new. */
    public boolean heard(P peer) {
        long at = clock.nanoTime() + expiryNanos;
        Deadline d = deadlines.get(peer);
        if (d != null) {
            d.at = at;
            return false;
        }
        deadlines.put(peer, new Deadline(at));
        return true;
    }

    /** Forgets the peer (it left, or was removed otherwise); false if it was not known. */
    public boolean remove(P peer) {
        return deadlines.remove(peer) != null;
    }

    public boolean contains(P peer) {
        return deadlines.containsKey(peer);
    }

    public int size() {
        return deadlines.size();
    }

    public boolean isEmpty() {
        return deadlines.isEmpty();
    }

    /** The live peers, longest silent first (a view: do not change the set while iterating). */
    public Set<P> peers() {
        return java.util.Collections.unmodifiableSet(deadlines.keySet());
    }

    /** Forgets every peer. */
    public void clear() {
        deadlines.clear();
    }

    /**
     * Removes at most {@code max} peers whose silence ran out, longest silent first, handing each
     * to {@code expired} (after it is removed). Returns true if more are due.
     */
    public boolean expire(int max, Consumer<? super P> expired) {
        long now = clock.nanoTime();
        Iterator<Map.Entry<P, Deadline>> oldestFirst = deadlines.entrySet().iterator();
        int n = 0;
        while (oldestFirst.hasNext()) {
            Map.Entry<P, Deadline> e = oldestFirst.next();
            if (e.getValue().at - now > 0) {
                return false; // the rest were heard from more recently
            }
            if (n == max) {
                return true;
            }
            oldestFirst.remove();
            n++;
            expired.accept(e.getKey());
        }
        return false;
    }

    /**
     * Expires every peer whose silence ran out, {@code batch} at a time: the first batch now,
     * the next ones as new tasks on the loop (reading and routing run in between), then
     * {@code done}. A call while batches are still running only adds nothing.
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

    /** When a peer's silence runs out (changed in place when it is heard from again). */
    private static final class Deadline {
        long at;

        Deadline(long at) {
            this.at = at;
        }
    }
}
