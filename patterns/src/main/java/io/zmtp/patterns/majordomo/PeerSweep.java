package io.zmtp.patterns.majordomo;

import io.netty.util.concurrent.EventExecutor;

import java.util.ArrayList;
import java.util.Collection;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The broker's check of every peer when a connection of its ROUTER closed without naming its
 * routing id (a ROUTER names it; this is the fallback): each client with queued requests and each
 * worker is checked, {@value #BATCH} per loop task, so thousands of peers do not hold up reading
 * and routing. A connection that closes while a sweep runs makes one more sweep after it. Used on
 * the broker's loop only.
 */
final class PeerSweep {
    /** Peers checked per loop task. */
    static final int BATCH = 512;

    private final EventExecutor loop;
    private final Supplier<Collection<?>> peers;
    private final Consumer<Object> check;
    /** The peers still to check in the current sweep, or null. */
    private ArrayList<Object> pending;
    private boolean again;
    private boolean stopped;

    /**
     * @param peers every peer to check now (the broker's clients with queued requests, and workers)
     * @param check checks one peer, taken at the time of the sweep: still the broker's and gone?
     */
    PeerSweep(EventExecutor loop, Supplier<Collection<?>> peers, Consumer<Object> check) {
        this.loop = loop;
        this.peers = peers;
        this.check = check;
    }

    /** A connection closed: sweep (after the one running, if any). */
    void start() {
        if (stopped) {
            return;
        }
        if (pending != null) {
            again = true;
            return;
        }
        Collection<?> all = peers.get();
        if (all.isEmpty()) {
            return;
        }
        pending = new ArrayList<>(all);
        loop.execute(this::batch);
    }

    /** No more sweeps (the broker closed). */
    void stop() {
        stopped = true;
        pending = null;
    }

    private void batch() {
        if (stopped || pending == null) {
            pending = null;
            return;
        }
        for (int n = 0; n < BATCH && !pending.isEmpty(); n++) {
            check.accept(pending.remove(pending.size() - 1));
        }
        if (!pending.isEmpty()) {
            loop.execute(this::batch);
            return;
        }
        pending = null;
        if (again) {
            again = false;
            start();
        }
    }
}
