package io.zmtp.transport;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.resolver.HostsFileEntriesResolver;
import io.netty.resolver.ResolvedAddressTypes;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Host names looked up without blocking an event loop: one Netty asynchronous DNS resolver per
 * event loop of a context, made on that loop the first time one of its sockets connects to a name,
 * and closed with the context. What a connect attempt of tcp://, ws://, wss:// and tls:// asks,
 * and a bind to a name of those and of udp:// (a DISH).
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
 * <p>Threading: {@link #lookUp} and {@link #forget} are called on the loop they name; a loop's
 * resolver is touched only there. {@link #configure} and {@link #close} may be called from any
 * thread; new settings reach each loop's resolver at its next lookup.
 */
public final class NameResolvers implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NameResolvers.class);

    /** How long a lookup may take by default: 5 s, as the system resolver's default timeout. */
    public static final long DEFAULT_LOOKUP_TIMEOUT_MILLIS = 5000;

    /** The name servers (empty: the system's) and the lookup timeout. */
    private record Settings(List<InetSocketAddress> nameServers, Duration lookupTimeout) {
    }

    /** One loop's resolver, with its cache and the settings it was made with. */
    private record LoopResolver(DnsNameResolver resolver, ForgettingDnsCache cache, Settings settings) {
    }

    private final IoTransport io;
    private final ConcurrentHashMap<EventLoop, LoopResolver> resolvers = new ConcurrentHashMap<>();
    private volatile Settings settings = new Settings(List.of(), Duration.ofMillis(DEFAULT_LOOKUP_TIMEOUT_MILLIS));
    private volatile boolean forgetAfterFailedConnect = true;
    private volatile boolean closed;
    /** The JVM's first resolver is made off the loops: classes loaded and files read once per JVM. */
    private static final AtomicBoolean WARM_UP_STARTED = new AtomicBoolean();
    private static final CompletableFuture<Void> WARMED_UP = new CompletableFuture<>();

    /** Resolvers whose UDP channels are of {@code io}'s kind (the loops' kind). */
    public NameResolvers(IoTransport io) {
        this.io = Objects.requireNonNull(io, "io");
    }

    /**
     * Sets the name servers to ask (empty: the system's) and how long a lookup may take. Lookups
     * started from now on use them. Starts the JVM's resolver warm-up ({@link #warmUp}) from the
     * calling thread too, if no earlier call or connect did: whoever configures lookups will look
     * names up, and a warm-up done by the first lookup runs while the loops carry traffic.
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
        warmUp();
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
     * Every address of {@code host}, IPv4 first then IPv6, each in the name server's order; on
     * {@code loop}, which the future completes on. Fails (an {@link UnknownHostException} whose
     * message says why) when the name is unknown, no name server answered, or no answer came within
     * the lookup timeout.
     */
    public Future<List<InetAddress>> lookUp(EventLoop loop, String host) {
        InetAddress literal = literal(host);
        if (literal != null) {
            return loop.newSucceededFuture(List.of(literal));
        }
        if (closed) {
            return loop.newFailedFuture(new UnknownHostException("name lookup of " + host + ": the context is closed"));
        }
        return lookUp(loop, host, settings, WARMED_UP.isDone());
    }

    /**
     * A lookup of a name with settings {@code s}, within their timeout: the name servers are asked
     * at once when {@code now} (the warm-up is done, or this lookup is the warm-up's), else once
     * the warm-up is done. On {@code loop}.
     */
    private Future<List<InetAddress>> lookUp(EventLoop loop, String host, Settings s, boolean now) {
        Promise<List<InetAddress>> answer = loop.newPromise();
        long timeoutMillis = s.lookupTimeout().toMillis();
        ScheduledFuture<?> deadline = loop.schedule(() -> {
            answer.tryFailure(timedOut(host, timeoutMillis));
        }, timeoutMillis, TimeUnit.MILLISECONDS);
        answer.addListener(f -> deadline.cancel(false));
        if (now) {
            ask(loop, host, s, answer);
        } else {
            warmUp();
            WARMED_UP.whenComplete((v, t) -> loop.execute(() -> ask(loop, host, s, answer)));
        }
        return answer;
    }

    /** Asks the loop's resolver (made now if it has none, or none with the current settings). */
    private void ask(EventLoop loop, String host, Settings s, Promise<List<InetAddress>> answer) {
        if (answer.isDone()) {
            return;
        }
        if (closed) {
            answer.tryFailure(new UnknownHostException("name lookup of " + host + ": the context is closed"));
            return;
        }
        LoopResolver r;
        try {
            r = resolverOf(loop, s);
        } catch (RuntimeException e) {
            answer.tryFailure(failure(host, e));
            return;
        }
        Future<List<InetAddress>> f = r.resolver().resolveAll(host);
        answer.addListener(a -> {
            if (a.isCancelled() || !a.isSuccess()) {
                f.cancel(false);
            }
        });
        f.addListener(x -> {
            if (x.isSuccess()) {
                answer.trySuccess(List.copyOf(f.getNow()));
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

    private LoopResolver resolverOf(EventLoop loop, Settings s) {
        LoopResolver r = resolvers.get(loop);
        if (r != null && r.settings() == s) {
            return r;
        }
        if (r != null) {
            r.resolver().close();
        }
        ForgettingDnsCache cache = new ForgettingDnsCache();
        LoopResolver made = new LoopResolver(newResolver(loop, cache, s), cache, s);
        resolvers.put(loop, made);
        return made;
    }

    private DnsNameResolver newResolver(EventLoop loop, ForgettingDnsCache cache, Settings s) {
        DnsNameResolverBuilder b = new DnsNameResolverBuilder(loop)
                .datagramChannelType(io.udpChannel())
                // an answer too long for a datagram (a headless service of many pods) is asked again over tcp
                .socketChannelType(io.tcpChannel())
                .resolveCache(cache)
                .resolvedAddressTypes(ResolvedAddressTypes.IPV4_PREFERRED)
                .queryTimeoutMillis(s.lookupTimeout().toMillis());
        if (!s.nameServers().isEmpty()) {
            b.nameServerProvider(new SequentialDnsServerAddressStreamProvider(s.nameServers()));
        }
        return b.build();
    }

    /**
     * Drops {@code host} from {@code loop}'s resolver cache, with the forms the search domains
     * made of it: its next lookup asks the name servers. On {@code loop}.
     */
    public void forget(EventLoop loop, String host) {
        LoopResolver r = resolvers.get(loop);
        if (r != null) {
            r.cache().forget(host);
            r.resolver().cnameCache().clear(host);
        }
    }

    /**
     * Starts the JVM's resolver warm-up ({@link #warmUp}) now, from the calling thread, if
     * {@code endpoint} is a tcp://, ws://, wss://, tls:// or udp:// endpoint whose host must be
     * looked up; else does nothing (a malformed endpoint too: the connect reports it). Called by a
     * connect or a bind made from outside the socket's loop, so that the warm-up thread is started there:
     * starting a thread waits until the new thread runs, several milliseconds on a loaded
     * machine, which the loop would otherwise spend at the JVM's first lookup.
     */
    public void prepare(String endpoint) {
        if (WARM_UP_STARTED.get()) {
            return;
        }
        Endpoint ep;
        try {
            ep = Endpoint.parse(endpoint);
        } catch (RuntimeException e) {
            return;
        }
        boolean connectsByName = (ep.transport().overTcp() || ep.transport() == Endpoint.Transport.UDP)
                && !"*".equals(ep.host()) && needsLookup(ep.host());
        if (connectsByName) {
            warmUp();
        }
    }

    /**
     * Loads and initialises, off the loops, what a resolver needs the first time one works in this
     * JVM: the system's name servers and search domains read from {@code /etc/resolv.conf}, the
     * hosts file read, and the classes of the resolver, its cache, its UDP channel, the DNS codec
     * and a query's whole path, with the lambdas of {@link #lookUp} linked. For the last, a probe
     * (a {@code NameResolvers} of its own, on an event loop of its own of the loops' kind) looks a
     * name up by asking a closed port on the loopback interface (the discard port, 9: refused at
     * once, or unanswered for 200 ms), then the probe and its loop are closed.
     * Done on a socket's loop instead, that first lookup costs the loop, and every socket on it,
     * tens of milliseconds of file reading and class loading (hundreds on a loaded machine).
     * Lookups wait for it, once per JVM.
     */
    private void warmUp() {
        if (!WARM_UP_STARTED.compareAndSet(false, true)) {
            return;
        }
        Thread t = new Thread(() -> {
            EventLoopGroup probeLoop = null;
            try {
                HostsFileEntriesResolver.DEFAULT.address("localhost", ResolvedAddressTypes.IPV4_PREFERRED);
                DnsServerAddressStreamProviders.platformDefault().nameServerAddressStream("localhost");
                probeLoop = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("zmtp-dns-warm-up-loop", true),
                        io.handlerFactory());
                EventLoop loop = (EventLoop) probeLoop.next();
                Settings discard = new Settings(List.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 9)),
                        Duration.ofMillis(200));
                // through a lookup's own path, so that its lambdas are linked here, not on a socket's loop
                NameResolvers probe = new NameResolvers(io);
                try {
                    loop.submit(() -> probe.lookUp(loop, "warm-up.invalid", discard, true)).syncUninterruptibly().getNow()
                            .awaitUninterruptibly(1, TimeUnit.SECONDS);
                } finally {
                    probe.close();
                }
            } catch (Throwable e) {
                log.debug("warming the name resolver up failed; what it needs loads on first use", e);
            } finally {
                if (probeLoop != null) {
                    probeLoop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
                }
                WARMED_UP.complete(null);
            }
        }, "zmtp-dns-warm-up");
        t.setDaemon(true);
        t.start();
    }

    /** Closes every loop's resolver; lookups fail from now on. */
    @Override
    public void close() {
        closed = true;
        for (var e : resolvers.entrySet()) {
            EventLoop loop = e.getKey();
            LoopResolver r = e.getValue();
            if (loop.inEventLoop() || loop.isShuttingDown()) {
                closeResolver(r);
            } else {
                loop.submit(() -> closeResolver(r)).awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
        }
        resolvers.clear();
    }

    private static void closeResolver(LoopResolver r) {
        r.resolver().close();
        r.cache().clear();
    }
}
