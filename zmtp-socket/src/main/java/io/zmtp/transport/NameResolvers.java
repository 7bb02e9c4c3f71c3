package io.zmtp.transport;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.resolver.ResolvedAddressTypes;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.SequentialDnsServerAddressStreamProvider;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Host names looked up without blocking an event loop: one Netty asynchronous DNS resolver per
 * context, on a thread of its own ({@code zmtp-dns}), made when the context is configured for
 * lookups ({@link #configure}), when a user thread first connects or binds to a name
 * ({@link #prepare}), or else at the first lookup, and closed with the context. What a connect
 * attempt of tcp://, ws://, wss:// and tls:// asks, a bind to a name of those and of udp://
 * (a DISH), and a udp:// endpoint's multicast interface given by a host name.
 *
 * <p>Why a thread of its own rather than a resolver on each socket's loop: everything a lookup
 * costs, beyond handing the question over and the answer back, is then off the sockets' loops.
 * That is the first lookup's class loading and file reading (tens of milliseconds, hundreds on a
 * loaded machine), making the resolver (about 1 ms), and Netty's query-id space, which a resolver
 * builds at its first query to each name server: 16,384 ids shuffled with {@code SecureRandom},
 * 6-7 ms of CPU. On a socket's loop each of those stalled every socket of the loop.
 *
 * <p>The answer to {@link #lookUp} is every address of the name: its A records (IPv4) first, then
 * its AAAA records (IPv6), each in the order the name server gave them. The resolver's cache keeps
 * an answer for its records' TTL; {@link #forget} drops a name early, under the forms the system's
 * search domains made of it too. An IP literal and {@code localhost} (the JVM's loopback address,
 * as a bind to {@code localhost} uses) need no lookup, nor a resolver; names in the hosts file are
 * answered from it, without DNS traffic.
 *
 * <p>Settings ({@link #configure}): the name servers (none given: the system's, from
 * {@code /etc/resolv.conf}) and the longest a lookup may take, {@value #DEFAULT_LOOKUP_TIMEOUT_MILLIS}
 * ms by default. A lookup not answered by then fails with a message that says so.
 *
 * <p>Threading: {@link #lookUp} is called on the loop it names, whose promise it returns; the
 * question is handed to the resolver's thread, in order with {@link #forget}s (so a lookup after a
 * forget asks the name servers). The resolver and its cache are touched only on their thread.
 * {@link #configure}, {@link #prepare}, {@link #forget} and {@link #close} may be called from any
 * thread; new settings reach the resolver at its next lookup.
 */
public final class NameResolvers implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NameResolvers.class);

    /** How long a lookup may take by default: 5 s, as the system resolver's default timeout. */
    public static final long DEFAULT_LOOKUP_TIMEOUT_MILLIS = 5000;

    /** The name servers (empty: the system's) and the lookup timeout. */
    private record Settings(List<InetSocketAddress> nameServers, Duration lookupTimeout) {
    }

    private final IoTransport io;
    private volatile Settings settings = new Settings(List.of(), Duration.ofMillis(DEFAULT_LOOKUP_TIMEOUT_MILLIS));
    private volatile boolean forgetAfterFailedConnect = true;
    private volatile boolean closed;
    /** The resolver's thread: made by the first {@link #resolverLoop()} call, shut down by close. */
    private EventLoopGroup resolverGroup;
    private volatile EventLoop resolverLoop;
    // on the resolver's thread only
    private DnsNameResolver resolver;
    private ForgettingDnsCache cache;
    private Settings resolverSettings;

    /**
     * A resolver whose UDP channel is of {@code io}'s kind (the loops' kind), except io_uring's:
     * the resolver has a thread and loop of its own, so its kind need not match the sockets', and
     * Netty's io_uring datagram channel (4.2.18) once leaked the buffer of a read still scheduled
     * when it closed (NameResolutionTest with the zmtp-socket tests on io_uring). Over io_uring the
     * resolver uses epoll, or NIO.
     */
    public NameResolvers(IoTransport io) {
        Objects.requireNonNull(io, "io");
        this.io = io == IoTransport.IO_URING ? IoTransport.epollOrNio() : io;
    }

    /**
     * Sets the name servers to ask (empty: the system's) and how long a lookup may take. Lookups
     * started from now on use them. Starts the resolver's thread and makes the resolver there, if
     * not done yet: whoever configures lookups will look names up, and this way the first lookup
     * finds them ready.
     */
    public void configure(List<InetSocketAddress> nameServers, Duration lookupTimeout) {
        Objects.requireNonNull(nameServers, "nameServers");
        Objects.requireNonNull(lookupTimeout, "lookupTimeout");
        if (lookupTimeout.isNegative() || lookupTimeout.isZero()) {
            throw new IllegalArgumentException("lookupTimeout must be positive: " + lookupTimeout);
        }
        for (InetSocketAddress a : nameServers) {
            if (a.isUnresolved()) {
                throw new IllegalArgumentException("a name server is given by its address, not a name: " + a);
            }
        }
        settings = new Settings(List.copyOf(nameServers), lookupTimeout);
        start();
    }

    /** The name servers asked; empty when they are the system's. */
    public List<InetSocketAddress> nameServers() {
        return settings.nameServers();
    }

    /** How long a lookup may take. */
    public Duration lookupTimeout() {
        return settings.lookupTimeout();
    }

    /**
     * Whether a connect to a looked-up address that fails makes the next attempt look the name up
     * again, rather than take the cached answer until its TTL ends (default: yes). Off only to
     * show what the refresh is for.
     */
    public void forgetAfterFailedConnect(boolean forget) {
        this.forgetAfterFailedConnect = forget;
    }

    public boolean forgetAfterFailedConnect() {
        return forgetAfterFailedConnect;
    }

    /**
     * Whether {@code host} must be looked up: not for an IP literal nor {@code localhost}.
     */
    public static boolean needsLookup(String host) {
        return literal(host) == null;
    }

    /** The address of an IP literal or {@code localhost}, or null when the host is a name to look up. */
    private static InetAddress literal(String host) {
        if ("localhost".equalsIgnoreCase(host)) {
            return InetAddress.getLoopbackAddress();
        }
        return NetUtil.createInetAddressFromIpAddressString(host);
    }

    /**
     * Every address of {@code host} (at least one), as {@link #lookUp(EventLoop, String)} gives
     * them, handed to {@code then} on {@code loop}: at once when already known, else when the
     * answer comes.
     */
    public void lookUp(EventLoop loop, String host, java.util.function.Consumer<Future<List<InetAddress>>> then) {
        Future<List<InetAddress>> answer = lookUp(loop, host);
        if (answer.isDone()) {
            then.accept(answer); // an address, or a name answered already: no turn of the loop lost
        } else {
            answer.addListener(f -> then.accept(answer));
        }
    }

    /**
     * Every address of {@code host} (at least one), IPv4 first then IPv6, each in the name server's
     * order; on {@code loop}, which the future completes on. Fails (an {@link UnknownHostException}
     * whose message says why) when the name is unknown or has no address, no name server answered,
     * or no answer came within the lookup timeout.
     */
    public Future<List<InetAddress>> lookUp(EventLoop loop, String host) {
        InetAddress literal = literal(host);
        if (literal != null) {
            return loop.newSucceededFuture(List.of(literal));
        }
        if (closed) {
            return loop.newFailedFuture(new UnknownHostException("name lookup of " + host + ": the context is closed"));
        }
        Promise<List<InetAddress>> answer = loop.newPromise();
        Settings s = settings;
        long timeoutMillis = s.lookupTimeout().toMillis();
        ScheduledFuture<?> deadline = loop.schedule(() -> {
            answer.tryFailure(timedOut(host, timeoutMillis));
        }, timeoutMillis, TimeUnit.MILLISECONDS);
        answer.addListener(f -> deadline.cancel(false));
        if (!onResolverThread(() -> ask(host, s, answer))) {
            answer.tryFailure(new UnknownHostException("name lookup of " + host + ": the context is closed"));
        }
        return answer;
    }

    /** On the resolver's thread: asks its resolver (made now if there is none with these settings). */
    private void ask(String host, Settings s, Promise<List<InetAddress>> answer) {
        if (answer.isDone()) {
            return;
        }
        if (closed) {
            answer.tryFailure(new UnknownHostException("name lookup of " + host + ": the context is closed"));
            return;
        }
        DnsNameResolver r;
        try {
            r = resolver(s);
        } catch (RuntimeException e) {
            answer.tryFailure(failure(host, e));
            return;
        }
        Future<List<InetAddress>> f = r.resolveAll(host);
        answer.addListener(a -> {
            if (a.isCancelled() || !a.isSuccess()) {
                f.cancel(false); // timed out on the socket's loop: the query goes
            }
        });
        f.addListener(x -> {
            if (x.isSuccess()) {
                if (f.getNow().isEmpty()) { // an answer with no address is no answer, for every caller
                    answer.tryFailure(new UnknownHostException("name lookup of " + host + " found no address"));
                } else {
                    answer.trySuccess(List.copyOf(f.getNow()));
                }
            } else if (DnsNameResolver.isTimeoutError(x.cause())) {
                // the resolver's own query timeout, the same as ours: one message for both
                answer.tryFailure(timedOut(host, s.lookupTimeout().toMillis()));
            } else if (!x.isCancelled()) {
                answer.tryFailure(failure(host, x.cause()));
            }
        });
    }

    private static UnknownHostException timedOut(String host, long millis) {
        return new UnknownHostException("name lookup of " + host + " timed out after " + millis + " ms");
    }

    private static UnknownHostException failure(String host, Throwable cause) {
        UnknownHostException e = new UnknownHostException("name lookup of " + host + " failed: " + cause.getMessage());
        e.initCause(cause);
        return e;
    }

    /** On the resolver's thread: the resolver with settings {@code s}, made now if needed. */
    private DnsNameResolver resolver(Settings s) {
        if (resolver != null && resolverSettings == s) {
            return resolver;
        }
        if (resolver != null) {
            resolver.close();
        }
        ForgettingDnsCache c = new ForgettingDnsCache();
        resolver = build(s, c);
        cache = c;
        resolverSettings = s;
        return resolver;
    }

    /** A resolver on the resolver's thread with settings {@code s} and cache {@code c}. */
    private DnsNameResolver build(Settings s, ForgettingDnsCache c) {
        DnsNameResolverBuilder b = new DnsNameResolverBuilder(resolverLoop)
                .datagramChannelType(io.udpChannel())
                // an answer too long for a datagram (a headless service of many pods) is asked again over tcp
                .socketChannelType(io.tcpChannel())
                .resolveCache(c)
                .resolvedAddressTypes(ResolvedAddressTypes.IPV4_PREFERRED)
                .queryTimeoutMillis(s.lookupTimeout().toMillis());
        if (!s.nameServers().isEmpty()) {
            b.nameServerProvider(new SequentialDnsServerAddressStreamProvider(s.nameServers()));
        }
        return b.build();
    }

    /**
     * Drops {@code host} from the resolver's cache, with the forms the search domains made of it:
     * the next lookup asks the name servers. Any thread; done before any lookup started after it.
     */
    public void forget(String host) {
        if (resolverLoop != null) {
            onResolverThread(() -> {
                if (resolver != null) {
                    cache.forget(host);
                    resolver.cnameCache().clear(host);
                }
            });
        }
    }

    /**
     * Starts the resolver's thread and makes the resolver there, from the calling thread, if
     * {@code endpoint} is a tcp://, ws://, wss://, tls:// or udp:// endpoint whose host must be
     * looked up, or a udp:// endpoint whose interface is given by a host name; else does nothing (a malformed endpoint too: the connect reports it). Called by a
     * connect or a bind made from outside the socket's loop, so that the thread is started there:
     * starting a thread waits until the new thread runs, several milliseconds on a loaded
     * machine, which the loop would otherwise spend at its first lookup.
     */
    public void prepare(String endpoint) {
        if (resolverLoop != null) {
            return;
        }
        Endpoint ep;
        try {
            ep = Endpoint.parse(endpoint);
        } catch (RuntimeException e) {
            return;
        }
        boolean byName = (ep.transport().overTcp() || ep.transport() == Endpoint.Transport.UDP)
                && !"*".equals(ep.host()) && needsLookup(ep.host());
        if (byName || interfaceByHostName(ep)) {
            start();
        }
    }

    /**
     * Whether the interface a udp:// endpoint names before its semicolon is a host name to look
     * up: neither an IP literal nor the name of one of this machine's interfaces (read from the
     * kernel: no DNS).
     */
    private static boolean interfaceByHostName(Endpoint ep) {
        String iface = ep.udpInterface();
        if (iface == null || !needsLookup(iface)) {
            return false;
        }
        try {
            return java.net.NetworkInterface.getByName(iface) == null;
        } catch (java.net.SocketException e) {
            return false; // the bind or connect reports it
        }
    }

    /** Starts the resolver's thread, which makes the resolver first ({@link #warmUp}). */
    private void start() {
        resolverLoop();
    }

    /**
     * On the resolver's thread, first thing: makes the resolver with the current settings, and
     * loads what a query's whole path needs (the classes of the DNS codec and of a query,
     * {@code SecureRandom}'s set-up for query ids: about 40 ms of CPU the first time in a JVM) by
     * a probe resolver that asks one question of a closed port on the loopback interface (the
     * discard port, 9: refused at once, or unanswered for 200 ms) and is closed. Lookups queued
     * meanwhile go on while the probe waits.
     */
    private void warmUp() {
        if (closed) {
            return;
        }
        try {
            resolver(settings);
            Settings discard = new Settings(List.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 9)),
                    Duration.ofMillis(200));
            DnsNameResolver probe = build(discard, new ForgettingDnsCache());
            probe.resolveAll("warm-up.invalid").addListener(f -> probe.close());
        } catch (RuntimeException e) {
            log.debug("warming the name resolver up failed; the first lookup will say why", e);
        }
    }

    /** Runs {@code task} on the resolver's thread (started now if need be); false once closed. */
    private boolean onResolverThread(Runnable task) {
        EventLoop r = resolverLoop();
        if (r == null) {
            return false;
        }
        try {
            r.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false; // closed meanwhile
        }
    }

    /** The resolver's loop, made (and its thread started) now if there is none yet; null once closed. */
    private EventLoop resolverLoop() {
        EventLoop r = resolverLoop;
        if (r != null) {
            return r;
        }
        synchronized (this) {
            if (closed) {
                return null;
            }
            if (resolverLoop == null) {
                resolverGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("zmtp-dns", true),
                        io.handlerFactory());
                EventLoop made = (EventLoop) resolverGroup.next();
                resolverLoop = made;
                made.execute(this::warmUp); // starts the thread
            }
            return resolverLoop;
        }
    }

    /** Closes the resolver and stops its thread; lookups fail from now on. */
    @Override
    public void close() {
        EventLoopGroup g;
        synchronized (this) {
            closed = true;
            g = resolverGroup;
        }
        if (g == null) {
            return;
        }
        EventLoop r = resolverLoop;
        if (!r.isShuttingDown()) {
            r.submit(() -> {
                if (resolver != null) {
                    resolver.close();
                    cache.clear();
                    resolver = null;
                }
            }).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        g.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
