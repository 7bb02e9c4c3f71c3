package io.zmtp.socket;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.socket.DatagramChannel;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.zmtp.transport.DatagramCodec;
import io.zmtp.transport.Endpoint;
import io.zmtp.transport.NameResolvers;
import io.zmtp.wire.SocketType;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.List;

/**
 * One udp:// endpoint of a RADIO or DISH (zmq_udp(7)): a datagram channel on the socket's loop
 * with a {@link DatagramCodec} and a {@link PeerHandler}, so it is one peer of the socket. A DISH
 * binds: a unicast address, {@code *}, or a multicast group, which it then joins on the given
 * interface (or the first multicast interface that is up). A RADIO connects: the host is looked
 * up then, without blocking the loop, by the same {@link NameResolvers} as tcp:// connects (the
 * first address of the answer, IPv4 first), and every message goes to it as one datagram from an
 * ephemeral port. There is no connection, so nothing reconnects or looks the name up again.
 */
final class DatagramEndpoint {
    private final SocketCore socket;
    private final Endpoint endpoint;
    private final NameResolvers names;
    private Channel channel;

    DatagramEndpoint(SocketCore socket, Endpoint endpoint, NameResolvers names) {
        this.socket = socket;
        this.endpoint = endpoint;
        this.names = names;
    }

    /** Why {@code type} may not {@code bind} (else connect) a udp:// endpoint, or null when it may. */
    static String refusal(SocketType type, boolean bind) {
        if (type != SocketType.RADIO && type != SocketType.DISH) {
            return "udp:// is for RADIO and DISH sockets only, not " + type;
        }
        if (bind && type == SocketType.RADIO) {
            return "a RADIO connects to udp:// endpoints; a DISH binds them";
        }
        if (!bind && type == SocketType.DISH) {
            return "a DISH binds udp:// endpoints; a RADIO connects to them";
        }
        return null;
    }

    /**
     * DISH: binds (and joins the multicast group); the future gives the endpoint as bound. A host
     * that is a name is looked up first, without blocking the loop, as a tcp:// bind's is.
     */
    Future<String> bind() {
        Promise<String> p = socket.loop().newPromise();
        if (endpoint.isWildcardHost()) {
            bind(p, null);
            return p;
        }
        names.lookUp(socket.loop(), endpoint.host(), answer -> lookedForBind(answer, p));
        return p;
    }

    /** The host's lookup is done: bind its first address, or fail the bind. */
    private void lookedForBind(Future<List<InetAddress>> answer, Promise<String> p) {
        if (socket.isClosing()) {
            p.tryFailure(new SocketClosedException("socket is closed")); // nothing may listen after the close
        } else if (!answer.isSuccess()) {
            failed(p, SocketEvent.Type.BIND_FAILED, new IllegalArgumentException(answer.cause().getMessage(),
                    answer.cause()));
        } else {
            bind(p, answer.getNow().get(0));
        }
    }

    /**
     * Binds {@code group} (a unicast address, or a multicast group to join on the endpoint's
     * interface, found first: {@link #multicastInterface}), or every interface (null).
     */
    private void bind(Promise<String> p, InetAddress group) {
        if (group == null || !group.isMulticastAddress()) {
            bind(p, group, null);
            return;
        }
        multicastInterface(endpoint.udpInterface()).addListener((Future<NetworkInterface> f) -> {
            if (socket.isClosing()) {
                p.tryFailure(new SocketClosedException("socket is closed")); // nothing may listen after the close
            } else if (!f.isSuccess()) {
                failed(p, SocketEvent.Type.BIND_FAILED, f.cause());
            } else {
                bind(p, group, f.getNow());
            }
        });
    }

