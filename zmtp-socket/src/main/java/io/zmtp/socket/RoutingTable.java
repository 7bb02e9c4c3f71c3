package io.zmtp.socket;

import io.netty.buffer.ByteBuf;

import java.util.HashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * ROUTER's table of peers by {@link RoutingId}: the Identity a peer announced, or an id generated
 * for it when it announced none (5 bytes: a zero byte, then a counter starting at a random value,
 * as libzmq does). Ids are chosen by peers; {@link RoutingId}'s seeded hash keeps chosen ids from
 * colliding, and its order bounds the cost of ids that collide anyway. Lookups by a frame's bytes
 * allocate nothing (one reused probe).
 */
final class RoutingTable {

    /**
     * A lookup key over a frame's bytes, equal to the {@link RoutingId} of the same bytes. Only
     * ever passed to {@link HashMap#get}, which calls the probe's {@code equals} with the stored key.
     */
    private static final class Probe {
        ByteBuf frame;
        int hash;

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof RoutingId id && id.hashCode() == hash && id.matches(frame);
        }
    }

    private final HashMap<Object, Pipe> byId = new HashMap<>();
    private final Probe probe = new Probe();
    /**
     * The last id found by {@link #get(RoutingId)} and its peer: an application that routes with
     * the same {@link RoutingId} object again (a broker's reply to the peer it last answered, a
     * worker's constant id) skips the map. Cleared whenever the table changes.
     */
    private RoutingId lastId;
    private Pipe lastPipe;
    private int nextGenerated = ThreadLocalRandom.current().nextInt();

    /**
     * Gives {@code pipe} its routing id. Returns the pipe that held that id before and was
     * displaced (handover), or null. Returns {@code pipe} itself when the id is taken and
     * handover is off: the new peer then gets no id and is ignored, as in libzmq.
     */
    Pipe add(Pipe pipe, boolean handover) {
        byte[] id = pipe.connectRoutingId != null ? pipe.connectRoutingId : pipe.peerMetadata().identity();
        RoutingId key = id.length == 0 ? generate() : RoutingId.wrap(id);
        Pipe old = byId.get(key);
        if (old != null && !handover) {
            return pipe;
        }
        if (old != null) {
            old.clearRoutingId();
        }
        forgetLast();
        pipe.setRoutingId(key);
        byId.put(key, pipe);
        return old;
    }

    /** The peer whose routing id equals {@code id}'s readable bytes, or null. */
    Pipe get(ByteBuf id) {
        probe.frame = id;
        probe.hash = RoutingId.hash(id);
        try {
            return byId.get(probe);
        } finally {
            probe.frame = null;
        }
    }

    /** The peer with this routing id, or null. */
    Pipe get(RoutingId id) {
        if (id == lastId) {
            return lastPipe;
        }
        Pipe p = byId.get(id);
        if (p != null) {
            lastId = id;
            lastPipe = p;
        }
        return p;
    }

    private void forgetLast() {
        lastId = null;
        lastPipe = null;
    }

    /** The peer with this routing id, or null. */
    Pipe get(byte[] id) {
        return byId.get(RoutingId.wrap(id));
    }

    void remove(Pipe pipe) {
        RoutingId id = pipe.routingId();
        if (id != null) {
            forgetLast();
            byId.remove(id, pipe);
            pipe.clearRoutingId();
        }
    }

    int size() {
        return byId.size();
    }

    private RoutingId generate() {
        for (;;) {
            int n = nextGenerated++;
            RoutingId id = RoutingId.wrap(new byte[] {0, (byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
            if (!byId.containsKey(id)) {
                return id;
            }
        }
    }
}
