package io.zmtp.examples.browser;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A browser that speaks ZMTP: a PUB socket and a ROUTER socket bound on one ws:// port (paths
 * {@code /news} and {@code /rpc}), and a small HTTP server for the web page and the browser
 * bundle of jszmq (a ZWS 2.0 client from the npm registry, built by {@code examples/js/build.sh}).
 * The page subscribes to {@code news}, asks the ROUTER a question, shows what it got, and then
 * reports it to the ROUTER in a last request ({@code report {...}}), which {@link #report()}
 * completes with.
 *
 * <p>Run: {@code bash examples/js/build.sh && examples/browser-demo.sh} (after a build that packaged
 * this module, which writes its class path) and open the printed address (docs/NETTY.md).
 */
public final class BrowserDemo implements AutoCloseable {
    private final ZmtpContext ctx;
    private final Channel http;
    private final String wsBase;
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final CompletableFuture<String> report = new CompletableFuture<>();

    private BrowserDemo(ZmtpContext ctx, Channel http, String wsBase) {
        this.ctx = ctx;
        this.http = http;
        this.wsBase = wsBase;
    }

    /**
     * Starts the sockets on {@code zmtpPort} and the page on {@code httpPort} (0: any free port),
     * on 127.0.0.1, serving the jszmq bundle from {@code bundle}.
     */
    public static BrowserDemo start(int httpPort, int zmtpPort, Path bundle) throws Exception {
        ZmtpContext ctx = ZmtpContext.create(1);
        try {
            EventLoop loop = ctx.group().next();
            ZmtpSocket pub = ctx.socket(SocketType.PUB, SocketOptions.DEFAULTS, loop);
            ZmtpSocket router = ctx.socket(SocketType.ROUTER, SocketOptions.DEFAULTS, loop);
            String newsEndpoint = pub.bind("ws://127.0.0.1:" + zmtpPort + "/news").get();
            int port = URI.create(newsEndpoint).getPort();
            router.bind("ws://127.0.0.1:" + port + "/rpc").get();
            String wsBase = "ws://127.0.0.1:" + port;

            byte[] page = page(wsBase);
            byte[] script = Files.readAllBytes(bundle);
            Channel http = new ServerBootstrap().group(loop, loop)
                    .channel(ctx.transport().tcpServerChannel())
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(8192),
                                    new StaticFiles(page, script));
                        }
                    }).bind(new InetSocketAddress("127.0.0.1", httpPort)).sync().channel();
            BrowserDemo demo = new BrowserDemo(ctx, http, wsBase);

            // The ROUTER answers every request and keeps what it was asked.
            router.onMessage(msg -> {
                try {
                    if (msg.size() != 3) {
                        return;
                    }
                    String body = new String(msg.frameBytes(2), StandardCharsets.UTF_8);
                    demo.requests.add(body);
                    if (body.startsWith("report ")) {
                        demo.report.complete(body.substring("report ".length()));
                    }
                    router.send(ZmtpMessage.of(msg.frameBytes(0), new byte[0],
                            ("echo: " + body).getBytes(StandardCharsets.UTF_8)));
                } finally {
                    msg.release();
                }
            });
            // The PUB publishes news, and other things the page did not subscribe to.
            AtomicLong n = new AtomicLong();
            pub.scheduleAtFixedRate(() -> {
                long i = n.incrementAndGet();
                pub.send("other", "filtered " + i);
                pub.send("news", "item " + i);
            }, Duration.ofMillis(100), Duration.ofMillis(100));
            return demo;
        } catch (Exception e) {
            ctx.close(Duration.ofSeconds(1));
            throw e;
        }
    }

    static byte[] page(String wsBase) throws IOException {
        try (InputStream in = BrowserDemo.class.getResourceAsStream("index.html")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("__WS_BASE__", wsBase)
                    .getBytes(StandardCharsets.UTF_8);
        }
    }

    /** The page's address. */
    public String pageUrl() {
        InetSocketAddress a = (InetSocketAddress) http.localAddress();
        return "http://127.0.0.1:" + a.getPort() + "/";
    }

    /** ws://127.0.0.1:port of the two sockets. */
    public String webSocketBase() {
        return wsBase;
    }

    /** Every request body the ROUTER received, in order. */
    public List<String> requests() {
        return requests;
    }

    /** Completes with the page's report (JSON: the first three news items and the reply it got). */
    public CompletableFuture<String> report() {
        return report;
    }

    @Override
    public void close() {
        http.close().awaitUninterruptibly();
        ctx.close(Duration.ofSeconds(2));
    }

    /** Serves the page at / and the bundle at /jszmq.js. */
    private static final class StaticFiles extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final byte[] page;
        private final byte[] script;

        StaticFiles(byte[] page, byte[] script) {
            this.page = page;
            this.script = script;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            String path = req.uri();
            byte[] body;
            String type;
            HttpResponseStatus status = HttpResponseStatus.OK;
            if (path.equals("/") || path.startsWith("/?") || path.equals("/index.html")) {
                body = page;
                type = "text/html; charset=utf-8";
            } else if (path.equals("/jszmq.js")) {
                body = script;
                type = "text/javascript";
            } else {
                body = new byte[0];
                type = "text/plain";
                status = HttpResponseStatus.NOT_FOUND;
            }
            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                    Unpooled.wrappedBuffer(body));
            res.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
            res.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
            res.headers().set(HttpHeaderNames.CONNECTION, "close");
            ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
        }
    }

    public static void main(String[] args) throws Exception {
        int httpPort = args.length > 0 ? Integer.parseInt(args[0]) : 8080;
        int zmtpPort = args.length > 1 ? Integer.parseInt(args[1]) : 5560;
        Path bundle = Path.of(args.length > 2 ? args[2] : "examples/target/js/jszmq.js");
        if (!Files.exists(bundle)) {
            bundle = Path.of("target/js/jszmq.js");
        }
        if (!Files.exists(bundle)) {
            System.err.println("no jszmq bundle: run bash examples/js/build.sh first");
            System.exit(2);
        }
        BrowserDemo demo = start(httpPort, zmtpPort, bundle);
        System.out.println("open " + demo.pageUrl() + " (sockets on " + demo.webSocketBase() + "/news and /rpc)");
        demo.report().thenAccept(r -> System.out.println("the page reported: " + r));
        Thread.currentThread().join();
    }
}
