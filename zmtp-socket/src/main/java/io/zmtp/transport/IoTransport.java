package io.zmtp.transport;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandle;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;

import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.util.Locale;

/**
 * The Netty I/O implementation under tcp://, ipc:// and udp://: native epoll where it is
 * available, NIO otherwise; io_uring when asked for (the system property
 * {@code zmtp.transport=io_uring}, or {@link io.zmtp.socket.ZmtpContext#create(int,
 * java.time.Duration, IoTransport)}) and the kernel allows it. Channels must match their event
 * loop's kind, so the kind is chosen once per event loop group.
 *
 * <p>Why io_uring: a server with many peers spends most of its time in system calls, a read and
 * a write per message per connection. io_uring hands the kernel a whole turn's reads and writes
 * in one call: an echo server with 1,000 peers used about a third less CPU per message than over
 * epoll on one machine (benchmarks/RESULTS.md, "io_uring"), and the same as epoll on a faster one
 * ("io_uring's loops spin too"). It is not the default: it needs a recent Linux, is disabled by
 * some container runtimes' system-call filters, and one connection's synchronous round trips are
 * slower on it. Its loops spin before blocking as epoll's do ({@link SpinningIoHandler}).
 */
public enum IoTransport {
    EPOLL, NIO, IO_URING;

    /**
     * Epoll when the native library loads on this machine, else NIO; the system property
     * {@code zmtp.transport} asks for {@code nio} or {@code io_uring} (which falls back to the
     * default, with a warning that says why, where the kernel does not allow it).
     */
    public static IoTransport preferred() {
        String forced = System.getProperty("zmtp.transport", "").toLowerCase(Locale.ROOT);
        if (forced.equals("nio")) {
            return NIO;
        }
        if (forced.equals("io_uring")) {
            if (IoUring.isAvailable()) {
                return IO_URING;
            }
            org.slf4j.LoggerFactory.getLogger(IoTransport.class).warn(
                    "zmtp.transport=io_uring, but io_uring is not available here ({}): using {}",
                    IoUring.unavailabilityCause(), epollOrNio().name().toLowerCase(Locale.ROOT));
        } else if (!forced.isEmpty() && !forced.equals("epoll")) {
            org.slf4j.LoggerFactory.getLogger(IoTransport.class).warn(
                    "zmtp.transport={}: not epoll, nio or io_uring; using {}", forced, epollOrNio().name().toLowerCase(Locale.ROOT));
        }
        return epollOrNio();
    }

    /** Epoll where its native library loads on this machine, else NIO: the kind when none is asked for. */
    public static IoTransport epollOrNio() {
        return Epoll.isAvailable() ? EPOLL : NIO;
    }

    /** Whether this kind of I/O works on this machine (NIO always does). */
    public boolean isAvailable() {
        return switch (this) {
            case EPOLL -> Epoll.isAvailable();
            case IO_URING -> IoUring.isAvailable();
            case NIO -> true;
        };
    }

    /** Why this kind of I/O does not work here, or null where it does. */
    public Throwable unavailabilityCause() {
        return switch (this) {
            case EPOLL -> Epoll.unavailabilityCause();
            case IO_URING -> IoUring.unavailabilityCause();
            case NIO -> null;
        };
    }

    /** The kind of an existing event loop (one given by an application). */
    public static IoTransport of(EventLoop loop) {
        if (loop instanceof IoEventLoop) {
            IoEventLoop io = (IoEventLoop) loop;
            if (Epoll.isAvailable() && io.isCompatible(EpollIoHandle.class)) {
                return EPOLL;
            }
            if (IoUring.isAvailable() && io.isCompatible(IoUringIoHandle.class)) {
                return IO_URING;
            }
            return NIO;
        }
        throw new IllegalArgumentException("not an I/O event loop (epoll, io_uring or NIO): " + loop);
    }

    /** Linux's TCP_CLOSE_WAIT (the peer sent its FIN) and TCP_CLOSE (reset), as TCP_INFO gives them. */
    private static final int TCP_CLOSE_WAIT = 8;
    private static final int TCP_CLOSE = 7;

