package io.zmtp.socket;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.zmtp.transport.IoTransport;
import io.zmtp.transport.NameResolvers;
import io.zmtp.transport.SpinThenBlockStrategy;
import io.zmtp.wire.SocketType;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Where sockets live: a group of Netty event loops (epoll where available, NIO otherwise) and
 * the registry of inproc:// endpoints. Each socket is pinned to one loop; sockets that must share
 * state without locks (a broker's frontend and backend) are created on the same loop with
 * {@link #socket(SocketType, SocketOptions, EventLoop)}.
 */
public final class ZmtpContext implements AutoCloseable {
    private final EventLoopGroup group;
    private final boolean ownsGroup;
    private final IoTransport transport;
    private final InprocRegistry inproc = new InprocRegistry();
    private final Set<ZmtpSocket> sockets = ConcurrentHashMap.newKeySet();
    /** The host name lookups of connects and binds: one resolver, on a thread of its own. */
    private final NameResolvers names;
    private ZapAuthenticator zap;

    private ZmtpContext(EventLoopGroup group, boolean ownsGroup, IoTransport transport) {
        this.group = group;
        this.ownsGroup = ownsGroup;
        this.transport = transport;
        this.names = new NameResolvers(transport);
    }

    /** A context with one event loop per available processor. */
    public static ZmtpContext create() {
        return create(Runtime.getRuntime().availableProcessors());
    }

    /**
     * How long an idle event loop polls before it blocks, by default: {@value #DEFAULT_SPIN_MICROS}
     * microseconds (system property {@code zmtp.spinMicros}). See {@link SpinThenBlockStrategy}.
     */
    public static final long DEFAULT_SPIN_MICROS = 50;

    /** A context with {@code ioThreads} event loops. */
    public static ZmtpContext create(int ioThreads) {
        return create(ioThreads, Duration.ofNanos(1000 * Long.getLong("zmtp.spinMicros", DEFAULT_SPIN_MICROS)));
    }

    /**
     * A context with {@code ioThreads} event loops that poll for {@code spin} before blocking
     * once they run out of work (zero: block at once, as plain Netty loops do).
     */
    public static ZmtpContext create(int ioThreads, Duration spin) {
        return create(ioThreads, spin, IoTransport.preferred());
    }

    /**
     * A context with {@code ioThreads} event loops of the given kind of I/O: {@link
     * IoTransport#IO_URING} for a server with many peers on a recent Linux (see {@link
     * IoTransport}; its loops spin too, see {@link io.zmtp.transport.SpinningIoHandler}).
     *
     * @throws IllegalStateException when that kind does not work on this machine, with the reason
     */
    public static ZmtpContext create(int ioThreads, Duration spin, IoTransport transport) {
        if (!transport.isAvailable()) {
            throw new IllegalStateException(transport + " is not available here: " + transport.unavailabilityCause(),
                    transport.unavailabilityCause());
        }
        EventLoopGroup g = new MultiThreadIoEventLoopGroup(ioThreads, new DefaultThreadFactory("zmtp", true),
                transport.handlerFactory(spin));
        return new ZmtpContext(g, true, transport);
    }

    /**
     * A context on an application's own event loops (epoll, io_uring or NIO), which it keeps and shuts
     * down itself.
     */
    public static ZmtpContext wrap(EventLoopGroup group) {
        return new ZmtpContext(group, false, IoTransport.of(group.next()));
    }

    public EventLoopGroup group() {
        return group;
    }

    public IoTransport transport() {
        return transport;
    }

    InprocRegistry inproc() {
        return inproc;
    }

    /**
     * Where and how long the host names of endpoints (tcp://, ws://, wss://, tls://) are looked
     * up. Each connect attempt looks its host up without blocking its socket's event loop, with
     * Netty's asynchronous DNS resolver (one per context, on a thread of its own that this call
     * starts, closed with the context), and takes the next address of the answer: the A records first,
     * then the AAAA records, each in the name server's order. Answers are cached for their
     * records' TTL; a connect to a looked-up address that fails makes the next attempt ask again.
     * A lookup that fails or takes longer than {@code lookupTimeout} is a failed attempt
     * ({@link SocketEvent.Type#CONNECT_FAILED}, its reason saying why), followed by the usual
     * reconnect delay. IP literals and {@code localhost} are not looked up. A bind to a name
     * (those transports, and a DISH's udp://) is looked up the same way and binds the answer's
     * first address; a name that cannot be looked up fails the bind
     * ({@link SocketEvent.Type#BIND_FAILED}).
     *
     * <p>Defaults: the system's name servers ({@code /etc/resolv.conf}) and a 5 s timeout
     * ({@link NameResolvers#DEFAULT_LOOKUP_TIMEOUT_MILLIS}). Lookups started after this call use
     * the new settings; set them before connecting.
     *
     * @param nameServers the name servers to ask, in order (addresses, not names); empty: the system's
     * @param lookupTimeout the longest a lookup may take (positive)
     * @return this context
     */
    public ZmtpContext nameResolution(List<InetSocketAddress> nameServers, Duration lookupTimeout) {
        names.configure(nameServers, lookupTimeout);
        return this;
    }

    /** The context's host name lookups (its sockets' endpoints, and tests). */
    NameResolvers nameResolvers() {
        return names;
    }

    /** The sockets of this context not yet removed (a snapshot; for tests). */
    java.util.List<ZmtpSocket> openSockets() {
        return new ArrayList<>(sockets);
    }

    /**
     * The event loop serving the fewest open sockets of this context (the first such in the
     * group's order), so independent sockets spread over the loops: a broker's two sockets on one
     * loop and its client on another, rather than round-robin piling them up.
     */
    EventLoop nextLoop() {
        java.util.Map<EventLoop, Integer> load = new java.util.HashMap<>();
        for (ZmtpSocket s : sockets) {
            if (!s.isClosed()) {
                load.merge(s.eventLoop(), 1, Integer::sum);
            }
        }
        EventLoop best = null;
        int bestLoad = Integer.MAX_VALUE;
        for (io.netty.util.concurrent.EventExecutor e : group) {
            if (e instanceof EventLoop) {
                int l = load.getOrDefault(e, 0);
                if (l < bestLoad) {
                    best = (EventLoop) e;
                    bestLoad = l;
                }
            }
        }
        return best != null ? best : group.next();
    }

    /**
     * The authenticator that asks this context's ZAP handler: the socket bound at
     * {@code inproc://zeromq.zap.01}, written the libzmq way (27/ZAP). Give it to a PLAIN or CURVE
     * server ({@code PlainMechanism.server(context.zapAuthenticator())}); a NULL socket with a ZAP
     * domain uses it by itself. See {@link ZapAuthenticator} for what happens with no handler.
     */
    public synchronized ZapAuthenticator zapAuthenticator() {
        if (zap == null) {
            zap = new ZapAuthenticator(socket(SocketType.DEALER, ZapAuthenticator.DEALER_OPTIONS), inproc);
        }
        return zap;
    }

    /** A socket of the given type on the next event loop. */
    public ZmtpSocket socket(SocketType type) {
        return socket(type, SocketOptions.DEFAULTS, null);
    }

    public ZmtpSocket socket(SocketType type, SocketOptions options) {
        return socket(type, options, null);
    }

    /** A socket on a given loop of this context (null: the next one). */
    public ZmtpSocket socket(SocketType type, SocketOptions options, EventLoop loop) {
        return opened(SocketTypes.create(new ZmtpSocket.Setup(this, options, loop == null ? nextLoop() : loop), type));
    }

    public RouterSocket router(SocketOptions options) {
        return opened(new RouterSocket(new ZmtpSocket.Setup(this, options, nextLoop())));
    }

    public DealerSocket dealer(SocketOptions options) {
        return opened(new DealerSocket(new ZmtpSocket.Setup(this, options, nextLoop())));
    }

    public ReqSocket req(SocketOptions options) {
        return opened(new ReqSocket(new ZmtpSocket.Setup(this, options, nextLoop())));
    }

    public RepSocket rep(SocketOptions options) {
        return opened(new RepSocket(new ZmtpSocket.Setup(this, options, nextLoop())));
    }

    public PubSocket pub(SocketOptions options) {
        return opened(new PubSocket(new ZmtpSocket.Setup(this, options, nextLoop())));
    }

    public SubSocket sub(SocketOptions options) {
        return opened(new SubSocket(new ZmtpSocket.Setup(this, options, nextLoop())));
    }

    public ServerSocket server(SocketOptions options) {
        return opened(new ServerSocket(new ZmtpSocket.Setup(this, options, nextLoop())));
    }

    public ClientSocket client(SocketOptions options) {
        return opened(new ClientSocket(new ZmtpSocket.Setup(this, options, nextLoop())));
    }

    public ScatterSocket scatter(SocketOptions options) {
        return opened(new ScatterSocket(new ZmtpSocket.Setup(this, options, nextLoop())));
    }

    public GatherSocket gather(SocketOptions options) {
        return opened(new GatherSocket(new ZmtpSocket.Setup(this, options, nextLoop())));
    }

    public PeerSocket peer(SocketOptions options) {
        return opened(new PeerSocket(new ZmtpSocket.Setup(this, options, nextLoop())));
    }

    public ChannelSocket channel(SocketOptions options) {
        return opened(new ChannelSocket(new ZmtpSocket.Setup(this, options, nextLoop())));
    }

    public RadioSocket radio(SocketOptions options) {
        return opened(new RadioSocket(new ZmtpSocket.Setup(this, options, nextLoop())));
    }

    public DishSocket dish(SocketOptions options) {
        return opened(new DishSocket(new ZmtpSocket.Setup(this, options, nextLoop())));
    }

    /** Counts {@code s} among this context's sockets, which {@link #close()} closes. */
    private <S extends ZmtpSocket> S opened(S s) {
        sockets.add(s);
        return s;
    }

    /** A blocking facade over a new socket, for a user thread that sends and receives with timeouts. */
    public BlockingSocket blocking(SocketType type, SocketOptions options) {
        return new BlockingSocket(socket(type, options));
    }

    public BlockingSocket blocking(SocketType type) {
        return blocking(type, SocketOptions.DEFAULTS);
    }

    void socketClosed(ZmtpSocket s) {
        sockets.remove(s);
    }

    /**
     * Makes this process's first connection as quick as its later ones: passes one message each
     * way over a tcp connection between two sockets of this context on the loopback interface (a
     * port the system picks; both closed with linger 0 at the end), so that what a connection
     * needs the first time it is used in a JVM (classes loaded and initialised, Netty's buffer
     * pools and the Flight Recorder events they declare) is ready before the application starts
     * a clock. A cold JVM spends 0.2 to 0.3 s of its first connection on that, several times as
     * much on a busy machine: enough to time out a first request given 1 s. Optional; the
     * {@code zmtp} commands call it before they start their clients and servers.
     *
     * @return whether the message came back within {@code timeout} (false: no loopback, or too
     *         slow; either way nothing else is left behind)
     */
    public boolean warmUp(Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        SocketOptions options = SocketOptions.builder().linger(Duration.ZERO).build();
        ZmtpSocket server = socket(SocketType.ROUTER, options);
        ZmtpSocket client = socket(SocketType.DEALER, options);
        try {
            io.netty.util.concurrent.Promise<Void> back = client.eventLoop().newPromise();
            server.onMessage(server::send); // the routing id leads: an echo to the sender
            client.onMessage(m -> {
                m.release();
                back.trySuccess(null);
            });
            Future<String> bound = server.bind("tcp://127.0.0.1:0");
            if (!bound.awaitUninterruptibly(remainingMillis(end)) || !bound.isSuccess()) {
                return false;
            }
            client.connect(bound.getNow());
            client.send("warm-up");
            return back.awaitUninterruptibly(remainingMillis(end)) && back.isSuccess();
        } finally {
            client.close(Duration.ZERO);
            server.close(Duration.ZERO);
        }
    }

    private static long remainingMillis(long end) {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()));
    }

    /**
     * Closes every socket (each with its linger, bounded by {@code timeout}) and, if this context
     * made its event loops, shuts them down.
     */
    public void close(Duration timeout) {
        List<Future<Void>> closing = new ArrayList<>();
        for (ZmtpSocket s : sockets) {
            closing.add(s.close(s.options().linger().compareTo(timeout) < 0 ? s.options().linger() : timeout));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Future<Void> f : closing) {
            f.awaitUninterruptibly(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        settle();
        names.close();
        if (ownsGroup) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Lets tasks that closing sockets posted to each other's loops (an inproc close hand-off
     * takes two hops) run before the loops stop: three rounds of a no-op on every loop.
     */
    private void settle() {
        for (int round = 0; round < 3; round++) {
            List<Future<?>> marks = new ArrayList<>();
            for (io.netty.util.concurrent.EventExecutor e : group) {
                if (!e.isShuttingDown()) {
                    marks.add(e.submit(() -> { }));
                }
            }
            for (Future<?> f : marks) {
                f.awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
        }
    }

    /** Closes with a 30 s bound. */
    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
