package io.zmtp.socket;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ReflectiveChannelFactory;
import io.netty.channel.ServerChannel;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.zmtp.transport.DescriptorTable;
import io.zmtp.transport.Endpoint;
import io.zmtp.transport.IoTransport;
import io.zmtp.transport.NameResolvers;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.PeerAddressText;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.SocketType;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A bound tcp:// or ipc:// endpoint: a server channel on the socket's event loop whose accepted
 * connections get a {@link io.zmtp.wire.ZmtpCodec} and a {@link PeerHandler} (STREAM: its raw
 * handler, {@link TypeHooks#initConnection}). A tcp:// endpoint may listen with several server
 * channels on one port ({@link SocketOptions#listeners()}, SO_REUSEPORT), all on the same loop
 * and counted together: each is one more kernel queue of connections waiting to be accepted,
 * which is what a fresh server meeting thousands of reconnecting peers runs short of.
 *
 * <p>Who gets in (docs/limits.md): at most {@link SocketOptions#maxConnections()} connections at
 * once, of which at most {@link SocketOptions#maxHandshakes()} in their handshake, and of those
 * at most {@link SocketOptions#maxHandshakesPerAddress()} from one remote address (and, where an
 * operator sets it, {@link SocketOptions#maxConnectionsPerAddress()} in all from one address). A
 * connection past an address's bound is closed as soon as it is accepted, before any handshake
 * (a REFUSED event; a rate-limited log line). At the endpoint's bounds the new connection is let
 * in and an older one makes room (an EVICTED event): the oldest still in its handshake, or, at
 * {@code maxConnections} when every one has completed it, the peer heard from longest ago. So
 * connections that never finish a handshake cannot lock good peers out for the length of a
 * handshake timeout, a good peer, which handshakes in milliseconds, is never the oldest, and a
 * host that brings many peers (a worker host, a NAT gateway) is bounded only while they are in
 * their handshake.
 *
 * <p>When accepting itself fails for lack of file descriptors (EMFILE), the oldest connection
 * still in its handshake is closed, which frees a descriptor on this thread at once, and
 * accepting goes on at the loop's next turn. When there is none to close, or accepting fails
 * otherwise, the endpoint stops accepting for a while, 10 ms doubling to 1 s while failures go
 * on, and logs one rate-limited line, not a stack trace per failure.
 *
 * <p>What a connection costs to accept is kept small, since a restarted server meets all its
 * peers at once: the {@link Acceptor} takes each accepted channel from the server channel's
 * pipeline itself (no initializer added and removed per connection) and hands it to the
 * {@link AcceptQueue}, which sets it up after the loop's next turn of I/O; over epoll the TCP settings
 * are set once on the listening socket, which Linux copies to every accepted one; and the handler
 * of each connection reports the end of its handshake here ({@link PeerHandler.Origin}).
 */
final class BindEndpoint implements WebSocketListener.Path, PeerHandler.Origin {
    private static final PeerFailureLog log = PeerFailureLog.get(BindEndpoint.class);
    static final long ACCEPT_BACKOFF_MIN_MILLIS = 10;
    /** How often, at most, a listener that is accepting looks at its kernel queue (one system call). */
    static final long QUEUE_LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    static final long ACCEPT_BACKOFF_MAX_MILLIS = 1000;

    private final SocketCore socket;
    private final TypeHooks hooks;
    private final Endpoint requested;
    /** The context's host name lookups: a bind to a name looks it up. */
    private final NameResolvers names;
    private Endpoint resolved;
    private String resolvedName;
    private Channel server;
    /** The endpoint's other listening sockets on the same port ({@link SocketOptions#listeners()}). */
    private final java.util.ArrayList<Channel> moreListeners = new java.util.ArrayList<>();
    private String ipcPath;

    private int connections;
    /**
     * Accepted connections still in their ZMTP handshake, oldest first, with their remote address:
     * the first to go at a bound.
     */
    private final LinkedHashMap<Channel, InetAddress> handshaking = new LinkedHashMap<>();
    /** Per remote address: [0] its connections in all, [1] those in their handshake. */
    private final HashMap<InetAddress, int[]> perAddress = new HashMap<>();
    /** Connections accepted and not yet set up: a crowd waits here, not in the kernel's queue. */
    private final AcceptQueue acceptQueue;
    private long acceptBackoffMillis;
    private boolean acceptPaused;
    /** The shared port of a ws:// or wss:// endpoint. */
    private WebSocketListener webSocketListener;
    /** Completes when an unbind is done (set by close). */
    private Future<?> closed;

    BindEndpoint(SocketCore socket, TypeHooks hooks, Endpoint requested, NameResolvers names) {
        this.socket = socket;
        this.hooks = hooks;
        this.requested = requested;
        this.names = names;
        this.acceptQueue = new AcceptQueue(socket.loop(), socket.options().acceptQueue(), this::setUp,
                this::acceptQueueFull);
    }

    /** The endpoint as bound (port 0 replaced by the port chosen), as events and pipes name it. */
    String resolved() {
        String r = resolvedName;
        if (r == null) {
            r = resolved == null ? requested.toString() : resolved.toString();
            if (resolved != null) {
                resolvedName = r;   // made once: each accepted connection names it
            }
        }
        return r;
    }

    /** Connections accepted here and still open. Call on the event loop. */
    int connectionCount() {
        return connections;
    }

    /** Connections accepted here still in their handshake. Call on the event loop. */
    int handshakeCount() {
        return handshaking.size();
    }

    /**
     * Binds; the future gives the endpoint as bound. A tcp://, tls://, ws:// or wss:// host that is
     * a name is looked up first, on the loop without blocking it, by the context's
     * {@link NameResolvers} (the first address of the answer: IPv4 first); a name that cannot be
     * looked up fails the bind with the lookup's reason, which names the name. Before all that, the
     * process's descriptor table is grown to take the accept queue's worth of connections
     * ({@link DescriptorTable}; once per process, on a thread of its own).
     */
    Future<String> bind() {
        Promise<String> p = socket.loop().newPromise();
        java.util.concurrent.CompletableFuture<Void> room = DescriptorTable.reserve(socket.options().acceptQueue());
        if (room.isDone()) {
            start(p);
        } else {
            room.whenComplete((v, e) -> {
                try {
                    socket.loop().execute(() -> {
                        if (socket.isClosing()) {
                            // closed while the table grew: nothing may listen after the close
                            p.tryFailure(new SocketClosedException("socket is closed"));
                        } else {
                            start(p);
                        }
                    });
                } catch (java.util.concurrent.RejectedExecutionException gone) {
                    p.tryFailure(new SocketClosedException("socket is closed")); // its loop shut down meanwhile
                }
            });
        }
        return p;
    }

    /** The descriptor table has room for a crowd ({@link DescriptorTable}): look the host up, then bind. */
    private void start(Promise<String> p) {
        if (!requested.transport().overTcp() || requested.isWildcardHost()) {
            bind(p, requested.transport().overTcp() ? requested.bindAddress(null) : null);
            return;
        }
        names.lookUp(socket.loop(), requested.host(), answer -> looked(answer, p));
    }

    /** The host's lookup is done: bind its first address, or fail the bind. */
    private void looked(Future<List<InetAddress>> answer, Promise<String> p) {
        if (socket.isClosing()) {
            // closed while the name was looked up: nothing may listen after the close
            p.tryFailure(new SocketClosedException("socket is closed"));
            return;
        }
        if (!answer.isSuccess()) {
            failed(p, answer.cause());
        } else {
            bind(p, requested.bindAddress(answer.getNow().get(0)));
        }
    }

    /** Binds {@code tcpAddress} (tcp://, tls://, ws://, wss://), or the ipc:// path (null). */
    private void bind(Promise<String> p, InetSocketAddress tcpAddress) {
        IoTransport io = socket.transport();
        SocketOptions options = socket.options();
        if (requested.transport().webSocket()) {
            WebSocketListener.bind(socket, requested, tcpAddress, this).addListener(f -> {
                if (!f.isSuccess()) {
                    failed(p, f.cause());
                    return;
                }
                resolved = requested.withPort(((InetSocketAddress) f.getNow()).getPort());
                socket.monitor().event(SocketEvent.Type.LISTENING, resolved.toString(), null, null, null);
                p.trySuccess(resolved.toString());
            });
            return;
        }
        if (requested.transport() == Endpoint.Transport.TLS
                && (options.tls() == null || options.tls().serverContext() == null)) {
            String reason = "binding " + requested + " needs SocketOptions.tls with a server context";
            socket.monitor().event(SocketEvent.Type.BIND_FAILED, requested.toString(), null, reason, null);
            p.tryFailure(new IllegalStateException(reason));
            return;
        }
        SocketAddress address;
        ServerChannel ch;
        int listeners = 1;
        try {
            if (requested.transport().overTcp()) {
                address = tcpAddress;
                ch = newTcpListener(io, options);
                listeners = options.listeners();
                if (listeners > 1 && !io.reusePort(ch)) {
                    log.warn("{} {}: one listening socket, not {}: SO_REUSEPORT spreads connections over"
                            + " several on Linux only", socket, requested, listeners);
                    listeners = 1;
                }
            } else {
                ipcPath = ipcPath(requested.address());
                address = io.ipcAddress(ipcPath);
                ch = new ReflectiveChannelFactory<>(io.ipcServerChannel()).newChannel();
                ch.config().setOption(ChannelOption.SO_BACKLOG, options.backlog());
            }
        } catch (IOException | RuntimeException e) {
            failed(p, e);
            return;
        }
        int more = listeners - 1;
        listen(ch, address, cause -> failed(p, cause), () -> {
            server = ch;
            if (requested.transport().overTcp()) {
                resolved = requested.withPort(((InetSocketAddress) server.localAddress()).getPort());
            } else {
                resolved = requested.withPath(ipcPath);
            }
            bindMoreListeners(more, p);
        });
    }

    /**
     * Gives {@code ch} its {@link Acceptor}, registers it on the socket's loop and binds it to
     * {@code address}; then {@code bound}, or, with the channel closed, {@code failed}.
     */
    private void listen(ServerChannel ch, SocketAddress address, java.util.function.Consumer<Throwable> failed,
                        Runnable bound) {
        ch.pipeline().addLast(new Acceptor());
        acceptQueue.acceptMany(ch);
        socket.loop().register(ch).addListener(r -> {
            if (!r.isSuccess()) {
                ch.unsafe().closeForcibly();
                failed.accept(r.cause());
                return;
            }
            ch.bind(address).addListener((ChannelFuture cf) -> {
                if (!cf.isSuccess()) {
                    ch.close();
                    failed.accept(cf.cause());
                    return;
                }
                bound.run();
            });
        });
    }

    /** A listening tcp:// channel with the socket's settings, not yet registered nor bound. */
    private ServerChannel newTcpListener(IoTransport io, SocketOptions options) throws IOException {
        ServerChannel ch = new ReflectiveChannelFactory<>(io.tcpServerChannel()).newChannel();
        ch.config().setOption(ChannelOption.SO_REUSEADDR, true);
        if (options.receiveBuffer() > 0) {
            // on the listening socket, so the window scale of accepted connections fits it
            ch.config().setOption(ChannelOption.SO_RCVBUF, options.receiveBuffer());
        }
        io.inheritedTcpSettings(ch, options.tcpKeepAlive(), options.sendBuffer());
        ch.config().setOption(ChannelOption.SO_BACKLOG, options.backlog());
        return ch;
    }

    /**
     * Binds {@code more} listening sockets to the port the first one got (SocketOptions.listeners),
     * one after the other, then reports the endpoint listening. If one cannot be bound, all are
     * closed and the bind fails: an endpoint listens with every socket asked for or not at all.
     */
    private void bindMoreListeners(int more, Promise<String> p) {
        if (server == null) {
            // unbound meanwhile: close() closed the listeners bound so far
            p.tryFailure(new SocketClosedException("unbound while binding " + requested));
            return;
        }
        if (more == 0) {
            socket.monitor().event(SocketEvent.Type.LISTENING, resolved.toString(), null, null, null);
            p.trySuccess(resolved.toString());
            return;
        }
        ServerChannel ch;
        try {
            ch = newTcpListener(socket.transport(), socket.options());
            socket.transport().reusePort(ch);
        } catch (IOException | RuntimeException e) {
            listenersFailed(p, e);
            return;
        }
        listen(ch, server.localAddress(), cause -> listenersFailed(p, cause), () -> {
            if (server == null) {
                ch.close();   // unbound meanwhile: close() saw the list without this one
            } else {
                moreListeners.add(ch);
            }
            bindMoreListeners(more - 1, p);
        });
    }

    private void listenersFailed(Promise<String> p, Throwable cause) {
        Channel first = server;
        server = null;
        if (first != null) {   // else unbound meanwhile, and closed then
            first.close();
        }
        for (Channel c : moreListeners) {
            c.close();
        }
        moreListeners.clear();
        failed(p, cause);
    }

    private void failed(Promise<String> p, Throwable cause) {
        String reason = cause.getMessage();
        socket.monitor().event(SocketEvent.Type.BIND_FAILED, requested.toString(), null, reason, null);
        p.tryFailure(new IOException("cannot bind " + requested + ": " + reason, cause));
    }

    @Override
    public void listening(WebSocketListener l) {
        this.webSocketListener = l;
    }

    /**
     * A ws:// or wss:// connection whose upgrade request named this endpoint's path: counted and
     * given the WebSocket handshake, the codec and a peer handler, or closed when it passes a
     * bound (then false).
     */
    @Override
    public boolean webSocketAccepted(Channel ch) {
        if (!admit(ch)) {
            return false;
        }
        io.zmtp.wire.ZmtpOptions zo = socket.acceptedZmtpOptions();
        io.zmtp.transport.WebSocketTransport.addUpgradeHandlers(ch.pipeline(), requested.path(), zo);
        socket.channelOpened(ch);
        hooks.initConnection(ch, true, resolved(), this);
        socket.monitor().event(SocketEvent.Type.ACCEPTED, resolved(), String.valueOf(PeerAddressText.of(ch)), null, null);
        return true;
    }

    /** A new tcp:// or ipc:// connection, not yet registered: counted, set up and registered, or closed at a bound. */
    private void accepted(Channel ch) {
        if (!admit(ch)) {
            return;
        }
        SocketOptions options = socket.options();
        ch.config().setOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT);
        if (requested.transport().overTcp()) {
            if (!socket.transport().inheritsTcpSettings()) {
                socket.transport().keepAlive(ch, options.tcpKeepAlive());
                TcpSocketOptions.apply(ch, options, socket.transport());
            } else {
                TcpSocketOptions.applyNotInherited(ch, options, socket.transport());
            }
        }
        if (requested.transport() == Endpoint.Transport.TLS) {
            ch.pipeline().addLast(options.tls().newServerHandler(ch.alloc(), options.handshakeTimeout()),
                    new io.zmtp.transport.TlsPeerIdentity());
        }
        hooks.initConnection(ch, true, resolved(), this);
        socket.loop().register(ch).addListener(f -> {
            if (!f.isSuccess()) {
                ch.unsafe().closeForcibly();
            }
        });
        socket.channelOpened(ch);
        socket.monitor().event(SocketEvent.Type.ACCEPTED, resolved(), String.valueOf(PeerAddressText.of(ch)), null, null);
    }

    /**
     * Counts a new connection, or closes it at once when it passes its address's bounds (then
     * false). At the endpoint's bounds an older connection is evicted to make room.
     */
    private boolean admit(Channel ch) {
        SocketOptions options = socket.options();
        SocketAddress remote = ch.remoteAddress();
        InetAddress address = remote instanceof InetSocketAddress ? ((InetSocketAddress) remote).getAddress() : null;
        boolean handshakes = socket.type() != SocketType.STREAM;   // raw TCP: no handshake
        String refusal = null;
        int[] n = address == null ? null : perAddress.get(address);
        if (n != null) {
            if (options.maxConnectionsPerAddress() > 0 && n[0] >= options.maxConnectionsPerAddress()) {
                refusal = "address holds its maximum of " + options.maxConnectionsPerAddress() + " connections";
            } else if (handshakes && n[1] >= options.maxHandshakesPerAddress()) {
                refusal = "address has its maximum of " + options.maxHandshakesPerAddress()
                        + " connections in their handshake";
            }
        }
        if (refusal == null && handshakes && handshaking.size() >= options.maxHandshakes()) {
            evictOldestHandshaking("endpoint has its maximum of " + options.maxHandshakes()
                    + " connections in their handshake");
        }
        if (refusal == null && connections >= options.maxConnections()) {
            String limit = "endpoint holds its maximum of " + options.maxConnections() + " connections";
            if (!evictOldestHandshaking(limit) && !evictLongestIdle(limit)) {
                refusal = limit;
            }
        }
        if (refusal != null) {
            ch.config().setOption(ChannelOption.SO_LINGER, 0);   // reset: no TIME_WAIT left behind
            if (ch.isRegistered()) {
                ch.close();
            } else {
                ch.unsafe().closeForcibly();
            }
            log.warn("{} {} refused a connection from {}: {}", socket, resolved(), remote, refusal);
            socket.monitor().event(SocketEvent.Type.REFUSED, resolved(), String.valueOf(remote), refusal, null);
            return false;
        }
        connections++;
        if (address != null) {
            if (n == null) {
                n = new int[2];
                perAddress.put(address, n);
            }
            n[0]++;
        }
        if (handshakes) {
            handshaking.put(ch, address);
            if (n != null) {
                n[1]++;
            }
        }
        ch.closeFuture().addListener(f -> released(ch, address));
        return true;
    }

    /** The connection's handshake completed: it no longer counts among those in their handshake. */
    @Override
    public void handshakeSucceeded(Channel ch) {
        if (handshaking.containsKey(ch)) {
            InetAddress address = handshaking.remove(ch);
            handshakeOver(address);
        }
    }

    @Override
    public void connectionFailed(Channel ch, ConnectionFailed f) {
        // the close that follows releases the connection
    }

    @Override
    public byte[] routingId() {
        return null;
    }

    private void handshakeOver(InetAddress address) {
        int[] n = address == null ? null : perAddress.get(address);
        if (n != null) {
            n[1]--;
        }
    }

    /** Closes the oldest connection still in its handshake, if any (then true). */
    private boolean evictOldestHandshaking(String why) {
        Iterator<java.util.Map.Entry<Channel, InetAddress>> it = handshaking.entrySet().iterator();
        if (!it.hasNext()) {
            return false;
        }
        java.util.Map.Entry<Channel, InetAddress> oldest = it.next();
        it.remove();
        handshakeOver(oldest.getValue());
        Channel victim = oldest.getKey();
        evicted(victim, "closed while still in its handshake to make room: " + why);
        victim.config().setOption(ChannelOption.SO_LINGER, 0); // reset: no TIME_WAIT left behind
        victim.close();
        return true;
    }

    /** Closes the connection of this endpoint whose peer was heard from longest ago, if any (then true). */
    private boolean evictLongestIdle(String why) {
        ChannelPipe idlest = null;
        for (Pipe p : socket.pipes()) {
            if (p instanceof ChannelPipe cp && p.attached && resolved().equals(p.endpoint())
                    && (idlest == null || p.heardAt - idlest.heardAt < 0)) {
                idlest = cp;
            }
        }
        if (idlest == null) {
            return false;
        }
        Channel victim = idlest.channel();
        String reason = "closed to make room, its peer silent for "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - idlest.heardAt) + " ms, the longest: " + why;
        evicted(victim, reason);
        idlest.refuse(reason);
        return true;
    }

    private void evicted(Channel victim, String reason) {
        log.warn("{} {} evicted the connection from {}: {}", socket, resolved(), victim.remoteAddress(), reason);
        socket.monitor().event(SocketEvent.Type.EVICTED, resolved(), String.valueOf(victim.remoteAddress()), reason, null);
    }

    private void released(Channel ch, InetAddress address) {
        connections--;
        if (handshaking.containsKey(ch)) {
            handshaking.remove(ch);
            handshakeOver(address);
        }
        if (address != null) {
            int[] n = perAddress.get(address);
            if (n != null && --n[0] == 0) {
                perAddress.remove(address);
            }
        }
    }

    /**
     * On the server channel: takes each accepted channel (set up and registered here, see
     * {@link #accepted}); a failed accept pauses accepting with a doubling delay and one
     * rate-limited line (Netty's own handling logs a stack trace per failure).
     */
    private final class Acceptor extends ChannelInboundHandlerAdapter {
        /** When this listener's queue was last looked at (see {@link #lookAtQueue}); the first accept looks. */
        private long queueLookedAt = System.nanoTime() - QUEUE_LOOK_NANOS;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            acceptBackoffMillis = 0;   // an accept worked: the next failure starts from the shortest pause
            long now = System.nanoTime();
            if (now - queueLookedAt >= QUEUE_LOOK_NANOS) {
                queueLookedAt = now;
                lookAtQueue(ctx.channel());
            }
            acceptQueue.add(ctx.channel(), (Channel) msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            acceptQueue.readDone(ctx.channel());
            ctx.fireChannelReadComplete();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (outOfDescriptors(cause)
                    && evictOldestHandshaking("accepting failed, out of file descriptors")) {
                // A descriptor is free again (closed on this thread): accept at the loop's next
                // turn, through the pause's off and on, which re-arms a level- or edge-triggered
                // selector alike.
                pause(ctx, 0);
                return;
            }
            acceptBackoffMillis = acceptBackoffMillis == 0 ? ACCEPT_BACKOFF_MIN_MILLIS
                    : Math.min(ACCEPT_BACKOFF_MAX_MILLIS, acceptBackoffMillis * 2);
            log.warn("{} {}: accepting failed, pausing for {} ms: {}", socket, resolved(), acceptBackoffMillis,
                    FrameText.escape(String.valueOf(cause)));
            pause(ctx, acceptBackoffMillis);
        }

        /**
         * Says so when the kernel's queue of connections waiting here is full or nearly (nine
         * tenths): connections that arrive while it is full are dropped and their peers retry a
         * second or more later, which is how a fresh server meets a crowd, and what an operator
         * can change (docs/limits.md). Nearly full counts because the look is seldom: a crowd
         * that overflows the queue in a few milliseconds leaves it nearly full for longer.
         */
        private void lookAtQueue(Channel listener) {
            int[] q = socket.transport().listenQueue((ServerChannel) listener);
            if (q == null || (long) q[0] * 10 < (long) q[1] * 9) {
                return;
            }
            String reason = "the kernel's queue of connections waiting to be accepted holds " + q[0] + " of its "
                    + q[1] + ": connections arriving while it is full are dropped and retried by their peers a"
                    + " second or more later; more listening sockets (listeners) or a larger net.core.somaxconn"
                    + " queue more";
            log.warn("{} {}: {}", socket, resolved(), reason);
            socket.monitor().event(SocketEvent.Type.QUEUE_FULL, resolved(), null, reason, null);
        }

        private void pause(ChannelHandlerContext ctx, long millis) {
            if (!acceptPaused) {
                acceptPaused = true;
                ctx.channel().config().setAutoRead(false);
                ctx.executor().schedule(() -> {
                    acceptPaused = false;
                    if (ctx.channel().isOpen()) {
                        ctx.channel().config().setAutoRead(true);
                    }
                }, millis, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Sets up a connection the accept queue held, or closes it when the endpoint closed meanwhile. */
    private void setUp(Channel ch) {
        if (server == null) {
            ch.unsafe().closeForcibly();
            return;
        }
        try {
            accepted(ch);
        } catch (RuntimeException e) {
            log.warn("{} {}: setting up an accepted connection failed: {}", socket, resolved(),
                    FrameText.escape(String.valueOf(e)));
            ch.unsafe().closeForcibly();
        }
    }

    /** The accept queue reached its bound and stopped a listener: said, as a full kernel queue is. */
    private void acceptQueueFull() {
        int bound = socket.options().acceptQueue();
        String reason = bound + " connections are accepted and waiting to be set up, the accept queue's maximum:"
                + " new ones wait in the kernel's queue (backlog " + socket.options().backlog() + ") until half"
                + " are set up; a larger acceptQueue holds more";
        log.warn("{} {}: {}", socket, resolved(), reason);
        socket.monitor().event(SocketEvent.Type.QUEUE_FULL, resolved(), null, reason, null);
    }

    /** EMFILE (the process) or ENFILE (the system), as the JDK's and Netty's native accept word them. */
    static boolean outOfDescriptors(Throwable cause) {
        String m = cause.getMessage();
        return cause instanceof IOException && m != null && m.contains("open files");
    }

    /** ipc://* binds a fresh path; a stale socket file at the path is removed, as libzmq does. */
    private static String ipcPath(String address) throws IOException {
        if (address.equals("*")) {
            Path dir = Files.createTempDirectory("zmtp-ipc");
            dir.toFile().deleteOnExit();
            return dir.resolve("socket").toString();
        }
        File f = new File(address);
        if (f.exists() && !f.isDirectory()) {
            Files.delete(f.toPath());
        }
        return address;
    }

    /** Stops listening; with {@code closeAccepted}, also closes the connections accepted here. */
    Future<?> close(boolean closeAccepted) {
        Promise<Void> done = socket.loop().newPromise();
        if (webSocketListener != null) {
            WebSocketListener l = webSocketListener;
            webSocketListener = null;
            closed = l.remove(requested.path(), this, socket.loop());
            socket.channels().listenerClosing(closed);
            closed.addListener(f -> {
                socket.monitor().event(SocketEvent.Type.UNBOUND, resolved(), null, null, null);
                done.trySuccess(null);
            });
            closeAcceptedPipes(closeAccepted);
            return done;
        }
        if (server == null) {
            done.trySuccess(null);
            return done;
        }
        Channel first = server;
        server = null;
        acceptQueue.closeAll();
        for (Channel c : moreListeners) {
            socket.channels().listenerClosing(c.closeFuture());
            c.close();
        }
        moreListeners.clear();
        socket.channels().listenerClosing(first.closeFuture());
        first.close().addListener(f -> {
            if (ipcPath != null) {
                new File(ipcPath).delete();
            }
            socket.monitor().event(SocketEvent.Type.UNBOUND, resolved(), null, null, null);
            done.trySuccess(null);
        });
        closeAcceptedPipes(closeAccepted);
        return done;
    }

    private void closeAcceptedPipes(boolean closeAccepted) {
        if (closeAccepted) {
            for (Pipe p : new java.util.ArrayList<>(socket.pipes())) {
                if (resolved().equals(p.endpoint())) {
                    p.close();
                }
            }
        }
    }

    Channel serverChannel() {
        return server != null || webSocketListener == null ? server : webSocketListener.serverChannel();
    }
}
