package io.zmtp.socket;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.zmtp.transport.IoTransport;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpCodec;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.zmtp.socket.SocketTesting.T;
import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The three ways in: Netty-native, reactor, blocking; and the event loops underneath. */
class ApiTest {
    @TempDir
    Path tmp;

    @Test
    void aUsersOwnChannelBecomesAPeerOfASocket() throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            ZmtpSocket router = ctx.socket(SocketType.ROUTER);
            SocketTesting.Inbox inbox = new SocketTesting.Inbox(router);
            // The application's own server, with its own pipeline: ZmtpCodec then the socket's handler.
            Channel server = new ServerBootstrap().group(router.eventLoop(), router.eventLoop())
                    .channel(ctx.transport().tcpServerChannel())
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new ZmtpCodec(router.zmtpOptions()), router.newPeerHandler());
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            BlockingSocket dealer = ctx.blocking(SocketType.DEALER, SocketOptions.builder().identity("mine").build());
            dealer.connect("tcp://127.0.0.1:" + port);
            dealer.send("over a user channel");
            assertEquals(List.of("mine", "over a user channel"), inbox.next());
            router.send("mine", "and back");
            assertEquals(List.of("and back"), dealer.receiveStrings(T));
            dealer.close(Duration.ZERO);
            server.close().sync();
        }
    }

    @Test
    void aHandlerBetweenTheCodecAndThePeerHandlerSeesReadsButNotTheSocketsWrites() throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            ZmtpSocket router = ctx.socket(SocketType.ROUTER);
            SocketTesting.Inbox inbox = new SocketTesting.Inbox(router);
            java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
            Channel server = new ServerBootstrap().group(router.eventLoop(), router.eventLoop())
                    .channel(ctx.transport().tcpServerChannel())
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new ZmtpCodec(router.zmtpOptions()),
                                    new io.netty.channel.ChannelDuplexHandler() {
                                        @Override
                                        public void channelRead(io.netty.channel.ChannelHandlerContext c, Object msg) {
                                            reads.incrementAndGet();
                                            c.fireChannelRead(msg);
                                        }

                                        @Override
                                        public void write(io.netty.channel.ChannelHandlerContext c, Object msg,
                                                          io.netty.channel.ChannelPromise promise) {
                                            if (msg instanceof ZmtpMessage) {
                                                writes.incrementAndGet();
                                            }
                                            c.write(msg, promise);
                                        }
                                    },
                                    router.newPeerHandler());
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            BlockingSocket dealer = ctx.blocking(SocketType.DEALER, SocketOptions.builder().identity("mine").build());
            dealer.connect("tcp://127.0.0.1:" + port);
            dealer.send("in");
            assertEquals(List.of("mine", "in"), inbox.next());
            router.send("mine", "out");
            assertEquals(List.of("out"), dealer.receiveStrings(T));
            assertEquals(1, reads.get(), "the handler in between sees what is read");
            // The pipe writes through the ConnectionWriter it got with the handshake, into the
            // codec directly: one write path, wherever its handler sits.
            assertEquals(0, writes.get(), "the socket's writes do not pass the handler in between");
            dealer.close(Duration.ZERO);
            server.close().sync();
        }
    }

    @Test
    void aChannelOnAnotherLoopIsRefused() throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            ZmtpSocket router = ctx.socket(SocketType.ROUTER);
            io.netty.channel.embedded.EmbeddedChannel wrong = new io.netty.channel.embedded.EmbeddedChannel();
            try {
                wrong.pipeline().addLast(router.newPeerHandler());
                assertNull(wrong.pipeline().get(PeerHandler.class), "the handler was refused and removed");
                wrong.checkException();
                throw new AssertionError("a channel of another event loop must be refused");
            } catch (io.netty.channel.ChannelPipelineException expected) {
                assertTrue(expected.getCause() instanceof IllegalStateException);
                assertTrue(expected.getCause().getMessage().contains("event loop"));
            } finally {
                wrong.close(); // its own loop: the embedded one, not the socket's
            }
        }
    }

    @Test
    void thePollerWaitsForAnyOfSeveralSockets() {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            BlockingSocket a = ctx.blocking(SocketType.PULL);
            BlockingSocket b = ctx.blocking(SocketType.PULL);
            String ea = a.bind("inproc://pa");
            String eb = b.bind("inproc://pb");
            BlockingSocket pushA = ctx.blocking(SocketType.PUSH).connect(ea);
            BlockingSocket pushB = ctx.blocking(SocketType.PUSH).connect(eb);
            // Both pushers are peers of their pulls before the poller looks: a connection alone
            // makes nothing readable.
            SocketTesting.awaitPeers(a.socket(), 1);
            SocketTesting.awaitPeers(b.socket(), 1);
            try (ZmtpPoller poller = new ZmtpPoller()) {
                int ia = poller.register(a);
                int ib = poller.register(b);
                // a negative window, short: nothing is readable before anything is sent
                assertEquals(0, poller.poll(Duration.ofMillis(20)), "nothing yet");
                pushB.send("to b");
                assertEquals(1, poller.poll(T));
                assertFalse(poller.readable(ia));
                assertTrue(poller.readable(ib));
                assertEquals(List.of("to b"), b.receiveStrings(T));
                pushA.send("to a");
                assertEquals(1, poller.poll(T));
                assertTrue(poller.readable(ia));
                a.receive(T).release();
            }
        }
    }

    @Test
    void aBlockingReceiverPausesItsPeersAtTheReceiveMark() {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            BlockingSocket pull = ctx.blocking(SocketType.PULL, SocketOptions.builder().receiveHwm(10).build());
            String ep = pull.bind("inproc://slow");
            ZmtpSocket push = ctx.socket(SocketType.PUSH, SocketOptions.builder().sendHwm(10).build());
            get(push.connect(ep));
            SocketTesting.awaitPeers(push, 1);
            java.util.List<io.netty.util.concurrent.Future<Void>> sends = new java.util.ArrayList<>();
            for (int i = 0; i < 100; i++) {
                sends.add(push.send("n" + i));
            }
            eventually("the pusher stops at the marks", () -> SocketTesting.onLoop(push, push::blockedSends) > 0);
            long accepted = sends.stream().filter(io.netty.util.concurrent.Future::isDone).count();
            assertTrue(accepted <= 30, "at most the receiver's unconsumed mark plus the pipe's capacity: " + accepted);
            for (int i = 0; i < 100; i++) {
                assertEquals(List.of("n" + i), pull.receiveStrings(T));
            }
            assertNull(pull.tryReceive());
        }
    }

    @Test
    void socketsRunOnAnApplicationsOwnEventLoops() throws Exception {
        EventLoopGroup mine = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            ZmtpContext ctx = ZmtpContext.wrap(mine);
            assertEquals(IoTransport.NIO, ctx.transport());
            BlockingSocket rep = ctx.blocking(SocketType.REP);
            String ep = rep.bind("tcp://127.0.0.1:0");
            BlockingSocket req = ctx.blocking(SocketType.REQ).connect(ep);
            req.send("hi");
            assertEquals(List.of("hi"), rep.receiveStrings(T));
            rep.send("ho");
            assertEquals(List.of("ho"), req.receiveStrings(T));
            ctx.close(Duration.ofSeconds(2));
            assertFalse(mine.isShuttingDown(), "the application's loops are left running");
        } finally {
            mine.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void ipcOverNioDomainSockets() throws Exception {
        EventLoopGroup nio = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        try {
            ZmtpContext ctx = ZmtpContext.wrap(nio);
            BlockingSocket router = ctx.blocking(SocketType.ROUTER);
            String ep = router.bind("ipc://" + tmp.resolve("nio.ipc"));
            BlockingSocket dealer = ctx.blocking(SocketType.DEALER, SocketOptions.builder().identity("n").build());
            dealer.connect(ep);
            dealer.send("over NIO ipc");
            assertEquals(List.of("n", "over NIO ipc"), router.receiveStrings(T));
            ctx.close(Duration.ofSeconds(2));
        } finally {
            nio.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void bindFailuresAreReported() {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            ZmtpSocket a = ctx.socket(SocketType.PULL);
            String ep = get(a.bind("tcp://127.0.0.1:0"));
            ZmtpSocket b = ctx.socket(SocketType.PULL);
            SocketTesting.Events events = new SocketTesting.Events(b);
            io.netty.util.concurrent.Future<String> f = b.bind(ep);
            f.awaitUninterruptibly(T.toMillis());
            assertFalse(f.isSuccess(), "the port is taken");
            assertTrue(events.has(SocketEvent.Type.BIND_FAILED));
            io.netty.util.concurrent.Future<String> bad = b.bind("udp://127.0.0.1:1");
            bad.awaitUninterruptibly(T.toMillis());
            assertTrue(bad.cause() instanceof IllegalArgumentException);
            ZmtpSocket c = ctx.socket(SocketType.PULL);
            get(c.bind("inproc://taken"));
            io.netty.util.concurrent.Future<String> again = ctx.socket(SocketType.PULL).bind("inproc://taken");
            again.awaitUninterruptibly(T.toMillis());
            assertFalse(again.isSuccess());
        }
    }

    @Test
    void messagesCarryThePeersProperties() {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            BlockingSocket router = ctx.blocking(SocketType.ROUTER);
            String ep = router.bind("tcp://127.0.0.1:0");
            BlockingSocket dealer = ctx.blocking(SocketType.DEALER, SocketOptions.builder()
                    .properties(io.zmtp.wire.ZmtpMetadata.builder().put("X-Team", "blue").build()).build());
            dealer.connect(ep);
            dealer.send("x");
            ZmtpMessage m = router.receive(T);
            assertEquals("blue", m.properties().getString("x-team"));
            assertEquals("DEALER", m.properties().getString("Socket-Type"));
            assertTrue(m.properties().getString("Peer-Address").contains("127.0.0.1"));
            m.release();
        }
    }
}
