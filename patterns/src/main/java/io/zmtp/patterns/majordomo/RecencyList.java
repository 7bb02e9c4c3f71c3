package io.zmtp.patterns.majordomo;

/**
 * A doubly linked list whose entries move to the end when touched, so the first entry is always
 * the one touched longest ago: the broker's least-recently-used idle workers, and its workers
 * ordered by when they were last heard from or last sent to (so expiry and heartbeats look only
 * at the entries that are due). Each operation is O(1); an entry's {@link Node} lives in its
 * owner, and belongs to at most one list.
 */
final class RecencyList<T> {

    /** An entry: one per owner and list. */
    static final class Node<T> {
        final T item;
        private Node<T> prev;
        private Node<T> next;
        private RecencyList<T> list;

        Node(T item) {
            this.item = item;
        }

        boolean isLinked() {
            return list != null;
        }
    }

    private Node<T> head;
    private Node<T> tail;
    private int size;

    /** Appends the node, or moves it to the end if it is already in this list. */
    void touch(Node<T> n) {
        if (n.list == this) {
            if (tail == n) {
                return;
            }
            unlink(n);
        } else if (n.list != null) {
            throw new IllegalStateException("node belongs to another list");
        }
        n.list = this;
        n.prev = tail;
        n.next = null;
        if (tail == null) {
            head = n;
        } else {
            tail.next = n;
        }
        tail = n;
        size++;
    }

    /** Removes the node if it is in this list. */
    void remove(Node<T> n) {
        if (n.list == this) {
            unlink(n);
        }
    }

    /** The entry touched longest ago, or null. */
    T first() {
        return head == null ? null : head.item;
    }

    /** Removes and returns the entry touched longest ago, or null. */
    T pollFirst() {
        Node<T> n = head;
        if (n == null) {
            return null;
        }
        unlink(n);
        return n.item;
    }

    boolean isEmpty() {
        return head == null;
    }

    int size() {
        return size;
    }

    private void unlink(Node<T> n) {
        if (n.prev == null) {
            head = n.next;
        } else {
            n.prev.next = n.next;
        }
        if (n.next == null) {
            tail = n.prev;
        } else {
            n.next.prev = n.prev;
        }
        n.prev = null;
        n.next = null;
        n.list = null;
        size--;
    }
}
