package io.zmtp.examples.docs;

// tag::imports[]
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.util.concurrent.ScheduledFuture;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpPoller;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpCodec;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

// in scope: ZmtpContext ctx
// end::imports[]

/** README, "Three ways in": the same echo service as a Netty pipeline, a reactor and blocking calls. */
public final class ThreeWaysIn {
    public static void main(String[] args) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            // tag::netty[]
            ZmtpSocket router = ctx.socket(SocketType.ROUTER);
            router.onMessage(router::send);                         // echo: back to the peer it came from
            Channel server = new ServerBootstrap()
                    .group(router.eventLoop(), router.eventLoop())  // your bootstrap, on the socket's loop
                    .channel(ctx.transport().tcpServerChannel())
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {   // your handlers around the codec
                            ch.pipeline().addLast(new ZmtpCodec(router.zmtpOptions()), router.newPeerHandler());
                        }
                    }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            // end::netty[]
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            check(ask(ctx, "tcp://127.0.0.1:" + port));
            server.close().sync();

            // tag::reactor[]
            ZmtpSocket echo = ctx.socket(SocketType.ROUTER);
            echo.onMessage(m -> echo.send(m));                      // on the socket's loop; send takes the message
            String endpoint = echo.bind("tcp://127.0.0.1:0").get(); // bind, connect and send return futures
            ScheduledFuture<?> tick = echo.scheduleAtFixedRate(     // timers run on the same loop: no locks
                    () -> System.out.println(echo.metrics().toLine()), Duration.ofSeconds(10), Duration.ofSeconds(10));
            // end::reactor[]
            check(ask(ctx, endpoint));
            tick.cancel(false);
        }
    }

    // tag::blocking[]
    static List<String> ask(ZmtpContext ctx, String endpoint) {
        BlockingSocket dealer = ctx.blocking(SocketType.DEALER).connect(endpoint);
        dealer.send("ping");                                        // on your thread, which waits when it must
        List<String> reply = dealer.receiveStrings(Duration.ofSeconds(5)); // null after the timeout
        try (ZmtpPoller poller = new ZmtpPoller()) {                // several sockets: wait for any of them
            poller.register(dealer);
            int ready = poller.poll(Duration.ofMillis(100));        // 0: nothing more came
        }
        dealer.close();
        return reply;
    }
    // end::blocking[]

    static void check(List<String> reply) {
        if (!List.of("ping").equals(reply)) {
            throw new IllegalStateException("expected [ping], got " + reply);
        }
    }

    private ThreeWaysIn() {
    }
}