    /** Binds {@code group}, joining it on {@code iface} when that is given (a multicast group). */
    private void bind(Promise<String> p, InetAddress group, NetworkInterface iface) {
        boolean multicast = iface != null;
        InetSocketAddress local = group == null || multicast ? new InetSocketAddress(endpoint.port())
                : new InetSocketAddress(group, endpoint.port());
        ChannelFuture f = bootstrap(group instanceof Inet6Address, SocketType.RADIO, null)
                .option(ChannelOption.SO_REUSEADDR, multicast)
                .bind(local);
        track(f.channel());
        f.addListener((ChannelFuture bound) -> {
            if (!bound.isSuccess()) {
                failed(p, SocketEvent.Type.BIND_FAILED, bound.cause());
                return;
            }
            int port = ((InetSocketAddress) bound.channel().localAddress()).getPort();
            String resolved = endpoint.withPort(port).toString();
            if (!multicast) {
                listening(p, resolved);
                return;
            }
            ((DatagramChannel) bound.channel()).joinGroup(new InetSocketAddress(group, port), iface)
                    .addListener(joined -> {
                        if (joined.isSuccess()) {
                            listening(p, resolved);
                        } else {
                            bound.channel().close();
                            failed(p, SocketEvent.Type.BIND_FAILED, joined.cause());
                        }
                    });
        });
    }

    private void listening(Promise<String> p, String resolved) {
        socket.monitor().event(SocketEvent.Type.LISTENING, resolved, null, null, null);
        p.trySuccess(resolved);
    }

    /** RADIO: looks the host up now and opens the channel its datagrams leave from. */
    Future<String> connect() {
        Promise<String> p = socket.loop().newPromise();
        if (endpoint.isWildcardHost()) {
            return failed(p, SocketEvent.Type.CONNECT_FAILED,
                    new IllegalArgumentException("cannot connect to a wildcard host: " + endpoint));
        }
        names.lookUp(socket.loop(), endpoint.host(), answer -> looked(answer, p));
        return p;
    }

    /**
     * The lookup is done: open the channel to its first address (for a multicast group with an
     * interface named, once the interface is found: {@link #multicastInterface}), or fail the
     * connect.
     */
    private void looked(Future<List<InetAddress>> answer, Promise<String> p) {
        if (!answer.isSuccess()) {
            failed(p, SocketEvent.Type.CONNECT_FAILED, new IllegalArgumentException(answer.cause().getMessage(),
                    answer.cause()));
            return;
        }
        InetSocketAddress target = new InetSocketAddress(answer.getNow().get(0), endpoint.port());
        if (endpoint.udpInterface() == null || !target.getAddress().isMulticastAddress()) {
            open(p, target, null);
            return;
        }
        multicastInterface(endpoint.udpInterface()).addListener((Future<NetworkInterface> f) -> {
            if (!f.isSuccess()) {
                failed(p, SocketEvent.Type.CONNECT_FAILED, f.cause());
            } else {
                open(p, target, f.getNow());
            }
        });
    }

    /** Opens the channel the datagrams to {@code target} leave from, by {@code iface} if given. */
    private void open(Promise<String> p, InetSocketAddress target, NetworkInterface iface) {
        if (socket.isClosing()) {
            p.tryFailure(new SocketClosedException("socket is closed"));
            return;
        }
        Bootstrap b = bootstrap(target.getAddress() instanceof Inet6Address, SocketType.DISH, target);
        if (iface != null) {
            b.option(ChannelOption.IP_MULTICAST_IF, iface);
        }
        ChannelFuture f = b.bind(new InetSocketAddress(0));
        track(f.channel());
        f.addListener((ChannelFuture bound) -> {
            if (!bound.isSuccess()) {
                failed(p, SocketEvent.Type.CONNECT_FAILED, bound.cause());
                return;
            }
            socket.monitor().event(SocketEvent.Type.CONNECTED, endpoint.toString(), target.toString(), null, null);
            p.trySuccess(endpoint.toString());
        });
    }

