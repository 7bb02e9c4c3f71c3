package io.zmtp.socket;

import io.netty.channel.Channel;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.zmtp.transport.Endpoint;
import io.zmtp.transport.NameResolvers;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one socket binds and connects: bound tcp://, ipc://, ws:// endpoints
 * ({@link BindEndpoint}), connected ones ({@link ConnectEndpoint}, which reconnect) and inproc://
 * names. Lives on the socket's event loop; {@link ZmtpSocket}'s bind, connect, unbind and
 * disconnect hand their work here, and its {@link CloseSequence} stops everything here. The
 * channels these make and accept are tracked by the socket's {@link OpenChannels}.
 */
final class SocketEndpoints {
    private final SocketCore socket;
    private final TypeHooks hooks;
    /** The context's inproc:// names. */
    private final InprocRegistry inproc;
    /** The context's host name lookups. */
    private final NameResolvers names;
    /** By the endpoint as given and as resolved (port 0 becomes the port chosen): one object, two keys. */
    private final Map<String, BindEndpoint> binds = new LinkedHashMap<>();
    private final Map<String, ConnectEndpoint> connects = new LinkedHashMap<>();
    /** udp:// endpoints (RADIO connects, DISH binds), by the endpoint as given and as resolved. */
    private final Map<String, DatagramEndpoint> datagrams = new LinkedHashMap<>();
    private final List<String> inprocNames = new ArrayList<>();

    SocketEndpoints(SocketCore socket, TypeHooks hooks, InprocRegistry inproc, NameResolvers names) {
        this.socket = socket;
        this.hooks = hooks;
        this.inproc = inproc;
        this.names = names;
    }

    /** {@link ZmtpSocket#bind}: on the loop, the future gives the endpoint actually bound. */
    Future<String> bind(String endpoint) {
        if (!socket.loop().inEventLoop()) {
            names.prepare(endpoint); // a bind to a name looks it up too: the resolver's thread started here
        }
        Promise<String> p = socket.loop().newPromise();
        socket.inLoop(() -> {
            if (socket.isClosing()) {
                p.tryFailure(new SocketClosedException("socket is closed"));
                return;
            }
            Endpoint ep;
            try {
                ep = Endpoint.parse(endpoint);
            } catch (IllegalArgumentException e) {
                p.tryFailure(e);
                return;
            }
            String refusal = hooks.transportRefusal(ep);
            if (refusal != null) {
                p.tryFailure(new IllegalArgumentException(refusal));
                return;
            }
            if (ep.transport() == Endpoint.Transport.UDP) {
                bindDatagram(endpoint, ep, p);
                return;
            }
            if (ep.transport() == Endpoint.Transport.INPROC) {
                try {
                    inproc.bind(ep.address(), socket);
                    inprocNames.add(ep.address());
                    socket.monitor().event(SocketEvent.Type.LISTENING, ep.toString(), null, null, null);
                    p.trySuccess(ep.toString());
                } catch (RuntimeException e) {
                    socket.monitor().event(SocketEvent.Type.BIND_FAILED, ep.toString(), null, e.getMessage(), null);
                    p.tryFailure(e);
                }
                return;
            }
            BindEndpoint b = new BindEndpoint(socket, hooks, ep, names);
            b.bind().addListener(f -> {
                if (f.isSuccess()) {
                    String resolved = (String) f.getNow();
                    binds.put(resolved, b);
                    if (!resolved.equals(endpoint)) {
                        binds.put(endpoint, b);
                    }
                    p.trySuccess(resolved);
                } else {
                    p.tryFailure(f.cause());
                }
            });
        });
        return p;
    }

    /**
     * {@link ZmtpSocket#connect}: on the loop; {@code routingId} is what a ROUTER or PEER routes
     * this endpoint's peer by (already checked and copied), or null.
     */
    Future<Void> connect(String endpoint, byte[] routingId) {
        if (!socket.loop().inEventLoop()) {
            names.prepare(endpoint); // the resolver's thread started here, not on the loop
        }
        Promise<Void> p = socket.loop().newPromise();
        socket.inLoop(() -> {
            if (socket.isClosing()) {
                p.tryFailure(new SocketClosedException("socket is closed"));
                return;
            }
            Endpoint ep;
            try {
                ep = Endpoint.parse(endpoint);
                if (ep.transport().overTcp()) {
                    ep.checkConnectable();
                }
            } catch (IllegalArgumentException e) {
                p.tryFailure(e);
                return;
            }
            String refusal = hooks.transportRefusal(ep);
            if (refusal != null) {
                p.tryFailure(new IllegalArgumentException(refusal));
                return;
            }
            if (ep.transport() == Endpoint.Transport.UDP) {
                connectDatagram(endpoint, ep, p);
                return;
            }
            if (ep.transport() == Endpoint.Transport.INPROC) {
                inproc.connect(ep.address(), socket, routingId);
                p.trySuccess(null);
                return;
            }
            ConnectEndpoint c = new ConnectEndpoint(socket, hooks, ep, routingId, names);
            ConnectEndpoint old = connects.put(endpoint, c);
            if (old != null) {
                old.stop(true);
            }
            c.start();
            p.trySuccess(null);
        });
        return p;
    }

