package io.zmtp.wire;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.zmtp.testing.PeerBytes;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ZmtpOptions#messagesPerTurn()}: one connection decodes at most that many messages per turn
 * of its event loop, so a peer with a large backlog cannot make the loop's other connections wait
 * for all of it. A turn ends with {@code channelReadComplete}; the messages of one turn arrive
 * between two of them.
 */
class DecodeTurnTest {

    /** A codec after a NULL handshake with a ROUTER peer, recording messages in turns. */
    private static final class Harness implements AutoCloseable {
        final EmbeddedChannel channel;
        final List<Integer> turns = new ArrayList<>();
        final List<Boolean> readingAtEndOfTurn = new ArrayList<>();
        final List<String> bodies = new ArrayList<>();
        int current;

        Harness(int messagesPerTurn) {
            ZmtpOptions options = ZmtpOptions.builder(SocketType.DEALER).messagesPerTurn(messagesPerTurn).build();
            channel = new EmbeddedChannel(new ZmtpCodec(options), new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    try {
                        if (msg instanceof ZmtpMessage m) {
                            bodies.add(m.frameString(0));
                            current++;
                        }
                    } finally {
                        ReferenceCountUtil.release(msg);
                    }
                }

                @Override
                public void channelReadComplete(ChannelHandlerContext ctx) {
                    if (current > 0) {
                        turns.add(current);
                        readingAtEndOfTurn.add(ctx.channel().config().isAutoRead());
                        current = 0;
                    }
                }
            });
            channel.writeInbound(Unpooled.wrappedBuffer(
                    PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER").toArray()));
            drainOutbound();
        }

        static byte[] messages(int from, int count) {
            PeerBytes p = PeerBytes.create();
            for (int i = from; i < from + count; i++) {
                p.frame(false, "m" + i);
            }
            return p.toArray();
        }

        void drainOutbound() {
            Object o;
            while ((o = channel.readOutbound()) != null) {
                ReferenceCountUtil.release(o);
            }
        }

        @Override
        public void close() {
            drainOutbound();
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void aBacklogIsDecodedInTurnsOfTheQuotaAndReadingResumesAfterTheLast() {
        try (Harness h = new Harness(32)) {
            // One read holding 100 messages; then the loop's next turns.
            h.channel.writeInbound(Unpooled.wrappedBuffer(Harness.messages(0, 100)));
            for (int turn = 0; turn < 10 && ReadGate.isPaused(h.channel, ReadGate.TURN); turn++) {
                h.channel.runScheduledPendingTasks();
            }
            assertEquals(List.of(32, 32, 32, 4), h.turns, "messages per turn");
            assertEquals(List.of(false, false, false, true), h.readingAtEndOfTurn,
                    "reading is paused while a backlog waits, and on again after the last turn");
            assertEquals(100, h.bodies.size());
            for (int i = 0; i < 100; i++) {
                assertEquals("m" + i, h.bodies.get(i), "order kept across turns");
            }
            assertFalse(ReadGate.isPaused(h.channel, ReadGate.TURN));
        }
    }

    @Test
    void aBacklogWaitsForTheLoopsNextTurnNotForAnotherRead() {
        try (Harness h = new Harness(32)) {
            // Fire the read without letting the loop run its tasks: only the first turn is decoded.
            h.channel.pipeline().fireChannelRead(Unpooled.wrappedBuffer(Harness.messages(0, 70)));
            h.channel.pipeline().fireChannelReadComplete();
            assertEquals(List.of(32), h.turns);
            assertTrue(ReadGate.isPaused(h.channel, ReadGate.TURN), "no more reading until the next turn");
            h.channel.runScheduledPendingTasks();
            assertEquals(List.of(32, 32), h.turns);
            h.channel.runScheduledPendingTasks();
            assertEquals(List.of(32, 32, 6), h.turns);
            assertFalse(ReadGate.isPaused(h.channel, ReadGate.TURN));
            assertTrue(h.channel.config().isAutoRead());
        }
    }

    @Test
    void messagesWaitingForTheirTurnAreDeliveredWhenThePeerCloses() {
        try (Harness h = new Harness(32)) {
            h.channel.pipeline().fireChannelRead(Unpooled.wrappedBuffer(Harness.messages(0, 100)));
            h.channel.pipeline().fireChannelReadComplete();
            assertEquals(32, h.bodies.size());
            h.channel.unsafe().close(h.channel.voidPromise());
            h.channel.runPendingTasks();
            assertEquals(100, h.bodies.size(), "what arrived before the close is not lost");
            assertEquals("m99", h.bodies.get(99));
        }
    }

    @Test
    void shortReadsStartANewTurnEachTime() {
        try (Harness h = new Harness(32)) {
            for (int r = 0; r < 5; r++) {
                h.channel.writeInbound(Unpooled.wrappedBuffer(Harness.messages(r * 20, 20)));
            }
            assertEquals(List.of(20, 20, 20, 20, 20), h.turns,
                    "the count starts again at the end of each read, so steady small reads never wait");
        }
    }

    @Test
    void zeroMeansNoLimit() {
        try (Harness h = new Harness(0)) {
            h.channel.writeInbound(Unpooled.wrappedBuffer(Harness.messages(0, 1000)));
            assertEquals(List.of(1000), h.turns);
        }
    }
}
