package io.zmtp.socket;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import io.zmtp.wire.ZmtpMessage;

import java.util.ArrayList;
import java.util.Collection;
import java.util.function.Consumer;

/**
 * Distribution to subscribers (PUB, XPUB): an index of which peers subscribed to which binary
 * prefixes, and the fan-out of a message to every peer with a prefix of its first frame, each
 * once. A peer at its send high-water mark misses the message (it is dropped for that peer
 * only). Matching walks a {@link PrefixTrie}: no scan over all subscriptions.
 *
 * <p>Per peer a prefix is a set member, not a count (as libzmq's publishers): subscribers send
 * every SUBSCRIBE but only their last CANCEL, which is how subscriptions stay counted end to end.
 * Prefixes are peer-chosen, so each peer's set is keyed by {@link RoutingId} (seeded hash), and
 * bounded by the socket's {@link SocketOptions#maxSubscriptionSize()},
 * {@link SocketOptions#maxSubscriptions()} and {@link SocketOptions#maxSubscriptionBytes()}:
 * {@link #refusal} says when a SUBSCRIBE passes them, and the socket then closes that peer.
 */
final class Distributor {
    private final PrefixTrie<ArrayList<Pipe.Subscriber>> index = new PrefixTrie<>();
    private final int maxSize;
    private final int maxCount;
    private final long maxBytes;
    private long epoch;

    Distributor(SocketOptions options) {
        this.maxSize = options.maxSubscriptionSize();
        this.maxCount = options.maxSubscriptions();
        this.maxBytes = options.maxSubscriptionBytes();
    }

    /**
     * Why {@code pipe} may not subscribe to {@code topic}, or null when it may (or already has):
     * the prefix is longer than the maximum, or the peer would pass its count or byte budget.
     */
    String refusal(Pipe pipe, ByteBuf topic) {
        int len = topic.readableBytes();
        if (len > maxSize) {
            return "subscription of " + len + " bytes exceeds the maximum of " + maxSize;
        }
        Pipe.Subscriber mine = pipe.subscriber;
        if (mine == null) {
            return null;
        }
        int count = mine.prefixes.size();
        if (count < maxCount && mine.bytes + len <= maxBytes) {
            return null;
        }
        if (mine.prefixes.contains(RoutingId.of(topic))) {
            return null;
        }
        return count >= maxCount
                ? "more than " + maxCount + " subscriptions from one peer"
                : "subscriptions from one peer exceed " + maxBytes + " bytes";
    }

    /** Adds a subscription; true when no peer had subscribed to {@code prefix} before. */
    boolean subscribe(Pipe pipe, byte[] prefix) {
        Pipe.Subscriber mine = pipe.subscriber;
        if (mine == null) {
            mine = new Pipe.Subscriber(pipe);
            pipe.subscriber = mine;
        }
        if (!mine.prefixes.add(RoutingId.wrap(prefix))) {
            ArrayList<Pipe.Subscriber> subs = index.get(prefix);
            return subs == null || subs.isEmpty();
        }
        mine.bytes += prefix.length;
        ArrayList<Pipe.Subscriber> subs = index.get(prefix);
        boolean first = subs == null;
        if (first) {
            subs = new ArrayList<>(2);
            index.put(prefix, subs);
        }
        subs.add(mine);
        return first;
    }

    /** Removes a subscription; true when no peer is subscribed to {@code prefix} any more. */
    boolean cancel(Pipe pipe, byte[] prefix) {
        Pipe.Subscriber mine = pipe.subscriber;
        if (mine == null || !mine.prefixes.remove(RoutingId.wrap(prefix))) {
            return false;
        }
        mine.bytes -= prefix.length;
        return removeFromIndex(mine, prefix);
    }

    private boolean removeFromIndex(Pipe.Subscriber subscriber, byte[] prefix) {
        ArrayList<Pipe.Subscriber> subs = index.get(prefix);
        if (subs == null) {
            return false;
        }
        subs.remove(subscriber);
        if (subs.isEmpty()) {
            index.remove(prefix);
            return true;
        }
        return false;
    }

    /** Forgets a departed peer; {@code lastGone} hears each prefix no peer subscribes to now. */
    void removeAll(Pipe pipe, Consumer<byte[]> lastGone) {
        Pipe.Subscriber mine = pipe.subscriber;
        if (mine == null) {
            return;
        }
        pipe.subscriber = null;
        for (RoutingId k : mine.prefixes) {
            if (removeFromIndex(mine, k.array()) && lastGone != null) {
                lastGone.accept(k.array());
            }
        }
    }

    /** Sends {@code msg} to every subscriber whose prefix matches its first frame; consumes it. */
    void send(ZmtpMessage msg) {
        fanout.msg = msg;
        fanout.epoch = ++epoch;
        try {
            index.matchPrefixes(msg.frame(0), fanout);
        } finally {
            fanout.msg = null;
        }
        msg.release();
    }

    /** Writes one message to the subscribers of each matched prefix, once per peer; reused for every send. */
    private static final class Fanout implements Consumer<ArrayList<Pipe.Subscriber>> {
        ZmtpMessage msg;
        long epoch;

