package io.zmtp.socket;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The inproc:// names of one context, and the sockets (their cores) bound to them. A connect to
 * a name not yet bound waits for the bind, * as in libzmq. Only binds and connects come here (never messages), so a lock is fine.
 */
final class InprocRegistry {
    private final Map<String, SocketCore> bound = new HashMap<>();
    private final Map<String, List<Pending>> pending = new HashMap<>();

    /** A connect waiting for its name to be bound, with the routing id its peer gets (PEER), or null. */
    private record Pending(SocketCore socket, byte[] routingId) {
    }

    synchronized void bind(String name, SocketCore socket) {
        if (bound.containsKey(name)) {
            throw new IllegalStateException("address already in use: inproc://" + name);
        }
        bound.put(name, socket);
        List<Pending> waiting = pending.remove(name);
        if (waiting != null) {
            for (Pending c : waiting) {
                InprocPipe.link(c.socket(), socket, "inproc://" + name, c.routingId());
            }
        }
    }

    /** Connects {@code socket} to the name, now or once bound; {@code routingId}: see {@link InprocPipe#link}. */
    synchronized void connect(String name, SocketCore socket, byte[] routingId) {
        SocketCore b = bound.get(name);
        if (b != null) {
            InprocPipe.link(socket, b, "inproc://" + name, routingId);
        } else {
            pending.computeIfAbsent(name, k -> new ArrayList<>()).add(new Pending(socket, routingId));
        }
    }

    /** Whether a socket is bound to {@code name} now. */
    synchronized boolean isBound(String name) {
        return bound.containsKey(name);
    }

    synchronized void unbind(String name, SocketCore socket) {
        bound.remove(name, socket);
    }

    synchronized void cancelPending(SocketCore socket) {
        for (List<Pending> l : pending.values()) {
            l.removeIf(c -> c.socket() == socket);
        }
        pending.values().removeIf(List::isEmpty);
    }
}
