package io.zmtp.socket;

import io.netty.util.collection.IntObjectHashMap;

import java.util.concurrent.ThreadLocalRandom;

/**
 * SERVER and PEER's table of peers by routing id: a non-zero 32-bit number per connection,
 * numbered as libzmq's server_t numbers them (a counter of the socket that starts at a random
 * value and skips 0). Unlike libzmq, a number still in use, or kept for a PEER's connect
 * endpoint, is skipped too, so that a counter that wrapped around never gives one peer's number
 * to another. The socket's event loop only; lookups box nothing.
 */
final class NumberedPeers {
    private final IntObjectHashMap<Pipe> byId = new IntObjectHashMap<>();
    /** Numbers given out and kept though no peer may hold them now (a PEER's connect endpoints). */
    private final IntObjectHashMap<Boolean> kept = new IntObjectHashMap<>();
    private int next = ThreadLocalRandom.current().nextInt();

    /** A number no peer holds and none is kept for: the counter's next. */
    int next() {
        for (;;) {
            int id = next++;
            if (id != 0 && !byId.containsKey(id) && !kept.containsKey(id)) {
                return id;
            }
        }
    }

    /** A number kept for one connect endpoint until {@link #forget}: each of its connections gets it. */
    int keep() {
        int id = next();
        kept.put(id, Boolean.TRUE);
        return id;
    }

    /** The number is no longer kept (its endpoint was replaced); a peer holding it keeps it until it goes. */
    void forget(int id) {
        kept.remove(id);
    }

    /**
     * Gives {@code pipe} the number {@code id}. Returns the pipe that held it and was displaced
     * (a connect endpoint's new connection while its last is still being closed), or null.
     */
    Pipe add(Pipe pipe, int id) {
        Pipe old = byId.put(id, pipe);
        if (old != null) {
            old.serverRoutingId = 0;
        }
        pipe.serverRoutingId = id;
        return old;
    }

    /** The peer holding {@code id}, or null (none; 0 is nobody's). */
    Pipe get(int id) {
        return id == 0 ? null : byId.get(id);
    }

    void remove(Pipe pipe) {
        int id = pipe.serverRoutingId;
        if (id != 0) {
            if (byId.get(id) == pipe) {
                byId.remove(id);
            }
            pipe.serverRoutingId = 0;
        }
    }
}
