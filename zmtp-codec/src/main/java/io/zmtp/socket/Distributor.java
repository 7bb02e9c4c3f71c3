package io.zmtp.socket;

import io.netty.util.ReferenceCountUtil;
import io.zmtp.wire.ZmtpMessage;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Distribution to subscribers (PUB, XPUB): an index of which peers subscribed to which binary
 * prefixes, and the fan-out of a message to every peer with a prefix of its first frame, each
 * once. A peer at its send high-water mark misses the message (it is dropped for that peer
 * only). Matching walks a {@link PrefixTrie}: no scan over all subscriptions.
 *
 * <p>Per peer a prefix is a set member, not a count (as libzmq's publishers): subscribers send
 * every SUBSCRIBE but only their last CANCEL, which is how subscriptions stay counted end to end.
 */
final class Distributor {
    private final PrefixTrie<ArrayList<Pipe>> index = new PrefixTrie<>();
    private long epoch;

    /** Adds a subscription; true when no peer had subscribed to {@code prefix} before. */
    boolean subscribe(Pipe pipe, byte[] prefix) {
        Set<Key> mine = prefixes(pipe);
        PrefixTrie.Node<ArrayList<Pipe>> n = index.nodeFor(prefix);
        boolean first = n.value == null || n.value.isEmpty();
        if (mine.add(new Key(prefix))) {
            if (n.value == null) {
                index.put(prefix, new ArrayList<>(2));
                n = index.find(prefix);
            }
            n.value.add(pipe);
        }
        return first;
    }

    /** Removes a subscription; true when no peer is subscribed to {@code prefix} any more. */
    boolean cancel(Pipe pipe, byte[] prefix) {
        if (!prefixes(pipe).remove(new Key(prefix))) {
            return false;
        }
        return removeFromIndex(pipe, prefix);
    }

    private boolean removeFromIndex(Pipe pipe, byte[] prefix) {
        ArrayList<Pipe> subs = index.get(prefix);
        if (subs == null) {
            return false;
        }
        subs.remove(pipe);
        if (subs.isEmpty()) {
            index.remove(prefix);
            return true;
        }
        return false;
    }

    /** Forgets a departed peer; {@code lastGone} hears each prefix no peer subscribes to now. */
    void removeAll(Pipe pipe, Consumer<byte[]> lastGone) {
        @SuppressWarnings("unchecked")
        Set<Key> mine = (Set<Key>) pipe.socketData;
        if (mine == null) {
            return;
        }
        for (Key k : mine) {
            if (removeFromIndex(pipe, k.bytes) && lastGone != null) {
                lastGone.accept(k.bytes);
            }
        }
        pipe.socketData = null;
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
    private static final class Fanout implements Consumer<ArrayList<Pipe>> {
        ZmtpMessage msg;
        long epoch;

        @Override
        public void accept(ArrayList<Pipe> subs) {
            for (int i = 0, n = subs.size(); i < n; i++) {
                Pipe p = subs.get(i);
                if (p.matchEpoch != epoch) {
                    p.matchEpoch = epoch;
                    if (p.hasRoom()) {
                        p.write(msg.retain());
                    }
                }
            }
        }
    }

    private final Fanout fanout = new Fanout();

    /** The number of distinct prefixes subscribed to. */
    int prefixCount() {
        return index.size();
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
            }
        }
        ReferenceCountUtil.release(msg);
    }

    @SuppressWarnings("unchecked")
    private static Set<Key> prefixes(Pipe pipe) {
        if (pipe.socketData == null) {
            pipe.socketData = new HashSet<Key>();
        }
        return (Set<Key>) pipe.socketData;
    }

    private static final class Key {
        final byte[] bytes;
        final int hash;

        Key(byte[] bytes) {
            this.bytes = bytes;
            this.hash = java.util.Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && java.util.Arrays.equals(((Key) o).bytes, bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
