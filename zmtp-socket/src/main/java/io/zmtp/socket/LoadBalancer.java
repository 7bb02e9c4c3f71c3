package io.zmtp.socket;

import java.util.ArrayList;

/**
 * Outgoing load balancing (DEALER, REQ, PUSH, PAIR): each message goes to the next peer, in
 * round-robin order, that has room below its send high-water mark. Peers at the mark are
 * skipped; when every peer is at it, the send waits.
 */
final class LoadBalancer {
    private final ArrayList<Pipe> pipes = new ArrayList<>();
    private int next;

    void attach(Pipe p) {
        p.loadBalancerIndex = pipes.size();
        pipes.add(p);
    }

    /**
     * {@code p} leaves, in constant time: the last peer takes its place, and so its turn comes
     * round once more or once less in this round (libzmq's load balancer swaps the same way).
     */
    void detach(Pipe p) {
        int i = p.loadBalancerIndex;
        if (i < 0 || i >= pipes.size() || pipes.get(i) != p) {
            return;
        }
        Pipe last = pipes.remove(pipes.size() - 1);
        if (last != p) {
            pipes.set(i, last);
            last.loadBalancerIndex = i;
        }
        p.loadBalancerIndex = -1;
        if (next >= pipes.size()) {
            next = 0;
        }
    }

    /** The next peer with room, or null when there is none. */
    Pipe select() {
        int n = pipes.size();
        for (int i = 0; i < n; i++) {
            int idx = next + i;
            if (idx >= n) {
                idx -= n;
            }
            Pipe p = pipes.get(idx);
            if (p.hasRoom()) {
                next = idx + 1 == n ? 0 : idx + 1;
                return p;
            }
        }
        return null;
    }
}
