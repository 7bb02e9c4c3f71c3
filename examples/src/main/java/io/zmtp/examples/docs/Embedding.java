package io.zmtp.examples.docs;

// tag::imports[]
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.transport.WebSocketTransport;
import io.zmtp.wire.HandshakeCompleted;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpCodec;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpOptions;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

// in scope: ZmtpContext ctx
// end::imports[]

/** docs/NETTY.md: ZMTP in pipelines of your own (the runnable examples with tests are in io.zmtp.examples.netty). */
public final class Embedding {
    public static void main(String[] args) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            ownPipeline(ctx);
            noSocket(ctx);
            onePort(ctx);
            webSocket(ctx);
        }
        sharedLoops();
    }

    static void ownPipeline(ZmtpContext ctx) throws Exception {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER);
        Channel server = serveWithOwnHandlers(ctx, router);
        router.onMessage(router::send);
        check(List.of("ping"), ask(ctx, "tcp://127.0.0.1:" + port(server)));
        check(ByteCounter.total.get() > 0, "bytes counted");
        server.close().sync();
        router.close();
    }

    // tag::own-pipeline[]
    /** Counts the bytes that arrive, before the codec. */
    static final class ByteCounter extends ChannelInboundHandlerAdapter {
        static final AtomicLong total = new AtomicLong();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            total.addAndGet(((ByteBuf) msg).readableBytes());
            ctx.fireChannelRead(msg);
        }
    }

    /** Notes each peer's handshake, after the codec. */
    static final class HandshakeAuditor extends ChannelInboundHandlerAdapter {
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof HandshakeCompleted h) {
                System.out.println("peer " + h.peerSocketType() + " from " + ctx.channel().remoteAddress());
            }
            ctx.fireUserEventTriggered(evt);
        }
    }

    static Channel serveWithOwnHandlers(ZmtpContext ctx, ZmtpSocket router) throws InterruptedException {
        return new ServerBootstrap()
                .group(router.eventLoop(), router.eventLoop())      // the socket's loop
                .channel(ctx.transport().tcpServerChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast("count", new ByteCounter());          // sees raw bytes
                        ch.pipeline().addLast("zmtp", new ZmtpCodec(router.zmtpOptions()));
                        ch.pipeline().addLast("audit", new HandshakeAuditor());     // sees HandshakeCompleted, messages
                        ch.pipeline().addLast("socket", router.newPeerHandler());
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }
    // end::own-pipeline[]

    static void noSocket(ZmtpContext ctx) throws Exception {
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            codecAlone(ch, body -> got.add(new String(body, StandardCharsets.UTF_8)));
                        }
                    }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            try (BlockingSocket push = ctx.blocking(SocketType.PUSH)) {
                push.connect("tcp://127.0.0.1:" + port(server));
                push.send("pushed");
                check("pushed".equals(got.poll(5, TimeUnit.SECONDS)), "the codec alone received");
            } finally {
                server.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    // tag::no-socket[]
    static void codecAlone(Channel ch, Consumer<byte[]> handle) {
        ZmtpOptions options = ZmtpOptions.builder(SocketType.PULL).build();   // what we announce
        ch.pipeline().addLast(new ZmtpCodec(options), new SimpleChannelInboundHandler<ZmtpMessage>() {
            @Override
            protected void channelRead0(ChannelHandlerContext ctx, ZmtpMessage m) {
                handle.accept(m.frameBytes(0));     // released by SimpleChannelInboundHandler afterwards
            }
        });
    }
    // end::no-socket[]

    static void onePort(ZmtpContext ctx) throws Exception {
        ZmtpSocket socket = ctx.socket(SocketType.ROUTER);
        socket.onMessage(socket::send);
        Channel server = new ServerBootstrap().group(socket.eventLoop(), socket.eventLoop())
                .channel(ctx.transport().tcpServerChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new Detector(socket));
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        check(List.of("ping"), ask(ctx, "tcp://127.0.0.1:" + port(server)));
        try (Socket http = new Socket("127.0.0.1", port(server))) {
            http.setSoTimeout(5000);
            OutputStream out = http.getOutputStream();
            out.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = http.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            check(response.startsWith("HTTP/1.1 200 OK") && response.endsWith("hello over HTTP"), response);
        }
        server.close().sync();
        socket.close();
    }

    // tag::one-port[]
    /** The first byte decides: 0xFF starts a ZMTP greeting, and no HTTP request. */
    static final class Detector extends ByteToMessageDecoder {
        private final ZmtpSocket socket;

        Detector(ZmtpSocket socket) {
            this.socket = socket;
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            if (!in.isReadable()) {
                return;
            }
            if (in.getUnsignedByte(in.readerIndex()) == 0xFF) {
                ctx.pipeline().addAfter(ctx.name(), "zmtp", new ZmtpCodec(socket.zmtpOptions()));
                ctx.pipeline().addAfter("zmtp", "socket", socket.newPeerHandler());
            } else {
                ctx.pipeline().addAfter(ctx.name(), "http", new HttpServerCodec());
                ctx.pipeline().addAfter("http", "aggregate", new HttpObjectAggregator(8192));
                ctx.pipeline().addAfter("aggregate", "page", new Page());
            }
            ctx.pipeline().remove(this);     // hands what it read to the next handler
        }
    }

    static final class Page extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            byte[] body = "hello over HTTP".getBytes(StandardCharsets.UTF_8);
            DefaultFullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(body));
            res.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
            res.headers().set(HttpHeaderNames.CONNECTION, "close");
            ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
        }
    }
    // end::one-port[]

    // tag::ws-client[]
    // client: after an optional SslHandler
    static void webSocketClient(Channel ch, String hostAndPort, ZmtpSocket socket) {
        WebSocketTransport.addClientHandlers(ch.pipeline(), URI.create("ws://" + hostAndPort + "/zmq"), socket.zmtpOptions());
        ch.pipeline().addLast(new ZmtpCodec(socket.zmtpOptions()), socket.newPeerHandler());
    }
    // end::ws-client[]

    // tag::ws-server[]
    // server: for one path
    static void webSocketServer(Channel ch, ZmtpSocket socket) {
        WebSocketTransport.addServerHandlers(ch.pipeline(), "/zmq", socket.zmtpOptions());
        ch.pipeline().addLast(new ZmtpCodec(socket.zmtpOptions()), socket.newPeerHandler());
    }
    // end::ws-server[]

    static void webSocket(ZmtpContext ctx) throws Exception {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER);
        router.onMessage(router::send);
        ZmtpSocket dealer = ctx.socket(SocketType.DEALER);
        BlockingQueue<String> replies = new LinkedBlockingQueue<>();
        dealer.onMessage(m -> {
            replies.add(m.frameString(0));
            m.release();
        });
        Channel server = new ServerBootstrap().group(router.eventLoop(), router.eventLoop())
                .channel(ctx.transport().tcpServerChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        webSocketServer(ch, router);
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        String hostAndPort = "127.0.0.1:" + port(server);
        Channel client = new Bootstrap().group(dealer.eventLoop()).channel(ctx.transport().tcpChannel())
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        webSocketClient(ch, hostAndPort, dealer);
                    }
                }).connect(new InetSocketAddress("127.0.0.1", port(server))).sync().channel();
        dealer.send("over ws");
        check("over ws".equals(replies.poll(5, TimeUnit.SECONDS)), "ws:// in our own pipelines");
        client.close().sync();
        server.close().sync();
        dealer.close();
        router.close();
    }

    static void sharedLoops() throws Exception {
        // tag::shared-loops[]
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        ZmtpContext zmq = ZmtpContext.wrap(group);
        ZmtpSocket push = zmq.socket(SocketType.PUSH, SocketOptions.DEFAULTS, group.next());
        // HTTP server on the same group; its handler calls push.send(...) (handed to push's loop when
        // the handler runs on another loop of the group, with no hop when it is the same loop)
        // end::shared-loops[]
        BlockingSocket pull = zmq.blocking(SocketType.PULL);
        push.connect(pull.bind("tcp://127.0.0.1:0"));
        push.send("from a shared loop");
        check(List.of("from a shared loop"), pull.receiveStrings(Duration.ofSeconds(5)));
        zmq.close(Duration.ofSeconds(2));
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    static List<String> ask(ZmtpContext ctx, String endpoint) {
        try (BlockingSocket dealer = ctx.blocking(SocketType.DEALER).connect(endpoint)) {
            dealer.send("ping");
            return dealer.receiveStrings(Duration.ofSeconds(5));
        }
    }

    static int port(Channel server) {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    static void check(List<String> expected, List<String> got) {
        check(expected.equals(got), "expected " + expected + ", got " + got);
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    private Embedding() {
    }
}
