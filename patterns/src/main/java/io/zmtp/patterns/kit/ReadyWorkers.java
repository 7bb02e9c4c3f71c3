package io.zmtp.patterns.kit;

import io.zmtp.socket.RoutingId;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Workers ready for a request, least recently used first (the guide's LRU queue): a worker joins
 * at the end when it becomes ready, a request takes the one at the head, the one that has waited
 * longest. Keyed by routing id, so a worker that leaves or expires is removed in O(1); every
 * operation is O(1). Used on the owner's loop only.
 *
 * @param <W> what the owner keeps per worker (the {@link RoutingId} itself is fine)
 */
public final class ReadyWorkers<W> {
    private final LinkedHashMap<RoutingId, W> ready = new LinkedHashMap<>();

    /** Puts the worker at the end if it is not ready already; true if it was added. */
    public boolean add(RoutingId id, W worker) {
        return ready.putIfAbsent(id, worker) == null;
    }

    /** Takes the worker out (it left, expired or went busy); true if it was ready. */
    public boolean remove(RoutingId id) {
        return ready.remove(id) != null;
    }

    public boolean contains(RoutingId id) {
        return ready.containsKey(id);
    }

    /** Takes the least recently used worker out, or returns null if none is ready. */
    public W poll() {
        Iterator<W> it = ready.values().iterator();
        if (!it.hasNext()) {
            return null;
        }
        W w = it.next();
        it.remove();
        return w;
    }

    /**
     * Takes the least recently used worker that is still {@code alive}, handing those that are
     * not (their connection is gone) to {@code gone}; null if none is left.
     */
    public W poll(Predicate<? super W> alive, Consumer<? super W> gone) {
        W w;
        while ((w = poll()) != null) {
            if (alive.test(w)) {
                return w;
            }
            gone.accept(w);
        }
        return null;
    }

    public boolean isEmpty() {
        return ready.isEmpty();
    }

    public int size() {
        return ready.size();
    }

    public void clear() {
        ready.clear();
    }
}
