package io.zmtp.socket;

import io.netty.buffer.ByteBuf;

import java.util.function.Consumer;

/**
 * A subscriber's own subscriptions (SUB, XSUB): counted binary prefixes in a
 * {@link PrefixTrie}. Subscribing twice needs two cancels; every subscribe is forwarded to the
 * publishers but only the last cancel, as libzmq does. Re-sent whole to each new peer, so a
 * reconnected or restarted publisher hears them again.
 */
final class SubscriptionSet {
    private final PrefixTrie<int[]> trie = new PrefixTrie<>();

    /** Counts a subscription (always forwarded). */
    void add(byte[] prefix) {
        int[] c = trie.get(prefix);
        if (c == null) {
            trie.put(prefix, new int[] {1});
        } else {
            c[0]++;
        }
    }

    /** Uncounts a subscription; true when it was the last one (forward the cancel). */
    boolean remove(byte[] prefix) {
        int[] c = trie.get(prefix);
        if (c == null) {
            return false;
        }
        if (--c[0] == 0) {
            trie.remove(prefix);
            return true;
        }
        return false;
    }

    /** Whether a message whose first frame is {@code topic} matches any subscription. */
    boolean matches(ByteBuf topic) {
        return trie.matchesAny(topic);
    }

    /** Visits each subscribed prefix once. */
    void forEach(Consumer<byte[]> visitor) {
        trie.forEach((prefix, count) -> visitor.accept(prefix));
    }

    int size() {
        return trie.size();
    }
}
