package io.zmtp.interop;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.HandshakeCompleted;
import io.zmtp.wire.ZmtpCodec;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpOptions;
import io.zmtp.wire.ZmtpSubscription;

import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One ZMTP connection made with nothing but {@link ZmtpCodec} in a Netty pipeline: the way a
 * Netty user embeds the codec, and what the wire-level interop tests drive.
 */
final class RawConnection implements AutoCloseable {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private Channel server;
    private final CompletableFuture<Channel> channel = new CompletableFuture<>();
    final CompletableFuture<HandshakeCompleted> handshake = new CompletableFuture<>();
    final CompletableFuture<ConnectionFailed> failure = new CompletableFuture<>();
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    private final BlockingQueue<ZmtpMessage> inbox = new LinkedBlockingQueue<>();
    private final BlockingQueue<ZmtpSubscription> subscriptions = new LinkedBlockingQueue<>();
    private final ZmtpOptions options;

    private RawConnection(ZmtpOptions options) {
        this.options = options;
    }

    private ChannelInitializer<Channel> initializer() {
        return new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                channel.complete(ch);
                ch.pipeline().addLast(new ZmtpCodec(options), new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        if (msg instanceof ZmtpMessage) {
                            inbox.add((ZmtpMessage) msg);
                        } else if (msg instanceof ZmtpSubscription) {
                            subscriptions.add((ZmtpSubscription) msg);
                        } else {
                            ReferenceCountUtil.release(msg);
                        }
                    }

                    @Override
                    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                        if (evt instanceof HandshakeCompleted) {
                            handshake.complete((HandshakeCompleted) evt);
                        } else if (evt instanceof ConnectionFailed) {
                            failure.complete((ConnectionFailed) evt);
                        }
                    }

                    @Override
                    public void channelInactive(ChannelHandlerContext ctx) {
                        closed.complete(null);
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        ctx.close();
                    }
                });
            }
        };
    }

    /** Connects to host:port. */
    static RawConnection connect(ZmtpOptions options, String host, int port) throws Exception {
        RawConnection c = new RawConnection(options);
        new Bootstrap().group(c.group).channel(NioSocketChannel.class)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(c.initializer())
                .connect(host, port).sync();
        return c;
    }

    /** Binds an ephemeral port on 127.0.0.1 and accepts one connection. */
    static RawConnection bind(ZmtpOptions options) throws Exception {
        RawConnection c = new RawConnection(options);
        c.server = new ServerBootstrap().group(c.group).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(c.initializer())
                .bind("127.0.0.1", 0).sync().channel();
        return c;
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    String endpoint() {
        return "tcp://127.0.0.1:" + port();
    }

    HandshakeCompleted awaitHandshake() throws Exception {
        return handshake.get(10, TimeUnit.SECONDS);
    }

    void send(ZmtpMessage m) throws Exception {
        channel.get(10, TimeUnit.SECONDS).writeAndFlush(m).sync();
    }

    /** Writes anything the codec accepts (a {@link ZmtpSubscription}, a command...) and waits for it to leave. */
    void write(Object msg) throws Exception {
        channel.get(10, TimeUnit.SECONDS).writeAndFlush(msg).sync();
    }

    /** The next subscription change a subscriber sent, or null after the timeout. The caller releases it. */
    ZmtpSubscription receiveSubscription(long timeoutMs) throws InterruptedException {
        return subscriptions.poll(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** The next message, or null after the timeout. The caller releases it. */
    ZmtpMessage receive(long timeoutMs) throws InterruptedException {
        return inbox.poll(timeoutMs, TimeUnit.MILLISECONDS);
    }

    boolean isOpen() throws Exception {
        return channel.get(10, TimeUnit.SECONDS).isActive();
    }

    @Override
    public void close() throws Exception {
        if (channel.isDone()) {
            channel.get().close().sync();
        }
        if (server != null) {
            server.close().sync();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        ZmtpMessage m;
        while ((m = inbox.poll()) != null) {
            m.release();
        }
        ZmtpSubscription s;
        while ((s = subscriptions.poll()) != null) {
            s.release();
        }
    }
}
