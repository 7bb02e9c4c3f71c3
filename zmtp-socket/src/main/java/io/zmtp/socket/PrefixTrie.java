package io.zmtp.socket;

import io.netty.buffer.ByteBuf;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A radix trie of binary prefixes, the subscription store of SUB (counted prefixes) and PUB (the
 * set of subscribers per prefix). Each edge holds a run of bytes, so a prefix of n bytes costs at
 * most two nodes and its n bytes, whatever its length: memory is proportional to what was
 * subscribed. Every node but the root holds a value or has at least two children (removal
 * merges what it leaves), so the trie never holds more than 2 x {@link #size()} nodes.
 *
 * <p>Matching a message walks the trie along its first bytes: the cost is the length of the
 * longest matching prefix plus the matches, whatever the number of subscriptions. Children are
 * kept in small arrays sorted by their first byte. No operation recurses, so no prefix length can
 * overflow the stack.
 *
 * @param <V> what each prefix carries (a count, or a set of peers)
 */
final class PrefixTrie<V> {

    private static final byte[] EMPTY = new byte[0];

    private static final class Node<V> {
        /** The bytes of the edge from the parent to this node (empty only at the root). */
        byte[] label;
        /** The first byte of each child's label, sorted; parallel to {@link #kids}. */
        byte[] firsts = EMPTY;
        Node<V>[] kids;
        V value;

        Node(byte[] label) {
            this.label = label;
        }

        int indexOf(byte first) {
            return Arrays.binarySearch(firsts, first);
        }

        Node<V> child(byte first) {
            int i = Arrays.binarySearch(firsts, first);
            return i >= 0 ? kids[i] : null;
        }

        @SuppressWarnings("unchecked")
        void addChild(Node<V> n) {
            byte b = n.label[0];
            int at = -Arrays.binarySearch(firsts, b) - 1;
            int len = firsts.length;
            byte[] f = new byte[len + 1];
            Node<V>[] c = new Node[len + 1];
            System.arraycopy(firsts, 0, f, 0, at);
            f[at] = b;
            System.arraycopy(firsts, at, f, at + 1, len - at);
            if (kids != null) {
                System.arraycopy(kids, 0, c, 0, at);
                System.arraycopy(kids, at, c, at + 1, len - at);
            }
            c[at] = n;
            firsts = f;
            kids = c;
        }

        @SuppressWarnings("unchecked")
        void removeChild(int i) {
            int len = firsts.length;
            if (len == 1) {
                firsts = EMPTY;
                kids = null;
                return;
            }
            byte[] f = new byte[len - 1];
            Node<V>[] c = new Node[len - 1];
            System.arraycopy(firsts, 0, f, 0, i);
            System.arraycopy(firsts, i + 1, f, i, len - i - 1);
            System.arraycopy(kids, 0, c, 0, i);
            System.arraycopy(kids, i + 1, c, i, len - i - 1);
            firsts = f;
            kids = c;
        }

        int childCount() {
            return firsts.length;
        }
    }

    private final Node<V> root = new Node<>(EMPTY);
    private int size;
    private int nodes = 1;
    private long labelBytes;

    /** The number of bytes {@code label} shares with {@code key} from {@code from}. */
    private static int common(byte[] label, byte[] key, int from) {
        int n = Math.min(label.length, key.length - from);
        int m = Arrays.mismatch(label, 0, n, key, from, from + n);
        return m < 0 ? n : m;
    }

    /** The value of {@code prefix}, or null. */
    V get(byte[] prefix) {
        Node<V> n = root;
        int d = 0;
        while (d < prefix.length) {
            Node<V> c = n.child(prefix[d]);
            if (c == null || common(c.label, prefix, d) != c.label.length) {
                return null;
            }
            d += c.label.length;
            n = c;
        }
        return n.value;
    }

    /** Sets a prefix's value; a null value removes it. */
    void put(byte[] prefix, V value) {
        if (value == null) {
            remove(prefix);
            return;
        }
        Node<V> n = root;
        int d = 0;
        while (d < prefix.length) {
            int i = n.indexOf(prefix[d]);
            if (i < 0) {
                Node<V> leaf = newNode(Arrays.copyOfRange(prefix, d, prefix.length));
                n.addChild(leaf);
                n = leaf;
                break;
            }
            Node<V> c = n.kids[i];
            int k = common(c.label, prefix, d);
            if (k < c.label.length) {
                // Split c's edge after k bytes: a new node takes the shared part.
                Node<V> mid = newNode(Arrays.copyOf(c.label, k));
                labelBytes -= k;   // the shared bytes moved, they were not added
                c.label = Arrays.copyOfRange(c.label, k, c.label.length);
                mid.addChild(c);
                n.kids[i] = mid;
                c = mid;
            }
            d += k;
            n = c;
        }
        if (n.value == null) {
            size++;
        }
        n.value = value;
    }

    /** Removes a prefix's value; the nodes it alone needed are unlinked and merged at once. */
    void remove(byte[] prefix) {
        Node<V> parent = null;
        Node<V> n = root;
        int d = 0;
        while (d < prefix.length) {
            Node<V> c = n.child(prefix[d]);
            if (c == null || common(c.label, prefix, d) != c.label.length) {
                return;
            }
            d += c.label.length;
            parent = n;
            n = c;
        }
        if (n.value == null) {
            return;
        }
        n.value = null;
        size--;
        if (n == root) {
            return;
        }
        if (n.childCount() == 0) {
            parent.removeChild(parent.indexOf(n.label[0]));
            dropNode(n);
            // The parent may now be a valueless pass-through node: merge it into its one child.
            if (parent != root && parent.value == null && parent.childCount() == 1) {
                mergeWithOnlyChild(parent);
            }
        } else if (n.childCount() == 1) {
            mergeWithOnlyChild(n);
        }
    }

    /** {@code n} has no value and one child: it takes the child's edge, children and value. */
    private void mergeWithOnlyChild(Node<V> n) {
        Node<V> c = n.kids[0];
        byte[] joined = Arrays.copyOf(n.label, n.label.length + c.label.length);
        System.arraycopy(c.label, 0, joined, n.label.length, c.label.length);
        n.label = joined;
        n.firsts = c.firsts;
        n.kids = c.kids;
        n.value = c.value;
        nodes--;   // c's label bytes now live in n's: the byte count is unchanged
    }

    private Node<V> newNode(byte[] label) {
        nodes++;
        labelBytes += label.length;
        return new Node<>(label);
    }

    private void dropNode(Node<V> n) {
        nodes--;
        labelBytes -= n.label.length;
    }

    /** Calls {@code visitor} with the value of every prefix of {@code data}'s readable bytes. */
    void matchPrefixes(ByteBuf data, Consumer<V> visitor) {
        Node<V> n = root;
        if (n.value != null) {
            visitor.accept(n.value);
        }
        int i = data.readerIndex();
        int end = data.writerIndex();
        while (i < end) {
            n = n.child(data.getByte(i));
            if (n == null || !edgeMatches(n.label, data, i, end)) {
                return;
            }
            i += n.label.length;
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
        int i = data.readerIndex();
        int end = data.writerIndex();
        while (i < end) {
            n = n.child(data.getByte(i));
            if (n == null || !edgeMatches(n.label, data, i, end)) {
                return false;
            }
            i += n.label.length;
            if (n.value != null) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code data} from {@code at} starts with {@code label} (its first byte is known to match). */
    private static boolean edgeMatches(byte[] label, ByteBuf data, int at, int end) {
        int len = label.length;
        if (len > end - at) {
            return false;
        }
        for (int j = 1; j < len; j++) {
            if (data.getByte(at + j) != label[j]) {
                return false;
            }
        }
        return true;
    }

    /** Visits every (prefix, value), with an explicit stack. */
    void forEach(BiConsumer<byte[], V> visitor) {
        ArrayDeque<Object[]> todo = new ArrayDeque<>();
        todo.push(new Object[] {root, EMPTY});
        while (!todo.isEmpty()) {
            Object[] e = todo.pop();
            @SuppressWarnings("unchecked")
            Node<V> n = (Node<V>) e[0];
            byte[] path = (byte[]) e[1];
            if (n.value != null) {
                visitor.accept(path, n.value);
            }
            for (int i = n.childCount() - 1; i >= 0; i--) {
                Node<V> c = n.kids[i];
                byte[] p = Arrays.copyOf(path, path.length + c.label.length);
                System.arraycopy(c.label, 0, p, path.length, c.label.length);
                todo.push(new Object[] {c, p});
            }
        }
    }

    /** The number of prefixes with a value. */
    int size() {
        return size;
    }

    /** The number of nodes, the root included (at most 2 x size + 1). */
    int nodeCount() {
        return nodes;
    }

    /** The bytes held in edge labels (at most the sum of the stored prefixes' lengths). */
    long labelBytes() {
        return labelBytes;
    }
}
