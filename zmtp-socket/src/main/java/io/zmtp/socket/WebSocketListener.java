package io.zmtp.socket;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.zmtp.transport.Endpoint;
import io.zmtp.transport.TlsPeerIdentity;
import io.zmtp.transport.TlsSettings;
import io.zmtp.transport.WebSocketTransport;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.PeerFailureLog;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One listening tcp port of ws:// or wss:// endpoints, shared by every endpoint bound on that
 * address from one event loop: several paths on one port (ws://host:port/a and /b), of one socket
 * or of several sockets made on the same loop. An accepted connection reads its HTTP upgrade
 * request, is routed by the request's path to the endpoint bound there (a path bound nowhere is
 * answered 404 and closed; a connection that sends no request within the first binder's
 * handshake timeout is closed; at most the first binder's {@code maxConnections} may be waiting
 * so at once, later ones are closed on accept), and from then on belongs to that endpoint's
 * socket, counted against its limits.
 *
 * <p>Sockets on other event loops cannot share the port (a connection stays on the loop that
 * accepted it, and a socket's connections run on its loop): their bind fails, as a second bind
 * of a tcp port does. On wss:// the port's TLS settings are the first binder's. Event loop only.
 */
final class WebSocketListener {
    private static final PeerFailureLog log = PeerFailureLog.get(WebSocketListener.class);
    /**
     * Connections the port's listener accepts per read, each given its HTTP decoder at once (a
     * cheap set-up, so no {@link AcceptQueue}): Netty's default for NIO, where its epoll listener
     * would take one per wake-up.
     */
    static final int ACCEPTS_PER_READ = 16;

    private record Key(EventLoop loop, InetSocketAddress address, boolean secure) {
    }

    /** Listeners by loop and requested address (an ephemeral port is never shared). */
    private static final Map<Key, WebSocketListener> LISTENERS = new ConcurrentHashMap<>();

    private final Key key;
    /** The key this listener is found under: the requested address, or the resolved one for port 0. */
    private Key registeredKey;
    private final Map<String, Path> paths = new HashMap<>();
    private final Duration requestTimeout;
    private final TlsSettings tls;
    /** Connections that have not named a path yet, at most {@link #maxUnrouted} (the first binder's maxHandshakes). */
    private int unrouted;
    private final int maxUnrouted;
    private Channel server;
    private Promise<InetSocketAddress> bound;

    private WebSocketListener(Key key, Duration requestTimeout, TlsSettings tls, int maxUnrouted) {
        this.key = key;
        this.requestTimeout = requestTimeout;
        this.tls = tls;
        this.maxUnrouted = maxUnrouted;
    }

    /**
     * A bound ws:// or wss:// endpoint, as its listener hands it the connections whose upgrade
     * request named its path.
     */
    interface Path {
        /** Takes {@code ch} (the upgrade request follows), or closes it at a bound: then false. */
        boolean webSocketAccepted(Channel ch);

        /** The listener now serves this path. */
        void listening(WebSocketListener listener);
    }

    /**
     * Binds {@code endpoint}'s path for {@code b}: on a listener of this loop and {@code address}
     * (the endpoint's host, looked up), or a new one.
     */
    static Future<InetSocketAddress> bind(SocketCore socket, Endpoint endpoint, InetSocketAddress address, Path b) {
        boolean secure = endpoint.transport() == Endpoint.Transport.WSS;
        Key key = new Key(socket.loop(), address, secure);
        WebSocketListener l = address.getPort() == 0 ? null : LISTENERS.get(key);
        if (l == null) {
            if (secure && (socket.options().tls() == null || socket.options().tls().serverContext() == null)) {
                Promise<InetSocketAddress> p = socket.loop().newPromise();
                p.setFailure(new IllegalStateException(
                        "binding " + endpoint + " needs SocketOptions.tls with a server context"));
                return p;
            }
            l = new WebSocketListener(key, socket.options().handshakeTimeout(), socket.options().tls(),
                    socket.options().maxHandshakes());
            l.start(socket);
            if (address.getPort() != 0) {
                l.registeredKey = key;
                LISTENERS.put(key, l);
            }
        }
        WebSocketListener listener = l;
        Promise<InetSocketAddress> result = socket.loop().newPromise();
        listener.bound.addListener(f -> {
            if (!f.isSuccess()) {
                result.tryFailure(f.cause());
                return;
            }
            if (listener.paths.containsKey(endpoint.path())) {
                result.tryFailure(new IllegalStateException("path " + endpoint.path() + " is already bound on "
                        + listener.server.localAddress()));
                return;
            }
            listener.paths.put(endpoint.path(), b);
            b.listening(listener);
            result.trySuccess((InetSocketAddress) f.getNow());
        });
        return result;
    }

    private void start(SocketCore socket) {
        bound = socket.loop().newPromise();
        ServerBootstrap sb = new ServerBootstrap().group(socket.loop(), socket.loop())
                .channel(socket.transport().tcpServerChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.RCVBUF_ALLOCATOR, AcceptQueue.readingUpTo(ACCEPTS_PER_READ))
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        accepted(ch);
                    }
                });
        sb.bind(key.address).addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                LISTENERS.remove(key, this);
                bound.tryFailure(f.cause());
                return;
            }
            server = f.channel();
            if (registeredKey == null) {
                // An ephemeral port: later binds name the port the system chose.
                InetSocketAddress actual = (InetSocketAddress) server.localAddress();
                registeredKey = new Key(key.loop, key.address.isUnresolved() || key.address.getAddress().isAnyLocalAddress()
                        ? new InetSocketAddress(actual.getPort())
                        : new InetSocketAddress(key.address.getAddress(), actual.getPort()), key.secure);
                LISTENERS.putIfAbsent(registeredKey, this);
            }
            bound.trySuccess((InetSocketAddress) server.localAddress());
        });
    }

    private void accepted(Channel ch) {
        if (unrouted >= maxUnrouted) {
            ch.config().setOption(ChannelOption.SO_LINGER, 0);
            ch.close();
            log.warn("{} refused a connection from {}: {} connections have not sent their upgrade request yet",
                    server, ch.remoteAddress(), unrouted);
            return;
        }
        if (tls != null && key.secure) {
            ch.pipeline().addLast(tls.newServerHandler(ch.alloc(), requestTimeout), new TlsPeerIdentity());
        }
        ch.pipeline().addLast(new HttpServerCodec(4096, WebSocketTransport.MAX_HTTP_MESSAGE, WebSocketTransport.MAX_HTTP_MESSAGE),
                new HttpObjectAggregator(WebSocketTransport.MAX_HTTP_MESSAGE), new Router());
    }

    /** Routes the first request by its path, then leaves the pipeline. */
    private final class Router extends ChannelInboundHandlerAdapter {
        private io.netty.util.concurrent.ScheduledFuture<?> timer;

        private boolean counted;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            counted = true;
            unrouted++;
            timer = ctx.executor().schedule(() -> {
                if (ctx.channel().isOpen() && ctx.pipeline().context(this) != null) {
                    log.debug("{} sent no WebSocket upgrade request within {} ms, closing", ctx.channel(),
                            requestTimeout.toMillis());
                    ctx.close();
                }
            }, requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            if (counted) {
                counted = false;
                unrouted--;
            }
            if (timer != null) {
                timer.cancel(false);
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof FullHttpRequest)) {
                io.netty.util.ReferenceCountUtil.release(msg);
                ctx.close();
                return;
            }
            FullHttpRequest req = (FullHttpRequest) msg;
            String path = new QueryStringDecoder(req.uri()).path();
            Path b = paths.get(path);
            if (b == null || !req.decoderResult().isSuccess()) {
                HttpResponseStatus status = req.decoderResult().isSuccess() ? HttpResponseStatus.NOT_FOUND
                        : HttpResponseStatus.BAD_REQUEST;
                log.debug("{} WebSocket request for {}: {}", ctx.channel(), FrameText.escape(path), status);
                req.release();
                DefaultFullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                        Unpooled.EMPTY_BUFFER);
                res.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
                res.headers().set(HttpHeaderNames.CONNECTION, "close");
                ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            ChannelHandlerContext self = ctx;
            if (!b.webSocketAccepted(ctx.channel())) {
                req.release();
                return;
            }
            self.fireChannelRead(req);
            if (ctx.pipeline().context(this) != null) {
                ctx.pipeline().remove(this);
            }
        }
    }

    /** Unbinds {@code path}; the port is closed with its last path. The future completes when done. */
    Future<?> remove(String path, Path b, EventLoop loop) {
        if (paths.get(path) == b) {
            paths.remove(path);
        }
        if (paths.isEmpty() && server != null) {
            if (registeredKey != null) {
                LISTENERS.remove(registeredKey, this);
            }
            return server.close();
        }
        Promise<Void> p = loop.newPromise();
        p.setSuccess(null);
        return p;
    }

    Channel serverChannel() {
        return server;
    }
}