    private Bootstrap bootstrap(boolean ipv6, SocketType peerType, InetSocketAddress target) {
        return new Bootstrap().group(socket.loop())
                .channelFactory(() -> socket.transport().newDatagramChannel(ipv6))
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                // one byte more than the largest datagram: a larger one shows as too large, not cut short
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(DatagramCodec.MAX_DATAGRAM + 1))
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new DatagramCodec(peerType, target, socket.counters()::datagramDrop),
                                new PeerHandler(socket, endpoint.toString(), null));
                    }
                });
    }

    private void track(Channel ch) {
        channel = ch;
        socket.channelOpened(ch);
    }

    private <V> Future<V> failed(Promise<V> p, SocketEvent.Type type, Throwable cause) {
        String reason = cause instanceof UnknownHostException ? "cannot resolve " + cause.getMessage() : cause.getMessage();
        socket.monitor().event(type, endpoint.toString(), null, reason, null);
        p.tryFailure(cause instanceof UnknownHostException ? new IllegalArgumentException(reason, cause) : cause);
        return p;
    }

    /**
     * The interface a multicast group is joined or sent to by, on the loop: the one named before
     * the semicolon of the udp:// endpoint, or, with none named ({@code null}), the first that is
     * up and does multicast, preferring one that is not the loopback. A name is first taken as an
     * interface's name ({@code eth0}); else it is an address or a host name, looked up by the
     * context's {@link NameResolvers} (an IP literal at once, without DNS; a host name by the
     * name servers, without blocking the loop), and the interface is the one holding an address
     * of the answer. The future fails with an IllegalArgumentException saying why.
     *
     * <p>The interfaces themselves are read from the kernel on the loop ({@link NetworkInterface}:
     * on Linux the JDK asks by ioctl and reads {@code /proc/net/if_inet6}; the local kernel
     * answers, never the network). It cannot wait on a remote server as a DNS lookup can, so it
     * stays on the loop, at the cost of a few system calls per bind or connect of a multicast
     * endpoint.
     */
    Future<NetworkInterface> multicastInterface(String name) {
        if (name == null) {
            try {
                return socket.loop().newSucceededFuture(firstMulticastInterface());
            } catch (IOException | IllegalArgumentException e) {
                return socket.loop().newFailedFuture(e);
            }
        }
        try {
            NetworkInterface byName = NetworkInterface.getByName(name); // the kernel's list, no DNS
            if (byName != null) {
                return socket.loop().newSucceededFuture(byName);
            }
        } catch (SocketException e) {
            return socket.loop().newFailedFuture(e);
        }
        Promise<NetworkInterface> found = socket.loop().newPromise();
        names.lookUp(socket.loop(), name, answer -> {
            if (!answer.isSuccess()) {
                found.tryFailure(new IllegalArgumentException("no network interface " + name + ": "
                        + answer.cause().getMessage(), answer.cause()));
                return;
            }
            try {
                for (InetAddress a : answer.getNow()) {
                    NetworkInterface ni = NetworkInterface.getByInetAddress(a); // the kernel's list, no DNS
                    if (ni != null) {
                        found.trySuccess(ni);
                        return;
                    }
                }
                found.tryFailure(new IllegalArgumentException("no network interface " + name + " (no interface has "
                        + answer.getNow() + ")"));
            } catch (SocketException e) {
                found.tryFailure(e);
            }
        });
        return found;
    }

    /** The first interface that is up and does multicast, one that is not the loopback if there is one. */
    private static NetworkInterface firstMulticastInterface() throws SocketException {
        NetworkInterface fallback = null;
        for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (ni.isUp() && ni.supportsMulticast()) {
                if (!ni.isLoopback()) {
                    return ni;
                }
                fallback = fallback == null ? ni : fallback;
            }
        }
        if (fallback == null) {
            throw new IllegalArgumentException("no network interface that is up supports multicast");
        }
        return fallback;
    }

    /** Closes the channel; the socket's peer goes with it. */
    Future<Void> close() {
        Channel ch = channel;
        channel = null;
        return ch == null ? socket.loop().newSucceededFuture(null) : ch.close();
    }
}
