package io.zmtp.socket;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.uring.IoUringIoHandler;
import io.zmtp.transport.IoTransport;
import io.zmtp.transport.TcpKeepAlive;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static io.zmtp.socket.SocketTesting.T;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The opt-in io_uring transport: sockets on a context made for it, and on an application's own
 * io_uring loops, over tcp:// and ipc://, with the TCP options that io_uring sets itself, and a
 * ROUTER serving a hundred DEALERs at once. Skipped, with the kernel's reason, where io_uring is
 * not allowed.
 */
class IoUringTransportTest {
    @TempDir
    Path tmp;
    ZmtpContext ctx;

    @BeforeEach
    void start() {
        assumeTrue(IoTransport.IO_URING.isAvailable(), () -> "io_uring is not available here: "
                + IoTransport.IO_URING.unavailabilityCause());
        ctx = ZmtpContext.create(2, Duration.ofNanos(50_000), IoTransport.IO_URING);   // spinning, as by default
    }

    @AfterEach
    void stop() {
        if (ctx != null) {
            ctx.close(Duration.ofSeconds(5));
        }
    }

    @Test
    void aContextMadeForIoUringRunsOnIt() {
        assertEquals(IoTransport.IO_URING, ctx.transport());
        assertTrue(ctx.group().next() instanceof io.netty.channel.IoEventLoop loop
                && loop.isCompatible(io.netty.channel.uring.IoUringIoHandle.class), "io_uring loops");
    }

    /**
     * Peers paused for the socket's inbound budget that then close are seen to close, and give
     * their reservations back: Netty's io_uring channel does not always read on to the end of a
     * paused stream, so the budget asks the kernel whether the peer is gone (IoTransport).
     */
    @Test
    void pausedPeersThatCloseGiveTheirBudgetBack() throws Exception {
        HostilePeerTest.partialFramesOfManyPeers(ZmtpContext.create(1, Duration.ZERO, IoTransport.IO_URING));
    }

    /**
     * A receiver paused at its high-water mark reads on when the application takes its messages,
     * also once the sender has sent everything and waits, so that no new bytes arrive to wake the
     * channel: the rest of the stream is then only in the kernel's buffer. The budget's probe
     * (above) does not cover this pause; the resume alone must start reading again. Ten streams,
     * each paused and resumed hundreds of times (a mark of 2 against 16 KiB messages).
     */
    @Test
    void aReceiverPausedAtItsMarkReadsTheRestWhenResumed() {
        int messages = 300;
        for (int stream = 0; stream < 10; stream++) {
            BlockingSocket pull = ctx.blocking(SocketType.PULL, SocketOptions.builder().receiveHwm(2).build());
            String ep = pull.bind("tcp://127.0.0.1:0");
            ZmtpSocket push = ctx.socket(SocketType.PUSH);
            SocketTesting.get(push.connect(ep));
            List<io.netty.util.concurrent.Future<Void>> sends = new ArrayList<>();
            for (int i = 0; i < messages; i++) {
                byte[] body = new byte[16 * 1024];
                java.nio.ByteBuffer.wrap(body).putInt(i);
                sends.add(push.send(ZmtpMessage.of(body)));
            }
            ZmtpSocket receiver = pull.socket();
            SocketTesting.eventually("the receiver stops reading at its mark", () -> SocketTesting.onLoop(receiver,
                    () -> receiver.pipes().stream().anyMatch(p -> p instanceof ChannelPipe cp
                            && io.zmtp.wire.ReadGate.isPaused(cp.channel(), io.zmtp.wire.ReadGate.SOCKET))));
            for (int i = 0; i < messages; i++) {
                byte[] got = pull.recv(T);
                int n = i;
                assertTrue(got != null, () -> "stream lost after " + n + " messages: the paused channel did not read again");
                assertEquals(i, java.nio.ByteBuffer.wrap(got).getInt(), "in order, none lost");
            }
            SocketTesting.eventually("every send completed", () -> sends.stream().allMatch(f -> f.isDone()));
            push.close();
            pull.close();
        }
    }

    @Test
    void reqRepOverTcpWithKeepaliveAndRetransmitTimeoutSet() {
        SocketOptions options = SocketOptions.builder()
                .tcpKeepAlive(new TcpKeepAlive(Duration.ofSeconds(30), Duration.ofSeconds(5), 3))
                .tcpRetransmitTimeout(Duration.ofSeconds(20)).build();
        BlockingSocket rep = ctx.blocking(SocketType.REP, options);
        String ep = rep.bind("tcp://127.0.0.1:0");
        BlockingSocket req = ctx.blocking(SocketType.REQ, options).connect(ep);
        for (int i = 0; i < 100; i++) {
            req.send("ping " + i);
            assertEquals(List.of("ping " + i), rep.receiveStrings(T));
            rep.send("pong " + i);
            assertEquals(List.of("pong " + i), req.receiveStrings(T));
        }
    }

    @Test
    void dealerRouterOverIpc() {
        BlockingSocket router = ctx.blocking(SocketType.ROUTER);
        String ep = router.bind("ipc://" + tmp.resolve("uring.ipc"));
        BlockingSocket dealer = ctx.blocking(SocketType.DEALER, SocketOptions.builder().identity("u").build());
        dealer.connect(ep);
        dealer.send("over io_uring ipc");
        assertEquals(List.of("u", "over io_uring ipc"), router.receiveStrings(T));
    }

    @Test
    void aRouterEchoesAHundredDealersAtOnce() {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER);
        router.onMessage(m -> {
            if (!router.trySend(m)) {
                router.send(m);
            }
        });
        String ep = SocketTesting.get(router.bind("tcp://127.0.0.1:0"));
        List<BlockingSocket> dealers = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            dealers.add(ctx.blocking(SocketType.DEALER).connect(ep));
        }
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < dealers.size(); i++) {
                dealers.get(i).send("dealer " + i + " round " + round);
            }
            Set<String> back = new HashSet<>();
            for (int i = 0; i < dealers.size(); i++) {
                back.add(dealers.get(i).receiveStrings(T).get(0));
            }
            assertEquals(dealers.size(), back.size(), "every dealer had its own message back");
            assertTrue(back.contains("dealer 99 round " + round));
        }
    }

    @Test
    void socketsRunOnAnApplicationsOwnIoUringLoops() throws Exception {
        EventLoopGroup mine = new MultiThreadIoEventLoopGroup(1, IoUringIoHandler.newFactory());
        try {
            ZmtpContext wrapped = ZmtpContext.wrap(mine);
            assertEquals(IoTransport.IO_URING, wrapped.transport());
            BlockingSocket pull = wrapped.blocking(SocketType.PULL);
            String ep = pull.bind("tcp://127.0.0.1:0");
            BlockingSocket push = wrapped.blocking(SocketType.PUSH).connect(ep);
            push.send(ZmtpMessage.ofStrings("a", "b"));
            assertEquals(List.of("a", "b"), pull.receiveStrings(T));
            wrapped.close(Duration.ofSeconds(2));
        } finally {
            mine.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void aKindThatIsNotAvailableIsRefusedWithItsReason() {
        for (IoTransport t : IoTransport.values()) {
            if (!t.isAvailable()) {
                IllegalStateException e = assertThrows(IllegalStateException.class,
                        () -> ZmtpContext.create(1, Duration.ZERO, t));
                assertTrue(e.getMessage().contains("not available"), e.getMessage());
            }
        }
        assertTrue(IoTransport.NIO.isAvailable(), "NIO works everywhere");
    }
}
