package io.zmtp.socket;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.zmtp.testing.PeerBytes;
import io.zmtp.testing.RawPeer;
import io.zmtp.wire.InboundBudget;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpCodec;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpMetadata;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.zmtp.socket.SocketTesting.T;
import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.onLoop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One unauthenticated peer attacking a ROUTER over loopback tcp, as the findings 2, 3, 4
 * and 8 describe, while a good DEALER of the same socket (same event loop) makes round trips.
 * Each test shows the bound, the reason the offending connection is closed with (where it is),
 * that what the bound protects returns to zero once the attacker leaves, and that the good peer is
 * served during and after the attack within the deadline.
 */
class HostilePeerTest {

    /** A ROUTER that echoes (except "end", which it counts), on a server of our own so its channels can be looked at. */
    static final class Rig implements AutoCloseable {
        final ZmtpContext ctx;
        final ZmtpSocket router;
        final Channel server;
        final List<Channel> children = new CopyOnWriteArrayList<>();
        final List<SocketEvent> events = new CopyOnWriteArrayList<>();
        final CountDownLatch ends = new CountDownLatch(1);
        final BlockingSocket good;
        final int port;

        Rig(SocketOptions options) throws Exception {
            this(options, ZmtpContext.create(1));
        }

        /** The rig on {@code ctx}, which it closes. */
        Rig(SocketOptions options, ZmtpContext ctx) throws Exception {
            this.ctx = ctx;
            router = ctx.socket(SocketType.ROUTER, options);
            router.monitor(events::add);
            router.onMessage(m -> {
                if (m.size() == 2 && "end".equals(m.frameString(1))) {
                    m.release();
                    ends.countDown();
                } else {
                    router.send(m);
                }
            });
            server = new ServerBootstrap().group(router.eventLoop(), router.eventLoop())
                    .channel(ctx.transport().tcpServerChannel())
                    .childOption(ChannelOption.SO_SNDBUF, 8 * 1024)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            children.add(ch);
                            ch.pipeline().addLast(new ZmtpCodec(router.zmtpOptions()), router.newPeerHandler());
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
            port = ((InetSocketAddress) server.localAddress()).getPort();
            good = ctx.blocking(SocketType.DEALER);
            good.connect("tcp://127.0.0.1:" + port);
            roundTrip("hello");
        }

        /** The good peer sends {@code body} and gets it back within the deadline. */
        void roundTrip(String body) {
            good.send(body);
            assertEquals(List.of(body), good.receiveStrings(T), "the good peer is served");
        }

        Channel channelOf(RawPeer peer) {
            eventually("the server accepted the raw peer", () -> children.stream()
                    .anyMatch(c -> ((InetSocketAddress) c.remoteAddress()).getPort() == peer.localPort()));
            return children.stream().filter(c -> ((InetSocketAddress) c.remoteAddress()).getPort() == peer.localPort())
                    .findFirst().orElseThrow();
        }

        InboundBudget budget() {
            return router.zmtpOptions().inboundBudget();
        }

        String disconnectReasons() {
            StringBuilder sb = new StringBuilder();
            for (SocketEvent e : events) {
                if (e.type() == SocketEvent.Type.DISCONNECTED || e.type() == SocketEvent.Type.HANDSHAKE_FAILED) {
                    sb.append(e.reason()).append('\n');
                }
            }
            return sb.toString();
        }

        @Override
        public void close() throws Exception {
            good.close(Duration.ZERO);
            server.close().sync();
            ctx.close();
        }
    }

    static byte[] pings(int n) {
        PeerBytes b = PeerBytes.create();
        for (int i = 0; i < n; i++) {
            b.command("PING", new byte[] {0, 0, 'c', 't', 'x', (byte) i});
        }
        return b.toArray();
    }