    /**
     * What a connection paused for its socket's inbound budget asks about its peer (see
     * {@link io.zmtp.wire.InboundBudget}), or null where the channel comes to the end of the
     * stream by itself, paused or not (epoll, NIO). Over io_uring a paused channel whose peer
     * closes does not always read on to the end (Netty 4.2.18), so this asks the kernel for the
     * TCP connection's state: CLOSE_WAIT or CLOSE means the peer is gone. Unix-domain channels
     * have no such state and are not asked.
     */
    public java.util.function.Predicate<Channel> peerClosedProbe() {
        if (this != IO_URING) {
            return null;
        }
        return ch -> {
            if (!(ch instanceof io.netty.channel.uring.IoUringSocketChannel tcp)) {
                return false;
            }
            try {
                int state = tcp.tcpInfo().state();
                return state == TCP_CLOSE_WAIT || state == TCP_CLOSE;
            } catch (io.netty.channel.ChannelException closed) {
                return true; // the descriptor is closed already
            }
        };
    }

    public IoHandlerFactory handlerFactory() {
        if (this == IO_URING) {
            return io.netty.channel.uring.IoUringIoHandler.newFactory();
        }
        return this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    /**
     * Handlers whose loops poll for {@code spin} before blocking: epoll and NIO through their
     * select strategy ({@link SpinThenBlockStrategy}), io_uring by a wrapper of its handler
     * ({@link SpinningIoHandler}).
     */
    public IoHandlerFactory handlerFactory(java.time.Duration spin) {
        if (this == IO_URING) {
            return SpinningIoHandler.factory(io.netty.channel.uring.IoUringIoHandler.newFactory(), spin);
        }
        io.netty.channel.SelectStrategyFactory strategy = SpinThenBlockStrategy.factory(spin);
        return this == EPOLL ? EpollIoHandler.newFactory(0, strategy)
                : NioIoHandler.newFactory(java.nio.channels.spi.SelectorProvider.provider(), strategy);
    }

    public Class<? extends SocketChannel> tcpChannel() {
        if (this == IO_URING) {
            return io.netty.channel.uring.IoUringSocketChannel.class;
        }
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** The channel of UDP sockets, on which {@link NameResolvers} asks name servers. */
    public Class<? extends DatagramChannel> udpChannel() {
        if (this == IO_URING) {
            return io.netty.channel.uring.IoUringDatagramChannel.class;
        }
        return this == EPOLL ? EpollDatagramChannel.class : NioDatagramChannel.class;
    }

    public Class<? extends ServerChannel> tcpServerChannel() {
        if (this == IO_URING) {
            return io.netty.channel.uring.IoUringServerSocketChannel.class;
        }
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    public Class<? extends Channel> ipcChannel() {
        if (this == IO_URING) {
            return io.netty.channel.uring.IoUringDomainSocketChannel.class;
        }
        return this == EPOLL ? EpollDomainSocketChannel.class : NioDomainSocketChannel.class;
    }

    /**
     * A new udp:// channel of this kind, for IPv4 or IPv6 addresses ({@code ipv6}): NIO needs the
     * family up front to join an IPv4 multicast group.
     */
    public io.netty.channel.socket.DatagramChannel newDatagramChannel(boolean ipv6) {
        io.netty.channel.socket.SocketProtocolFamily family = ipv6 ? io.netty.channel.socket.SocketProtocolFamily.INET6
                : io.netty.channel.socket.SocketProtocolFamily.INET;
        if (this == IO_URING) {
            return new io.netty.channel.uring.IoUringDatagramChannel(family);
        }
        return this == EPOLL ? new io.netty.channel.epoll.EpollDatagramChannel(family)
                : new io.netty.channel.socket.nio.NioDatagramChannel(family);
    }

    public Class<? extends ServerChannel> ipcServerChannel() {
        if (this == IO_URING) {
            return io.netty.channel.uring.IoUringServerDomainSocketChannel.class;
        }
        return this == EPOLL ? EpollServerDomainSocketChannel.class : NioServerDomainSocketChannel.class;
    }

    /**
     * Turns TCP keepalive on for a tcp:// channel, with the given timings (seconds, probes), or
     * leaves it off when {@code keepAlive} is null. Epoll and io_uring set TCP_KEEPIDLE, TCP_KEEPINTVL and
     * TCP_KEEPCNT; NIO sets them through the JDK's extended socket options where the platform has
     * them, else only SO_KEEPALIVE.
     */
    public void keepAlive(Channel ch, TcpKeepAlive keepAlive) {
        if (keepAlive == null) {
            return;
        }
        io.netty.channel.ChannelConfig c = ch.config();
        c.setOption(io.netty.channel.ChannelOption.SO_KEEPALIVE, true);
        int idle = (int) Math.min(Integer.MAX_VALUE, keepAlive.idle().getSeconds());
        int interval = (int) Math.min(Integer.MAX_VALUE, keepAlive.interval().getSeconds());
        if (this == EPOLL) {
            c.setOption(io.netty.channel.epoll.EpollChannelOption.TCP_KEEPIDLE, idle);
            c.setOption(io.netty.channel.epoll.EpollChannelOption.TCP_KEEPINTVL, interval);
            c.setOption(io.netty.channel.epoll.EpollChannelOption.TCP_KEEPCNT, keepAlive.count());
        } else if (this == IO_URING) {
            c.setOption(io.netty.channel.uring.IoUringChannelOption.TCP_KEEPIDLE, idle);
            c.setOption(io.netty.channel.uring.IoUringChannelOption.TCP_KEEPINTVL, interval);
            c.setOption(io.netty.channel.uring.IoUringChannelOption.TCP_KEEPCNT, keepAlive.count());
        } else {
            NioKeepAlive.apply(c, idle, interval, keepAlive.count());
        }
    }

    /**
     * Sets how long data sent on a tcp:// channel may stay unacknowledged before the system drops
     * the connection (ZMQ_TCP_MAXRT), or nothing when {@code timeout} is zero. Epoll and io_uring set
     * TCP_USER_TIMEOUT (Linux, milliseconds). NIO sets nothing: the JDK's socket options (17)
     * have no TCP_USER_TIMEOUT, so the system's default holds; the first such channel logs a
     * warning, once per JVM, so the setting is not silently without effect.
     */
    public void retransmitTimeout(Channel ch, java.time.Duration timeout) {
        if (timeout.isZero()) {
            return;
        }
        if (this == EPOLL) {
            ch.config().setOption(io.netty.channel.epoll.EpollChannelOption.TCP_USER_TIMEOUT,
                    (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        } else if (this == IO_URING) {
            ch.config().setOption(io.netty.channel.uring.IoUringChannelOption.TCP_USER_TIMEOUT,
                    (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        } else if (NioRetransmitTimeout.WARNED.compareAndSet(false, true)) {
            org.slf4j.LoggerFactory.getLogger(IoTransport.class).warn("tcpRetransmitTimeout (ZMQ_TCP_MAXRT) of {} ms"
                    + " is not set: the NIO transport has no TCP_USER_TIMEOUT; the system's default holds",
                    timeout.toMillis());
        }
    }

    /** Whether the NIO transport's warning about {@link #retransmitTimeout} was logged. */
    private static final class NioRetransmitTimeout {
        static final java.util.concurrent.atomic.AtomicBoolean WARNED = new java.util.concurrent.atomic.AtomicBoolean();
    }

    /**
     * Whether a listening socket's TCP settings reach the connections it accepts: Linux copies
     * SO_KEEPALIVE, TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT, SO_SNDBUF and SO_RCVBUF from the
     * listener to each accepted socket (not IP_TOS), so over epoll they are set once, at bind,
     * instead of with a system call each per connection. NIO cannot set them on a listener.
     */
    public boolean inheritsTcpSettings() {
        return this == EPOLL;
    }

    /**
     * Sets on a listening tcp:// socket what its accepted connections inherit (see
     * {@link #inheritsTcpSettings()}; nothing under NIO): keepalive with its timings, or none, and
     * SO_SNDBUF when {@code sendBuffer} is positive.
     */
    public void inheritedTcpSettings(ServerChannel server, TcpKeepAlive keepAlive, int sendBuffer) {
        if (!inheritsTcpSettings()) {
            return;
        }
        io.netty.channel.ChannelConfig c = server.config();
        if (keepAlive != null) {
            c.setOption(LISTENER_KEEPALIVE, 1);
            c.setOption(LISTENER_KEEPIDLE, (int) Math.min(Integer.MAX_VALUE, keepAlive.idle().getSeconds()));
            c.setOption(LISTENER_KEEPINTVL, (int) Math.min(Integer.MAX_VALUE, keepAlive.interval().getSeconds()));
            c.setOption(LISTENER_KEEPCNT, keepAlive.count());
        }
        if (sendBuffer > 0) {
            c.setOption(LISTENER_SNDBUF, sendBuffer);
        }
    }

    /**
     * Sets SO_REUSEPORT on a listening channel before its bind, so that more listeners on the
     * same port share its connections; true when set. Only on Linux, whose kernel spreads new
     * connections over such listeners (elsewhere the last one bound may take them all), and
     * where the transport can set it: false otherwise, and nothing is set.
     */
    public boolean reusePort(ServerChannel server) {
        if (!"linux".equals(io.netty.util.internal.PlatformDependent.normalizedOs())) {
            return false;
        }
        if (this == NIO) {
            io.netty.channel.ChannelOption<Boolean> o =
                    io.netty.channel.socket.nio.NioChannelOption.of(java.net.StandardSocketOptions.SO_REUSEPORT);
            return server.config().setOption(o, true);
        }
        return server.config().setOption(io.netty.channel.unix.UnixChannelOption.SO_REUSEPORT, true);
    }

    /**
     * The kernel's queue of a listening tcp:// socket: {connections waiting to be accepted, the
     * queue's bound}, from TCP_INFO, whose unacked and sacked fields Linux fills so for a
     * listener; null under NIO, which cannot ask, or when the socket cannot answer. One system
     * call; the socket's loop only.
     */
    public int[] listenQueue(ServerChannel server) {
        if (this == NIO) {
            return null;
        }
        try {
            java.nio.ByteBuffer info = server.config().getOption(LISTENER_TCP_INFO);
            if (info == null || info.remaining() < 32) {
                return null;
            }
            info.order(java.nio.ByteOrder.nativeOrder());
            return new int[] {info.getInt(info.position() + 24), info.getInt(info.position() + 28)};
        } catch (io.netty.channel.ChannelException e) {
            return null;
        }
    }

    private static final io.netty.channel.unix.RawUnixChannelOption LISTENER_TCP_INFO =
            new io.netty.channel.unix.RawUnixChannelOption("zmtp.listener.TCP_INFO", 6, 11, 32);

    // Linux's numbers (socket(7), tcp(7)): Netty's epoll server channel takes them only as raw options.
    private static final io.netty.channel.unix.IntegerUnixChannelOption LISTENER_KEEPALIVE =
            new io.netty.channel.unix.IntegerUnixChannelOption("zmtp.listener.SO_KEEPALIVE", 1, 9);
    private static final io.netty.channel.unix.IntegerUnixChannelOption LISTENER_SNDBUF =
            new io.netty.channel.unix.IntegerUnixChannelOption("zmtp.listener.SO_SNDBUF", 1, 7);
    private static final io.netty.channel.unix.IntegerUnixChannelOption LISTENER_KEEPIDLE =
            new io.netty.channel.unix.IntegerUnixChannelOption("zmtp.listener.TCP_KEEPIDLE", 6, 4);
    private static final io.netty.channel.unix.IntegerUnixChannelOption LISTENER_KEEPINTVL =
            new io.netty.channel.unix.IntegerUnixChannelOption("zmtp.listener.TCP_KEEPINTVL", 6, 5);
    private static final io.netty.channel.unix.IntegerUnixChannelOption LISTENER_KEEPCNT =
            new io.netty.channel.unix.IntegerUnixChannelOption("zmtp.listener.TCP_KEEPCNT", 6, 6);

    /** The JDK's TCP_KEEP* options (jdk.net), set only where the platform supports them. */
    private static final class NioKeepAlive {
        static void apply(io.netty.channel.ChannelConfig c, int idle, int interval, int count) {
            try {
                c.setOption(io.netty.channel.socket.nio.NioChannelOption.of(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE), idle);
                c.setOption(io.netty.channel.socket.nio.NioChannelOption.of(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL), interval);
                c.setOption(io.netty.channel.socket.nio.NioChannelOption.of(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT), count);
            } catch (RuntimeException | LinkageError e) {
                // Not supported here: SO_KEEPALIVE with the system's timings.
            }
        }
    }

    /** The socket address of an ipc:// path. */
    public SocketAddress ipcAddress(String path) {
        return this != NIO ? new DomainSocketAddress(path) : UnixDomainSocketAddress.of(path);
    }
}