        @Override
        public void accept(ArrayList<Pipe.Subscriber> subs) {
            for (int i = 0, n = subs.size(); i < n; i++) {
                Pipe.Subscriber s = subs.get(i);
                if (s.matchEpoch != epoch) {
                    s.matchEpoch = epoch;
                    Pipe p = s.pipe;
                    if (p.hasRoom()) {
                        p.write(msg.retain());
                    } else {
                        p.core.counters().hwmDrop();
                    }
                }
            }
        }
    }

    private final Fanout fanout = new Fanout();

    /** Marks the subscribers of each matched prefix with the current epoch; notes one without room. */
    private static final class Marker implements Consumer<ArrayList<Pipe.Subscriber>> {
        long epoch;
        boolean full;

        @Override
        public void accept(ArrayList<Pipe.Subscriber> subs) {
            for (int i = 0, n = subs.size(); i < n; i++) {
                Pipe.Subscriber s = subs.get(i);
                s.matchEpoch = epoch;
                if (!s.pipe.hasRoom()) {
                    full = true;
                }
            }
        }
    }

    /** Whether {@link #markMatches} marked {@code p} in the current epoch. */
    private boolean marked(Pipe p) {
        return p.subscriber != null && p.subscriber.matchEpoch == epoch;
    }

    private final Marker marker = new Marker();

    /** Marks every subscriber with a prefix of {@code msg}'s first frame; true if one of them is full. */
    private boolean markMatches(ZmtpMessage msg) {
        marker.epoch = ++epoch;
        marker.full = false;
        index.matchPrefixes(msg.frame(0), marker);
        return marker.full;
    }

    /**
     * PUB's and XPUB's send: to the subscribers {@code msg} matches (those it does not match under
     * {@code invertMatching}); with {@code xpubNoDrop}, WOULD_BLOCK instead while a matching
     * subscriber is at its high-water mark.
     */
    SendResult publish(ZmtpMessage msg, Collection<Pipe> all, SocketOptions o) {
        if (o.xpubNoDrop() && !roomFor(msg, all, o.invertMatching())) {
            return SendResult.WOULD_BLOCK;
        }
        if (o.invertMatching()) {
            sendInverted(msg, all);
        } else {
            send(msg);
        }
        return SendResult.SENT;
    }

    /**
     * Whether every peer {@code msg} would go to has room below its send high-water mark
     * (ZMQ_XPUB_NODROP): the subscribers with a matching prefix, or with {@code inverted} the
     * peers of {@code all} without one.
     */
    boolean roomFor(ZmtpMessage msg, Collection<Pipe> all, boolean inverted) {
        boolean matchFull = markMatches(msg);
        if (!inverted) {
            return !matchFull;
        }
        for (Pipe p : all) {
            if (p.attached && !marked(p) && !p.hasRoom()) {
                return false;
            }
        }
        return true;
    }

    /**
     * ZMQ_INVERT_MATCHING: sends {@code msg} to every peer of {@code all} that has no prefix of
     * its first frame (subscribed to nothing included) and room below its mark; consumes it.
     */
    void sendInverted(ZmtpMessage msg, Collection<Pipe> all) {
        try {
            markMatches(msg);
            for (Pipe p : all) {
                if (p.attached && !marked(p) && p.hasRoom()) {
                    p.write(msg.retain());
                }
            }
        } finally {
            msg.release();
        }
    }

    /** The number of distinct prefixes subscribed to. */
    int prefixCount() {
        return index.size();
    }

    /** The trie's node count (memory held for subscriptions: at most 2 per prefix, plus the root). */
    int nodeCount() {
        return index.nodeCount();
    }

    /** The prefix bytes the trie holds. */
    long indexBytes() {
        return index.labelBytes();
    }

    /**
     * Sends one message or subscription to every peer (XSUB upstream, SUB subscriptions).
     * With {@code force} peers at their mark get it anyway (subscriptions must not be lost).
     * Consumes {@code msg}.
     */
    static void sendToAll(Collection<Pipe> pipes, Object msg, boolean force) {
        for (Pipe p : pipes) {
            if (p.attached && (force || p.hasRoom())) {
                p.write(ReferenceCountUtil.retain(msg));
            } else if (p.attached) {
                p.core.counters().hwmDrop();
            }
        }
        ReferenceCountUtil.release(msg);
    }

    /**
     * Writes {@code msg} to each attached peer of {@code pipes} that has room below its send
     * high-water mark, counting a drop for each that has not (a RADIO's groups, {@link GroupIndex});
     * the caller keeps its own reference.
     */
    static void writeToEach(java.util.List<Pipe> pipes, ZmtpMessage msg) {
        for (int i = 0, n = pipes.size(); i < n; i++) {
            Pipe p = pipes.get(i);
            if (!p.attached) {
                continue;
            }
            if (p.hasRoom()) {
                p.write(msg.retain());
            } else {
                p.core.counters().hwmDrop();
            }
        }
    }
}
