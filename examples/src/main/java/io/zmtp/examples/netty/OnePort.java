package io.zmtp.examples.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.ZmtpCodec;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * docs/NETTY.md, "One port for HTTP and ZMTP": the first byte decides. A ZMTP greeting starts
 * with 0xFF, which no HTTP request does, so {@link Detector} waits for one byte, puts either
 * {@link ZmtpCodec} and the socket's peer handler or Netty's HTTP codec in its place, and hands
 * on what it read.
 */
public final class OnePort {
    /** Binds a port on {@code socket}'s loop serving {@code socket} over ZMTP and a text page over HTTP. */
    public static Channel bind(ZmtpSocket socket, String httpText) throws InterruptedException {
        return new ServerBootstrap().group(socket.eventLoop(), socket.eventLoop())
                .channel(socket.context().transport().tcpServerChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new Detector(socket, httpText));
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    /** Replaces itself once the first byte is known. */
    static final class Detector extends ByteToMessageDecoder {
        private final ZmtpSocket socket;
        private final String httpText;

        Detector(ZmtpSocket socket, String httpText) {
            this.socket = socket;
            this.httpText = httpText;
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
                ctx.pipeline().addAfter("aggregate", "page", new Page(httpText));
            }
            // ByteToMessageDecoder hands what it holds to the next handler when it is removed.
            ctx.pipeline().remove(this);
        }
    }

    static final class Page extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final String text;

        Page(String text) {
            this.text = text;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            byte[] body = text.getBytes(StandardCharsets.UTF_8);
            DefaultFullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(body));
            res.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
            res.headers().set(HttpHeaderNames.CONNECTION, "close");
            ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private OnePort() {
    }
}
