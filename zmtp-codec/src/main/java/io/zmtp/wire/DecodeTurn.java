package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

import java.util.concurrent.TimeUnit;

/**
 * One connection's turns of its event loop ({@link ZmtpOptions#messagesPerTurn()}): how many
 * messages (and commands without output) it decoded in this turn, and whether the turn is over
 * with bytes left to decode. Then reading pauses ({@link ReadGate#TURN}) and the next turn is a
 * zero-delay <em>scheduled</em> task, which Netty takes into its task queue only when a task run
 * starts, so the turn comes after the other connections of this I/O pass had theirs (and a turn
 * scheduled from a turn, after the next poll). A task given to {@code execute} would run within
 * the current task run: Netty runs the tasks added while it runs tasks, for up to a second, so a
 * connection that resubmitted itself would keep its turn and starve the poll. How many messages a
 * turn holds when many connections wait is {@link TurnRound}'s to say. Event loop only.
 */
final class DecodeTurn {
    private final ChannelHandlerContext ctx;
    private final int perTurn;
    private final Runnable next;
    /** Messages and commands decoded in the current turn; negative: no quota (the connection closed). */
    private int decoded;
    /** The turn's messages are decoded: the rest waits, unread, for {@link #next}. */
    private boolean over;

    /** @param next decodes the next turn (the codec's), run once a turn is over */
    DecodeTurn(ChannelHandlerContext ctx, int perTurn, Runnable next) {
        this.ctx = ctx;
        this.perTurn = perTurn;
        this.next = next;
    }

    /** Whether this turn is over: what was read waits for the next one. */
    boolean over() {
        return over;
    }

    /** Counts {@code n} decoded against the quota; ends the turn when it is used up and {@code in} has more. */
    void count(ByteBuf in, int n) {
        if (perTurn <= 0 || decoded < 0) {
            return;
        }
        decoded += n;
        if (decoded >= TurnRound.quota(perTurn) && in.isReadable()) {
            over = true;
            TurnRound.waiting();
            ReadGate.pause(ctx.channel(), ReadGate.TURN);
            ctx.executor().schedule(next, 0, TimeUnit.NANOSECONDS);
        }
    }

    /** The next turn starts (false: none was waiting). */
    boolean begin() {
        if (!over) {
            return false;
        }
        over = false;
        TurnRound.done();
        decoded = 0;
        return true;
    }

    /** The turn's decoding is done: reading resumes unless it used up its quota again. */
    void resumeReading() {
        if (!over) {
            decoded = 0;
            ReadGate.resume(ctx.channel(), ReadGate.TURN);
        }
    }

    /** The end of the connection's reads in this pass of the loop: its next reads start a new turn. */
    void readsDone() {
        if (!over) {
            decoded = 0;
        }
    }

    /**
     * The connection closed while messages it had read waited for their turn: they arrived before
     * the close and are decoded now, with no quota. False when none waited.
     */
    boolean lastTurn() {
        if (!over) {
            return false;
        }
        over = false;
        TurnRound.done();
        decoded = Integer.MIN_VALUE;
        return true;
    }
}