    /** A DISH's udp:// bind. */
    private void bindDatagram(String endpoint, Endpoint ep, Promise<String> p) {
        String refusal = DatagramEndpoint.refusal(socket.type(), true);
        if (refusal != null) {
            p.tryFailure(new IllegalArgumentException(refusal));
            return;
        }
        DatagramEndpoint d = new DatagramEndpoint(socket, ep, names);
        d.bind().addListener(f -> {
            if (f.isSuccess()) {
                String resolved = (String) f.getNow();
                datagrams.put(resolved, d);
                datagrams.put(endpoint, d);
                p.trySuccess(resolved);
            } else {
                p.tryFailure(f.cause());
            }
        });
    }

    /** A RADIO's udp:// connect: the future fails if the host's lookup fails (now, as libzmq's does). */
    private void connectDatagram(String endpoint, Endpoint ep, Promise<Void> p) {
        String refusal = DatagramEndpoint.refusal(socket.type(), false);
        if (refusal != null) {
            p.tryFailure(new IllegalArgumentException(refusal));
            return;
        }
        DatagramEndpoint d = new DatagramEndpoint(socket, ep, names);
        DatagramEndpoint old = datagrams.put(endpoint, d);
        if (old != null) {
            old.close();
        }
        d.connect().addListener(f -> {
            if (f.isSuccess()) {
                p.trySuccess(null);
            } else {
                datagrams.remove(endpoint, d);
                p.tryFailure(f.cause());
            }
        });
    }

    /** {@link ZmtpSocket#disconnect}. */
    Future<Void> disconnect(String endpoint) {
        Promise<Void> p = socket.loop().newPromise();
        socket.inLoop(() -> {
            ConnectEndpoint c = connects.remove(endpoint);
            if (c != null) {
                c.stop(true);
            }
            DatagramEndpoint d = datagrams.remove(endpoint);
            if (d != null) {
                d.close();
            }
            p.trySuccess(null);
        });
        return p;
    }

    /** {@link ZmtpSocket#unbind}. */
    Future<Void> unbind(String endpoint) {
        Promise<Void> p = socket.loop().newPromise();
        socket.inLoop(() -> {
            DatagramEndpoint d = datagrams.remove(endpoint);
            if (d != null) {
                datagrams.values().removeIf(v -> v == d);
                d.close().addListener(f -> p.trySuccess(null));
                socket.monitor().event(SocketEvent.Type.UNBOUND, endpoint, null, null, null);
                return;
            }
            BindEndpoint b = binds.remove(endpoint);
            if (b == null) {
                String name = endpoint.replaceFirst("^inproc://", "");
                if (inprocNames.remove(name)) {
                    inproc.unbind(name, socket);
                    socket.monitor().event(SocketEvent.Type.UNBOUND, endpoint, null, null, null);
                    p.trySuccess(null);
                } else {
                    p.tryFailure(new IllegalArgumentException("not bound: " + endpoint));
                }
                return;
            }
            binds.values().removeIf(v -> v == b);
            b.close(true).addListener(f -> p.trySuccess(null));
        });
        return p;
    }

    /** The server channel of a bound endpoint (tests), or null. On the loop. */
    Channel serverChannel(String endpoint) {
        BindEndpoint b = binds.get(endpoint);
        return b == null ? null : b.serverChannel();
    }

    /** Connections accepted on bound tcp:// and ipc:// endpoints and still open. On the loop. */
    int acceptedConnections() {
        int n = 0;
        for (BindEndpoint b : new HashSet<>(binds.values())) {
            n += b.connectionCount();
        }
        return n;
    }

    /** The endpoints bound so far, as resolved. On the loop. */
    List<String> boundEndpoints() {
        List<String> l = new ArrayList<>();
        for (BindEndpoint b : new HashSet<>(binds.values())) {
            l.add(b.resolved());
        }
        for (String n : inprocNames) {
            l.add("inproc://" + n);
        }
        if (socket.type() == io.zmtp.wire.SocketType.DISH) {
            java.util.Set<DatagramEndpoint> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            for (Map.Entry<String, DatagramEndpoint> e : datagrams.entrySet()) {
                if (seen.add(e.getValue())) {
                    l.add(e.getKey()); // the resolved endpoint is put first
                }
            }
        }
        return l;
    }

    /** Stops listening and reconnecting, and gives up the inproc names (the socket is closing). */
    void stopAll() {
        for (ConnectEndpoint c : connects.values()) {
            c.stop(false);
        }
        connects.clear();
        for (DatagramEndpoint d : new HashSet<>(datagrams.values())) {
            d.close();
        }
        datagrams.clear();
        for (BindEndpoint b : new HashSet<>(binds.values())) {
            b.close(false);
        }
        binds.clear();
        for (String n : inprocNames) {
            inproc.unbind(n, socket);
        }
        inprocNames.clear();
        inproc.cancelPending(socket);
    }
}
