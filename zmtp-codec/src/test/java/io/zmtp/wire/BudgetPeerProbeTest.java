package io.zmtp.wire;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.zmtp.testing.PeerBytes;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link InboundBudget}'s probe for a transport whose paused channels may not come to the end of
 * the stream by themselves (io_uring): a connection paused for the budget asks it every
 * {@value InboundBudget#PROBE_MILLIS} ms whether its peer has closed; once it has, the connection
 * reads on whatever the budget, and one look later, still open, it is closed and its reservation
 * returned. On the embedded channel's clock, so the looks take no real time.
 */
class BudgetPeerProbeTest {
    /** The socket's budget: two connections' unfinished frames overdraw it. */
    static final long LIMIT = 2 * InboundBudget.SMALL_HOLDING;
    /** A frame header for 120,000 bytes and 100,000 of them, never finished. */
    static final byte[] PART = PeerBytes.create().raw(0x02).raw(PeerBytes.hex("00 00 00 00 00 01 D4 C0"))
            .raw(new byte[100_000]).toArray();

    final AtomicBoolean peerGone = new AtomicBoolean();
    final AtomicInteger looks = new AtomicInteger();
    final InboundBudget budget = new InboundBudget(LIMIT, ch -> {
        looks.incrementAndGet();
        return peerGone.get();
    });

    final java.util.List<EmbeddedChannel> channels = new java.util.ArrayList<>();
    /** What the other connection holds of the budget. */
    long otherHolds;

    /**
     * A connection of the socket whose budget is {@code b}, paused for it: another connection of
     * the same socket first holds an unfinished frame that leaves too little for this one's.
     */
    EmbeddedChannel paused(InboundBudget b) {
        EmbeddedChannel other = connected(b);
        other.writeInbound(Unpooled.wrappedBuffer(PART));
        assertFalse(ReadGate.isPaused(other, ReadGate.BUDGET), "the first fits the budget");
        otherHolds = b.reserved();
        EmbeddedChannel ch = connected(b);
        ch.writeInbound(Unpooled.wrappedBuffer(PART));
        assertTrue(ReadGate.isPaused(ch, ReadGate.BUDGET), "the second overdraws it: paused");
        assertTrue(b.reserved() > b.limit());
        return ch;
    }

    @org.junit.jupiter.api.AfterEach
    void closeAll() {
        for (EmbeddedChannel ch : channels) {
            ch.finishAndReleaseAll();
        }
    }

    EmbeddedChannel connected(InboundBudget b) {
        ZmtpOptions options = ZmtpOptions.builder(SocketType.DEALER).maxMessageSize(1 << 20).inboundBudget(b).build();
        EmbeddedChannel ch = new EmbeddedChannel(new ZmtpCodec(options));
        channels.add(ch);
        ch.writeInbound(Unpooled.wrappedBuffer(PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER").toArray()));
        drain(ch);
        return ch;
    }

    static void drain(EmbeddedChannel ch) {
        Object o;
        while ((o = ch.readOutbound()) != null) {
            ReferenceCountUtil.release(o);
        }
        while ((o = ch.readInbound()) != null) {
            ReferenceCountUtil.release(o);
        }
    }

    static void advance(EmbeddedChannel ch, long ms) {
        ch.advanceTimeBy(ms, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        ch.runPendingTasks();
    }

    @Test
    void aPausedConnectionWhosePeerClosedReadsOnThenIsClosed() {
        EmbeddedChannel ch = paused(budget);
        advance(ch, InboundBudget.PROBE_MILLIS);
        advance(ch, InboundBudget.PROBE_MILLIS);
        assertEquals(2, looks.get(), "a look a second while the peer is there");
        assertTrue(ReadGate.isPaused(ch, ReadGate.BUDGET), "still paused");
        assertTrue(ch.isOpen());

        peerGone.set(true);
        advance(ch, InboundBudget.PROBE_MILLIS);
        assertFalse(ReadGate.isPaused(ch, ReadGate.BUDGET), "the peer is gone: reading on, budget or not");
        assertTrue(ch.config().isAutoRead());
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[10_000])); // the frame still unfinished
        assertFalse(ReadGate.isPaused(ch, ReadGate.BUDGET), "not paused again while draining");
        assertTrue(ch.isOpen(), "the end of the stream may still come");

        advance(ch, InboundBudget.PROBE_MILLIS);
        assertFalse(ch.isOpen(), "no end of the stream by the next look: closed");
        assertEquals(otherHolds, budget.reserved(), "its reservation returned");
        int seen = looks.get();
        advance(ch, 5 * InboundBudget.PROBE_MILLIS);
        assertEquals(seen, looks.get(), "no more looks once closed");
    }

    @Test
    void aDrainingConnectionThatReachesTheEndOfTheStreamClosesAsAnyOther() {
        EmbeddedChannel ch = paused(budget);
        peerGone.set(true);
        advance(ch, InboundBudget.PROBE_MILLIS);
        assertTrue(ch.config().isAutoRead(), "draining");
        // the transport reads on and comes to the end of the stream
        ch.unsafe().close(ch.voidPromise());
        ch.runPendingTasks();
        assertFalse(ch.isOpen());
        assertEquals(otherHolds, budget.reserved(), "its reservation returned");
        int seen = looks.get();
        advance(ch, 3 * InboundBudget.PROBE_MILLIS);
        assertEquals(seen, looks.get(), "no looks after the close");
    }

    @Test
    void withoutAProbeAPausedConnectionWaitsForTheBudget() {
        EmbeddedChannel ch = paused(new InboundBudget(LIMIT));
        advance(ch, 10 * InboundBudget.PROBE_MILLIS);
        assertTrue(ReadGate.isPaused(ch, ReadGate.BUDGET), "epoll and NIO end the stream themselves");
        assertTrue(ch.isOpen());
    }
}
