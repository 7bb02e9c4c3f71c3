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

    /**
     * Commands count against the turn as messages do: a peer flooding PINGs, PONGs or unknown
     * commands (which produce no message) once kept its connection decoding everything it had
     * read, and the loop's other connections waited for all of it. (PONGs and unknown commands
     * here: a PING makes the codec write, and an embedded channel runs its scheduled tasks on a
     * write, so the next turn would come at once. PINGs are counted by the same line;
     * HostilePeerTest floods them over tcp.)
     */
    @Test
    void aCommandFloodIsDecodedInTurnsToo() {
        try (Harness h = new Harness(32)) {
            PeerBytes p = PeerBytes.create();
            for (int i = 0; i < 100; i++) {
                p.command(i % 2 == 0 ? "PONG" : "UNKNOWN", new byte[] {0, 0});
            }
            p.frame(false, "after the commands");
            h.channel.pipeline().fireChannelRead(Unpooled.wrappedBuffer(p.toArray()));
            h.channel.pipeline().fireChannelReadComplete();
            assertTrue(ReadGate.isPaused(h.channel, ReadGate.TURN), "the turn ended after 32 commands");
            assertEquals(List.of(), h.bodies, "the message after the commands waits for its turn");
            int turns = 1;
            while (ReadGate.isPaused(h.channel, ReadGate.TURN) && turns < 10) {
                h.channel.runScheduledPendingTasks();
                turns++;
            }
            assertEquals(4, turns, "100 commands and a message in turns of 32");
            assertEquals(List.of("after the commands"), h.bodies);
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
    void manyWaitingConnectionsShareARoundOfTheLoop() {
        // 64 connections of one loop (here: the test thread), each with a backlog of 300 messages,
        // read before any next turn runs: up to 32 wait with full turns of 128; beyond that they
        // share a round of 32 x 128 messages, at least 8 each.
        assertEquals(0, TurnRound.waitingNow(), "no wait left over by another test");
        List<Harness> all = new ArrayList<>();
        try {
            for (int i = 0; i < 64; i++) {
                Harness h = new Harness(128);
                all.add(h);
                h.channel.pipeline().fireChannelRead(Unpooled.wrappedBuffer(Harness.messages(0, 300)));
                h.channel.pipeline().fireChannelReadComplete();
            }
            assertEquals(64, TurnRound.waitingNow());
            assertEquals(List.of(128), all.get(0).turns, "few waiting: a full turn");
            assertEquals(List.of(128), all.get(32).turns, "the 33rd starts while 32 wait: still full");
            assertEquals(List.of(shared(33)), all.get(33).turns, "34th: 33 already wait, so 4096 / 33");
            assertEquals(List.of(shared(63)), all.get(63).turns, "64th: 4096 / 63");
            assertTrue(shared(63) < 128);
            for (int turn = 0; turn < 100 && TurnRound.waitingNow() > 0; turn++) {
                for (Harness h : all) {
                    h.channel.runScheduledPendingTasks();
                }
            }
            assertEquals(0, TurnRound.waitingNow(), "every connection's wait ended");
            for (Harness h : all) {
                assertEquals(300, h.bodies.size(), "every message delivered");
                assertTrue(h.channel.config().isAutoRead());
            }
        } finally {
            all.forEach(Harness::close);
        }
    }

    /**
     * A shared turn with {@code waiting} connections waiting: 4096 / waiting, rounded up to the
     * batches of {@link ZmtpCodec#DECODE_BATCH} messages the codec hands on.
     */
    private static int shared(int waiting) {
        int quota = 32 * 128 / waiting;
        return (quota + ZmtpCodec.DECODE_BATCH - 1) / ZmtpCodec.DECODE_BATCH * ZmtpCodec.DECODE_BATCH;
    }

    @Test
    void zeroMeansNoLimit() {
        try (Harness h = new Harness(0)) {
            h.channel.writeInbound(Unpooled.wrappedBuffer(Harness.messages(0, 1000)));
            assertEquals(List.of(1000), h.turns);
        }
    }
}
