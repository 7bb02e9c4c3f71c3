package io.zmtp.examples.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * docs/NETTY.md, "Sharing event loops": an existing Netty HTTP server's event loop group also runs
 * ZeroMQ sockets ({@link ZmtpContext#wrap}), so an HTTP handler can hand a request to a socket
 * without a thread hop: here each HTTP request is pushed to a PULL socket, and the page says
 * which thread did both. The application keeps and shuts down its group.
 */
public final class SharedLoops implements AutoCloseable {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final ZmtpContext zmq = ZmtpContext.wrap(group);
    private final BlockingSocket pull = zmq.blocking(SocketType.PULL);
    private final io.zmtp.socket.ZmtpSocket push;
    private final Channel http;

    public SharedLoops() throws InterruptedException {
        String ep = pull.bind("tcp://127.0.0.1:0");
        push = zmq.socket(SocketType.PUSH, io.zmtp.socket.SocketOptions.DEFAULTS, group.next());
        push.connect(ep);
        http = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(8192),
                                new SimpleChannelInboundHandler<FullHttpRequest>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
                                        // On an event loop of the group; the socket's own loop may be another one
                                        // of it, and send() hands over to it when so.
                                        push.send("GET " + req.uri());
                                        byte[] body = ("queued by " + Thread.currentThread().getName())
                                                .getBytes(StandardCharsets.UTF_8);
                                        DefaultFullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                                                HttpResponseStatus.OK, Unpooled.wrappedBuffer(body));
                                        res.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
                                        res.headers().set(HttpHeaderNames.CONNECTION, "close");
                                        ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
                                    }
                                });
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    public int httpPort() {
        return ((InetSocketAddress) http.localAddress()).getPort();
    }

    /** The next request the PULL socket received. */
    public String nextQueued(Duration timeout) {
        java.util.List<String> m = pull.receiveStrings(timeout);
        return m == null ? null : m.get(0);
    }

    @Override
    public void close() throws InterruptedException {
        http.close().sync();
        zmq.close(Duration.ofSeconds(2));
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
}
