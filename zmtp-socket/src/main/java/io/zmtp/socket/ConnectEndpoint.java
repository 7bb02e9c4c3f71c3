package io.zmtp.socket;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import io.zmtp.transport.Endpoint;
import io.zmtp.transport.IoTransport;
import io.zmtp.transport.NameResolvers;
import io.zmtp.transport.TlsPeerIdentity;
import io.zmtp.transport.WebSocketTransport;
import io.zmtp.wire.PeerAddressText;
import io.zmtp.wire.ZmtpOptions;
import io.zmtp.wire.ConnectionFailed;

import java.net.InetAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A connected tcp:// or ipc:// endpoint: keeps one connection to it, and reconnects after every
 * failure or disconnect with exponential backoff (the reconnect interval, doubling up to its
 * maximum; reset once a handshake succeeds). Each attempt over tcp looks the host up without
 * blocking the loop ({@link NameResolvers}: a cached answer until its TTL ends) and takes the next
 * of its addresses, so a dead address costs one attempt; a failed lookup is a failed attempt, and
 * a failed connect to a looked-up address makes the next attempt ask the name servers again, so
 * a name that moved is followed. A peer that sends ZMTP ERROR (refused credentials,
 * incompatible socket type) is not reconnected to: ERROR is fatal for these settings. The user
 * may add a refused connect and a failed handshake to what stops it
 * ({@link SocketOptions#reconnectStop()}, ZMQ_RECONNECT_STOP).
 */
final class ConnectEndpoint implements PeerHandler.Origin {
    private final SocketCore socket;
    private final TypeHooks hooks;
    private final Endpoint endpoint;
    private Duration nextDelay;
    private Channel channel;
    private ScheduledFuture<?> timer;
    private boolean stopped;
    private boolean suppressed;
    /** ROUTER: the routing id the peer of this endpoint gets (ZMQ_CONNECT_ROUTING_ID), or null. */
    private byte[] routingId;
    /** The context's host name lookups. */
    private final NameResolvers names;
    /** Which address of the host's answer the next attempt takes: each attempt the next, in turn. */
    private int nextAddress;
    /** The lookup an attempt waits for, or null. */
    private Future<List<InetAddress>> lookup;

    ConnectEndpoint(SocketCore socket, TypeHooks hooks, Endpoint endpoint, byte[] routingId, NameResolvers names) {
        this.socket = socket;
        this.hooks = hooks;
        this.endpoint = endpoint;
        this.names = names;
        this.nextDelay = socket.options().reconnectInterval();
        this.routingId = routingId;
    }

    /** The routing id given to this connect, or null when the peer's own identity applies. */
    @Override
    public byte[] routingId() {
        return routingId;
    }

    void start() {
        attempt();
    }

    /**
     * One attempt: over tcp, the host looked up (on the loop, without blocking it; a cached
     * answer at once) and the next of its addresses connected to; over ipc, the path.
     */
    private void attempt() {
        timer = null;
        if (stopped) {
            return;
        }
        if (endpoint.transport().secure()
                && (socket.options().tls() == null || socket.options().tls().clientContext() == null)) {
            failedAttempt("connecting to " + endpoint + " needs SocketOptions.tls with a client context", null);
            return;
        }
        if (!endpoint.transport().overTcp()) {
            connect(socket.transport().ipcAddress(endpoint.address()), false);
            return;
        }
        Future<List<InetAddress>> answer = names.lookUp(socket.loop(), endpoint.host());
        if (answer.isDone()) {
            looked(answer);
        } else {
            lookup = answer;
            answer.addListener(f -> {
                if (lookup == answer) {
                    lookup = null;
                    looked(answer);
                }
            });
        }
    }

    /** The lookup is done: connect to the next of its addresses, or count a failed attempt. */
    private void looked(Future<List<InetAddress>> answer) {
        if (stopped) {
            return;
        }
        if (!answer.isSuccess()) {
            failedAttempt(answer.cause().getMessage(), null);
            return;
        }
        List<InetAddress> addresses = answer.getNow();
        InetAddress next = addresses.get(Math.floorMod(nextAddress, addresses.size()));
        nextAddress++;
        connect(endpoint.connectAddress(next), NameResolvers.needsLookup(endpoint.host()));
    }

    /** Connects to {@code address}; {@code lookedUp}: it came from a name server, to forget on failure. */
    private void connect(SocketAddress address, boolean lookedUp) {
        IoTransport io = socket.transport();
        Bootstrap b = new Bootstrap().group(socket.loop())
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) socket.options().connectTimeout().toMillis())
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        SocketOptions o = socket.options();
                        if (endpoint.transport().overTcp()) {
                            io.keepAlive(ch, o.tcpKeepAlive());
                            TcpSocketOptions.apply(ch, o, io);
                        }
                        ZmtpOptions zo = socket.zmtpOptions();
                        if (endpoint.transport().secure()) {
                            ch.pipeline().addLast(o.tls().newClientHandler(ch.alloc(), endpoint.host(),
                                    endpoint.port(), o.handshakeTimeout()), new TlsPeerIdentity());
                        }
                        if (endpoint.transport().webSocket()) {
                            WebSocketTransport.addClientHandlers(ch.pipeline(),
                                    java.net.URI.create((endpoint.transport() == Endpoint.Transport.WSS ? "wss://" : "ws://")
                                            + endpoint.address()), zo);
                        }
                        hooks.initConnection(ch, false, endpoint.toString(), ConnectEndpoint.this);
                    }
                });
        if (endpoint.transport().overTcp()) {
            b.channel(io.tcpChannel()).option(ChannelOption.TCP_NODELAY, true);
        } else {
            b.channel(io.ipcChannel());
        }
        ChannelFuture f = b.connect(address);
        channel = f.channel();
        socket.channelOpened(channel);
        f.addListener((ChannelFuture cf) -> {
            if (!cf.isSuccess()) {
                channel = null;
                if (lookedUp && names.forgetAfterFailedConnect()) {
                    // refused, timed out or unreachable: the name may point elsewhere now
                    names.forget(endpoint.host());
                }
                if (refused(cf.cause()) && socket.options().reconnectStop().contains(ReconnectStop.CONNECTION_REFUSED)) {
                    socket.monitor().event(SocketEvent.Type.CONNECT_FAILED, endpoint.toString(), String.valueOf(address),
                            cf.cause().getMessage(), null);
                    stopReconnecting("connection refused (ReconnectStop.CONNECTION_REFUSED)");
                    return;
                }
                failedAttempt(cf.cause().getMessage(), address);
                return;
            }
            socket.monitor().event(SocketEvent.Type.CONNECTED, endpoint.toString(), String.valueOf(PeerAddressText.of(cf.channel())),
                    null, null);
            cf.channel().closeFuture().addListener(c -> closed(cf.channel()));
        });
    }

    /** A failed attempt: the event (with the address tried, when one was) and the next attempt's delay. */
    private void failedAttempt(String reason, SocketAddress tried) {
        if (stopped) {
            return;
        }
        socket.monitor().event(SocketEvent.Type.CONNECT_FAILED, endpoint.toString(),
                tried == null ? null : String.valueOf(tried), reason, null);
        scheduleReconnect();
    }

    private void closed(Channel ch) {
        if (channel == ch) {
            channel = null;
        }
        if (!stopped && !suppressed && !socket.isClosing()) {
            scheduleReconnect();
        }
    }

    private void scheduleReconnect() {
        if (timer != null || stopped) {
            return;
        }
        Duration d = nextDelay;
        Duration doubled = d.multipliedBy(2);
        Duration max = socket.options().reconnectIntervalMax();
        nextDelay = doubled.compareTo(max) > 0 ? max : doubled;
        socket.monitor().event(SocketEvent.Type.RECONNECT_SCHEDULED, endpoint.toString(), null, null, d);
        timer = socket.loop().schedule(this::attempt, d.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The handshake succeeded: the next disconnect reconnects after the initial interval. */
    @Override
    public void handshakeSucceeded(Channel ch) {
        nextDelay = socket.options().reconnectInterval();
    }

    /** The codec is closing the connection for a reason of its own. */
    @Override
    public void connectionFailed(Channel ch, ConnectionFailed f) {
        if (f.suppressesReconnect()) {
            stopReconnecting(f.reason());
        } else if (f.beforeHandshake() && socket.options().reconnectStop().contains(ReconnectStop.HANDSHAKE_FAILED)) {
            stopReconnecting("handshake failed (ReconnectStop.HANDSHAKE_FAILED): " + f.reason());
        }
    }

    /** No more attempts for this endpoint: the current connection, if any, closes without a reconnect. */
    private void stopReconnecting(String reason) {
        if (suppressed) {
            return;
        }
        suppressed = true;
        socket.monitor().event(SocketEvent.Type.RECONNECT_STOPPED, endpoint.toString(), null, reason, null);
    }

    /**
     * Nothing listened at the address (ECONNREFUSED). A timeout or a missing route is not a
     * refusal; Netty's epoll reports every connect errno as a ConnectException, so the system's
     * words tell them apart.
     */
    private static boolean refused(Throwable cause) {
        return cause instanceof java.net.ConnectException && !(cause instanceof io.netty.channel.ConnectTimeoutException)
                && String.valueOf(cause.getMessage()).toLowerCase(java.util.Locale.ROOT).contains("refused");
    }

    /** Stops reconnecting; with {@code closeChannel}, closes the current connection too. */
    void stop(boolean closeChannel) {
        stopped = true;
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        if (lookup != null) {
            lookup.cancel(false);
            lookup = null;
        }
        if (closeChannel && channel != null) {
            channel.close();
        }
    }
}
