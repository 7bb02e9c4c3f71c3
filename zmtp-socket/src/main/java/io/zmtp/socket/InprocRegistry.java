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
    private final Map<String, List<SocketCore>> pending = new HashMap<>();

    synchronized void bind(String name, SocketCore socket) {
        if (bound.containsKey(name)) {
            throw new IllegalStateException("address already in use: inproc://" + name);
        }
        bound.put(name, socket);
        List<SocketCore> waiting = pending.remove(name);
        if (waiting != null) {
            for (SocketCore c : waiting) {
                InprocPipe.link(c, socket, "inproc://" + name);
            }
        }
    }

    synchronized void connect(String name, SocketCore socket) {
        SocketCore b = bound.get(name);
        if (b != null) {
            InprocPipe.link(socket, b, "inproc://" + name);
        } else {
            pending.computeIfAbsent(name, k -> new ArrayList<>()).add(socket);
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
        for (List<SocketCore> l : pending.values()) {
            l.remove(socket);
        }
        pending.values().removeIf(List::isEmpty);
    }
}
