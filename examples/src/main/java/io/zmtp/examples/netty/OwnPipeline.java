package io.zmtp.examples.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.buffer.ByteBuf;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.HandshakeCompleted;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpCodec;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * docs/NETTY.md, "A ZMTP peer in your own pipeline": your ServerBootstrap, on the socket's event
 * loop; a handler of yours before {@link ZmtpCodec} (here: counts the bytes that arrive) and one
 * after it (here: notes each peer's handshake), then {@code socket.newPeerHandler()}, which joins
 * the channel to a ROUTER socket. A DEALER connects over tcp:// and gets its answer.
 */
public final class OwnPipeline {
    /** What the example saw, for its test. */
    public record Result(String reply, long bytesCounted, String peerType) {
    }

    public static Result run(ZmtpContext ctx) throws Exception {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER);
        router.onMessage(msg -> {
            try {
                router.send(io.zmtp.wire.ZmtpMessage.of(msg.frameBytes(0), "pong".getBytes()));
            } finally {
                msg.release();
            }
        });
        AtomicLong bytes = new AtomicLong();
        AtomicReference<String> peerType = new AtomicReference<>();
        Channel server = new ServerBootstrap()
                .group(router.eventLoop(), router.eventLoop())   // the socket's loop: its channels live there
                .channel(ctx.transport().tcpServerChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast("count", new ChannelDuplexHandler() {
                            @Override
                            public void channelRead(ChannelHandlerContext c, Object m) {
                                bytes.addAndGet(((ByteBuf) m).readableBytes());
                                c.fireChannelRead(m);
                            }
                        });
                        ch.pipeline().addLast("zmtp", new ZmtpCodec(router.zmtpOptions()));
                        ch.pipeline().addLast("audit", new ChannelInboundHandlerAdapter() {
                            @Override
                            public void userEventTriggered(ChannelHandlerContext c, Object evt) {
                                if (evt instanceof HandshakeCompleted) {
                                    peerType.set(String.valueOf(((HandshakeCompleted) evt).peerSocketType()));
                                }
                                c.fireUserEventTriggered(evt);
                            }
                        });
                        ch.pipeline().addLast("socket", router.newPeerHandler());
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        try (BlockingSocket dealer = ctx.blocking(SocketType.DEALER)) {
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            dealer.connect("tcp://127.0.0.1:" + port);
            dealer.send("ping");
            String reply = dealer.receiveStrings(java.time.Duration.ofSeconds(10)).get(0);
            return new Result(reply, bytes.get(), peerType.get());
        } finally {
            server.close().sync();
            router.close();
        }
    }
}