    /** Finding 2: PINGs from a peer that never reads cost one owed PONG, not one queued PONG each. */
    @Test
    void pingFloodFromAPeerThatNeverReadsHoldsAtMostOnePong() throws Exception {
        int count = 150_000; // 1.5 MB of PINGs; one queued PONG each would be 1.2 MB held
        try (Rig rig = new Rig(SocketOptions.DEFAULTS); RawPeer attacker = RawPeer.connect(rig.port, 4096)) {
            attacker.handshake("DEALER");
            Channel ch = rig.channelOf(attacker);
            // First an echo the peer never reads fills its connection past Netty's write mark
            // (64 KiB): from then on a PONG cannot be written, only owed.
            attacker.send(PeerBytes.create().frame(false, new byte[128 * 1024]).toArray());
            eventually("the unread echo made the attacker's connection unwritable", () -> !ch.isWritable());
            CompletableFuture<Void> sending = attacker.sendAsync(pings(count));
            rig.roundTrip("during");
            sending.get(60, TimeUnit.SECONDS);
            attacker.send(PeerBytes.create().frame(false, "end").toArray());
            // (a long deadline: with the leak detector at paranoid level every PING costs a stack trace)
            assertTrue(rig.ends.await(60, TimeUnit.SECONDS), "every PING was read");
            long pending = onLoop(rig.router, () -> ch.unsafe().outboundBuffer() == null ? 0
                    : ch.unsafe().outboundBuffer().totalPendingWriteBytes());
            assertTrue(pending < 256 * 1024, "bytes waiting for the peer stay bounded: " + pending);
            assertTrue(ch.isActive(), "answering PINGs is no protocol error");
            rig.roundTrip("still during");
            // The codec, taken while the connection is up (once it closes the pipeline is torn
            // down and has no codec to ask): it owes the peer that never reads one PONG now.
            ZmtpCodec codec = onLoop(rig.router, () -> ch.pipeline().get(ZmtpCodec.class));
            assertNotNull(codec, "the attacker's connection has its codec");
            assertTrue(onLoop(rig.router, codec::hasPendingPong), "a PONG is owed while the peer does not read");
            attacker.close();
            eventually("the attacker's connection is gone", () -> !ch.isActive());
            // Torn down (after the codec heard that the channel closed): what it owes now is final.
            eventually("the attacker's pipeline is torn down", () -> onLoop(rig.router,
                    () -> ch.pipeline().get(ZmtpCodec.class) == null));
            assertFalse(onLoop(rig.router, codec::hasPendingPong), "nothing owed once the peer left");
            rig.roundTrip("after");
        }
    }

    /** Finding 3: millions of empty MORE frames close the connection at maxFramesPerMessage. */
    @Test
    void emptyFrameFloodClosesAtTheFrameLimit() throws Exception {
        try (Rig rig = new Rig(SocketOptions.builder().maxFramesPerMessage(10_000).build());
             RawPeer attacker = RawPeer.connect(rig.port, 0)) {
            attacker.handshake("DEALER");
            Channel ch = rig.channelOf(attacker);
            byte[] empties = new byte[2 * 100_000];
            for (int i = 0; i < empties.length; i += 2) {
                empties[i] = 0x01;
            }
            attacker.sendAsync(empties);
            rig.roundTrip("during");
            eventually("the attacker is closed", () -> !ch.isActive());
            eventually(() -> "a clear reason: " + rig.disconnectReasons(),
                    () -> rig.disconnectReasons().contains("more than 10000 frames"));
            eventually("its unfinished message is released", () -> rig.budget().reserved() == 0);
            rig.roundTrip("after");
        }
    }

    /** Finding 4: a READY with thousands of properties is refused at the property limit, in linear time. */
    @Test
    void metadataFloodIsRefusedAtThePropertyLimit() throws Exception {
        ZmtpMetadata.Builder b = ZmtpMetadata.builder().put("Socket-Type", "DEALER");
        for (int i = 0; i < 5000; i++) {
            b.put("X" + i, new byte[0]);
        }
        io.netty.buffer.ByteBuf props = io.netty.buffer.Unpooled.buffer();
        b.build().encode(props);
        byte[] meta = new byte[props.readableBytes()];
        props.readBytes(meta);
        props.release();
        try (Rig rig = new Rig(SocketOptions.DEFAULTS)) {
            for (int i = 0; i < 5; i++) {
                try (RawPeer attacker = RawPeer.connect(rig.port, 0)) {
                    attacker.send(PeerBytes.create().greeting31().command("READY", meta).toArray());
                    Channel ch = rig.channelOf(attacker);
                    rig.roundTrip("during " + i);
                    eventually("the attacker is closed", () -> !ch.isActive());
                }
            }
            eventually(() -> "a clear reason: " + rig.disconnectReasons(),
                    () -> rig.disconnectReasons().contains("more than 128 properties"));
            rig.roundTrip("after");
        }
    }

