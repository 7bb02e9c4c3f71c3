package io.zmtp.socket;

import io.netty.buffer.ByteBuf;

import java.util.Arrays;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A trie of binary prefixes, the subscription store of SUB (counted prefixes) and PUB (the set
 * of subscribers per prefix). Matching a message walks the trie along its first bytes: the cost
 * is the length of the longest matching prefix plus the matches, whatever the number of
 * subscriptions. Children are kept in small sorted arrays, so 10,000 prefixes cost little memory.
 *
 * @param <V> what each prefix carries (a count, or a set of peers)
 */
final class PrefixTrie<V> {

    static final class Node<V> {
        private byte[] keys = EMPTY_KEYS;
        private Node<V>[] kids;
        V value;

        Node<V> child(byte b) {
            int i = Arrays.binarySearch(keys, b);
            return i >= 0 ? kids[i] : null;
        }

        @SuppressWarnings("unchecked")
        Node<V> childOrCreate(byte b) {
            int i = Arrays.binarySearch(keys, b);
            if (i >= 0) {
                return kids[i];
            }
            int at = -i - 1;
            byte[] k = new byte[keys.length + 1];
            Node<V>[] c = new Node[keys.length + 1];
            System.arraycopy(keys, 0, k, 0, at);
            k[at] = b;
            System.arraycopy(keys, at, k, at + 1, keys.length - at);
            if (kids != null) {
                System.arraycopy(kids, 0, c, 0, at);
                System.arraycopy(kids, at, c, at + 1, keys.length - at);
            }
            Node<V> n = new Node<>();
            c[at] = n;
            keys = k;
            kids = c;
            return n;
        }

        @SuppressWarnings("unchecked")
        void removeChild(byte b) {
            int i = Arrays.binarySearch(keys, b);
            if (i < 0) {
                return;
            }
            if (keys.length == 1) {
                keys = EMPTY_KEYS;
                kids = null;
                return;
            }
            byte[] k = new byte[keys.length - 1];
            Node<V>[] c = new Node[keys.length - 1];
            System.arraycopy(keys, 0, k, 0, i);
            System.arraycopy(keys, i + 1, k, i, keys.length - i - 1);
            System.arraycopy(kids, 0, c, 0, i);
            System.arraycopy(kids, i + 1, c, i, keys.length - i - 1);
            keys = k;
            kids = c;
        }

        boolean isLeafless() {
            return keys.length == 0;
        }
    }

    private static final byte[] EMPTY_KEYS = new byte[0];

    private final Node<V> root = new Node<>();
    private int size;

    /** The node of {@code prefix}, created (with a null value) if absent. */
    Node<V> nodeFor(byte[] prefix) {
        Node<V> n = root;
        for (byte b : prefix) {
            n = n.childOrCreate(b);
        }
        return n;
    }

    /** The node of {@code prefix}, or null. */
    Node<V> find(byte[] prefix) {
        Node<V> n = root;
        for (int i = 0; i < prefix.length && n != null; i++) {
            n = n.child(prefix[i]);
        }
        return n;
    }

    /** Sets a prefix's value; a null value removes it (and prunes the emptied branch). */
    void put(byte[] prefix, V value) {
        if (value == null) {
            remove(prefix);
            return;
        }
        Node<V> n = nodeFor(prefix);
        if (n.value == null) {
            size++;
        }
        n.value = value;
    }

    V get(byte[] prefix) {
        Node<V> n = find(prefix);
        return n == null ? null : n.value;
    }

    /** Removes a prefix's value and prunes branches left without values. */
    void remove(byte[] prefix) {
        if (removeAt(root, prefix, 0)) {
            size--;
        }
    }

    private boolean removeAt(Node<V> n, byte[] prefix, int depth) {
        if (depth == prefix.length) {
            boolean had = n.value != null;
            n.value = null;
            return had;
        }
        Node<V> c = n.child(prefix[depth]);
        if (c == null) {
            return false;
        }
        boolean removed = removeAt(c, prefix, depth + 1);
        if (c.value == null && c.isLeafless()) {
            n.removeChild(prefix[depth]);
        }
        return removed;
    }

    /** Calls {@code visitor} with the value of every prefix of {@code data}'s readable bytes. */
    void matchPrefixes(ByteBuf data, Consumer<V> visitor) {
        Node<V> n = root;
        if (n.value != null) {
            visitor.accept(n.value);
        }
        int end = data.writerIndex();
        for (int i = data.readerIndex(); i < end; i++) {
            n = n.child(data.getByte(i));
            if (n == null) {
                return;
            }
            if (n.value != null) {
                visitor.accept(n.value);
            }
        }
    }

    /** Whether any stored prefix is a prefix of {@code data}. */
    boolean matchesAny(ByteBuf data) {
        Node<V> n = root;
        if (n.value != null) {
            return true;
        }
        int end = data.writerIndex();
        for (int i = data.readerIndex(); i < end; i++) {
            n = n.child(data.getByte(i));
            if (n == null) {
                return false;
            }
            if (n.value != null) {
                return true;
            }
        }
        return false;
    }

    /** Visits every (prefix, value). */
    void forEach(BiConsumer<byte[], V> visitor) {
        walk(root, new byte[0], visitor);
    }

    private void walk(Node<V> n, byte[] path, BiConsumer<byte[], V> visitor) {
        if (n.value != null) {
            visitor.accept(path, n.value);
        }
        for (int i = 0; i < n.keys.length; i++) {
            byte[] p = Arrays.copyOf(path, path.length + 1);
            p[path.length] = n.keys[i];
            walk(n.kids[i], p, visitor);
        }
    }

    /** The number of prefixes with a value. */
    int size() {
        return size;
    }
}
