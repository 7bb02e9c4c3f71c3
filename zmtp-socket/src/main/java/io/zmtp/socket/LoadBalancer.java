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
        pipes.add(p);
    }

    void detach(Pipe p) {
        int i = pipes.indexOf(p);
        if (i < 0) {
            return;
        }
        pipes.remove(i);
        if (next > i) {
            next--;
        }
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