    /** Finding 8: unfinished frames of many connections are bounded by the socket's inbound budget. */
    @Test
    void partialFramesOfManyPeersStayWithinTheSocketsInboundBudget() throws Exception {
        partialFramesOfManyPeers(ZmtpContext.create(1));
    }

    /**
     * Four peers each send most of a large frame and stop, spending the budget, while the good
     * peer is served; then they close, and their reservations come back (on {@code ctx}, which
     * this closes; {@link IoUringTransportTest} runs it over io_uring).
     */
    static void partialFramesOfManyPeers(ZmtpContext ctx) throws Exception {
        long limit = 2L * 1024 * 1024;
        int frame = 1_000_000;
        SocketOptions options = SocketOptions.builder().maxMessageSize(1024 * 1024).maxInboundBuffered(limit).build();
        try (Rig rig = new Rig(options, ctx)) {
            List<RawPeer> attackers = new ArrayList<>();
            List<Channel> channels = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    RawPeer a = RawPeer.connect(rig.port, 0);
                    attackers.add(a);
                    a.handshake("DEALER");
                    channels.add(rig.channelOf(a));
                    // a frame header for 1,000,000 bytes, then 900,000 of them, and never the rest
                    byte[] part = PeerBytes.create().raw(0x02).raw(PeerBytes.hex("00 00 00 00 00 0F 42 40"))
                            .raw(new byte[900_000]).toArray();
                    a.sendAsync(part);
                }
                eventually(() -> "the budget is spent: " + rig.budget(), () -> rig.budget().waiting() > 0);
                long bound = limit + 4 * (InboundBudget.SMALL_HOLDING + 64 * 1024);
                rig.roundTrip("during");
                long reserved = rig.budget().reserved();
                assertTrue(reserved <= bound, "reserved " + reserved + " within " + bound);
                for (int i = 0; i < 20; i++) {
                    rig.roundTrip("during " + i);
                }
                assertTrue(rig.budget().reserved() <= bound);
            } finally {
                for (RawPeer a : attackers) {
                    a.close();
                }
            }
            for (Channel c : channels) {
                eventually("the attacker is gone", () -> !c.isActive());
            }
            eventually(() -> "every reservation is returned: " + rig.budget(),
                    () -> rig.budget().reserved() == 0 && rig.budget().waiting() == 0);
            // After the attack the whole budget serves again: a message of nearly the maximum size.
            String big = "x".repeat(frame);
            rig.roundTrip(big);
            rig.roundTrip("after");
        }
    }

    /** Finding 8: a message that alone needs more than the whole budget is refused on its header. */
    @Test
    void aMessageLargerThanTheWholeBudgetIsRefusedWithAReason() throws Exception {
        SocketOptions options = SocketOptions.builder().maxMessageSize(8 * 1024 * 1024)
                .maxInboundBuffered(1024 * 1024).build();
        try (Rig rig = new Rig(options); RawPeer attacker = RawPeer.connect(rig.port, 0)) {
            attacker.handshake("DEALER");
            Channel ch = rig.channelOf(attacker);
            attacker.send(PeerBytes.create().raw(0x02).raw(PeerBytes.hex("00 00 00 00 00 20 00 00")).toArray());
            eventually("the attacker is closed", () -> !ch.isActive());
            eventually(() -> "a clear reason: " + rig.disconnectReasons(),
                    () -> rig.disconnectReasons().contains("exceeds the socket's inbound budget"));
            assertEquals(0, rig.budget().reserved());
            rig.roundTrip("after");
            assertFalse(rig.disconnectReasons().isEmpty());
        }
    }
}
