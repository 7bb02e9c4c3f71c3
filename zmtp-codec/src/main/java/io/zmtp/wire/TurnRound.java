package io.zmtp.wire;

import io.netty.util.concurrent.FastThreadLocal;

/**
 * The connections of one event loop that wait for their next decoding turn, and the quota each
 * gets: a connection decodes up to its {@code messagesPerTurn} per turn while few are waiting, and
 * when more than {@link #FULL_TURNS} wait at once they share a round of {@code FULL_TURNS x
 * messagesPerTurn} messages, at least {@link #MIN_TURN} each. So a round of the loop, in which
 * every waiting connection has its turn once, stays about as long however many peers flood it,
 * and a quiet peer of the same loop waits about one such round. Counted per event loop thread (a
 * connection only ever decodes on its own loop); event loop only.
 */
final class TurnRound {
    /** How many connections may wait with a full turn each before they share a round. */
    static final int FULL_TURNS = 32;
    /** The smallest turn a waiting connection gets, however many wait. */
    static final int MIN_TURN = 8;

    private static final FastThreadLocal<int[]> WAITING = new FastThreadLocal<>() {
        @Override
        protected int[] initialValue() {
            return new int[1];
        }
    };

    private TurnRound() {
    }

    /** The quota of a turn on this thread's loop, for a connection allowed {@code messagesPerTurn}. */
    static int quota(int messagesPerTurn) {
        int waiting = WAITING.get()[0];
        if (waiting <= FULL_TURNS) {
            return messagesPerTurn;
        }
        return Math.max(Math.min(MIN_TURN, messagesPerTurn), (int) ((long) messagesPerTurn * FULL_TURNS / waiting));
    }

    /** A connection of this thread's loop now waits for its next turn. */
    static void waiting() {
        WAITING.get()[0]++;
    }

    /** A connection of this thread's loop no longer waits (its turn came, or it closed). */
    static void done() {
        int[] w = WAITING.get();
        if (w[0] > 0) {
            w[0]--;
        }
    }

    /** Connections waiting on this thread's loop (for tests). */
    static int waitingNow() {
        return WAITING.get()[0];
    }
}
