package io.zmtp.examples.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpCodec;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpOptions;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * docs/NETTY.md, "ZmtpMessages with no socket at all": a plain Netty server whose pipeline is
 * {@link ZmtpCodec} (announcing PULL) and a {@code SimpleChannelInboundHandler<ZmtpMessage>},
 * which releases each message after {@code channelRead0}. A PUSH socket sends to it.
 */
public final class NoSocket {
    public static List<String> run(ZmtpContext ctx, int messages) throws Exception {
        List<String> got = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(messages);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            ZmtpOptions options = ZmtpOptions.builder(SocketType.PULL).build();
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new ZmtpCodec(options), new SimpleChannelInboundHandler<ZmtpMessage>() {
                                @Override
                                protected void channelRead0(ChannelHandlerContext c, ZmtpMessage m) {
                                    got.add(new String(m.frameBytes(0), StandardCharsets.UTF_8));
                                    done.countDown();
                                }
                            });
                        }
                    }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            try (BlockingSocket push = ctx.blocking(SocketType.PUSH)) {
                push.connect("tcp://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort());
                for (int i = 0; i < messages; i++) {
                    push.send("message " + i);
                }
                done.await(10, TimeUnit.SECONDS);
            } finally {
                server.close().sync();
            }
            return got;
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private NoSocket() {
    }
}
