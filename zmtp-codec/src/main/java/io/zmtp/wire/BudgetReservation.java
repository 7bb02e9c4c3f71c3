package io.zmtp.wire;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * What one connection has reserved of its socket's {@link InboundBudget} (event loop only): after
 * each read the codec reserves what it holds of an unfinished message, and while the budget is
 * overdrawn a connection holding more than {@link InboundBudget#SMALL_HOLDING} pauses reading
 * ({@link ReadGate#BUDGET}) until other connections release theirs.
 */
final class BudgetReservation {
    private static final PeerFailureLog log = PeerFailureLog.get(BudgetReservation.class);

    private final Connection connection;
    private final ChannelHandlerContext ctx;
    private final InboundBudget budget;
    private long held;
    /** Resumes reading once the budget frees up (registered while paused for it). */
    private Runnable wake;
    /** From a pause until the unfinished message is done: looks whether the peer has closed ({@link InboundBudget#peerClosed()}). */
    private ScheduledFuture<?> probe;
    /** The peer has closed: read what is left, budget or not, to the end of the stream. */
    private boolean draining;

    BudgetReservation(Connection connection, InboundBudget budget) {
        this.connection = connection;
        this.ctx = connection.context();
        this.budget = budget;
    }

    /** Reserves {@code bytes} in all (replacing the previous reservation), pausing if need be. */
    void hold(long bytes) {
        budget.change(bytes - held);
        held = bytes;
        if (bytes <= InboundBudget.SMALL_HOLDING) {
            stopProbe();
        }
        if (bytes > InboundBudget.SMALL_HOLDING && budget.overdrawn() && wake == null && !draining) {
            ReadGate.pause(ctx.channel(), ReadGate.BUDGET);
            EventExecutor loop = ctx.executor();
            Runnable w = new Runnable() {
                @Override
                public void run() {
                    if (loop.inEventLoop()) {
                        resume(this);
                    } else {
                        loop.execute(() -> resume(this));
                    }
                }
            };
            wake = w;
            budget.await(w);
            Predicate<Channel> peerClosed = budget.peerClosed();
            if (peerClosed != null && probe == null) {
                probe = loop.scheduleAtFixedRate(() -> lookAtPeer(peerClosed),
                        InboundBudget.PROBE_MILLIS, InboundBudget.PROBE_MILLIS, TimeUnit.MILLISECONDS);
            }
        }
    }

    /**
     * A connection that was paused and still holds a large unfinished message: once its peer has
     * closed, it reads what is left whatever the budget, as Netty's epoll channel does; if the
     * channel has not come to its end by the next look, it is closed. (Over io_uring a channel
     * paused in the middle of a read does not always read again when resumed, Netty 4.2.18, so
     * the looks go on after a resume too, until the message is done or the connection closes.)
     */
    private void lookAtPeer(Predicate<Channel> peerClosed) {
        Channel ch = ctx.channel();
        if (draining) {
            stopProbe();
            if (ch.isOpen()) {
                log.debug("{}: its peer closed while it held an unfinished message past the inbound budget,"
                        + " and the end of the stream did not come; closing", ch);
                ch.close();
            }
        } else if (peerClosed.test(ch)) {
            draining = true;
            if (wake != null) {
                budget.cancel(wake);
                wake = null;
            }
            if (!connection.closed()) {
                ReadGate.resume(ch, ReadGate.BUDGET);
            }
        }
    }

    private void resume(Runnable w) {
        if (wake != w) {
            return;
        }
        wake = null;
        if (!connection.closed()) {
            ReadGate.resume(ctx.channel(), ReadGate.BUDGET);
        }
    }

    /** Whether reading is paused for the budget. */
    boolean paused() {
        return wake != null;
    }

    /** Returns the whole reservation (the connection closed). */
    void release() {
        if (wake != null) {
            budget.cancel(wake);
            wake = null;
        }
        stopProbe();
        budget.change(-held);
        held = 0;
    }

    private void stopProbe() {
        if (probe != null) {
            probe.cancel(false);
            probe = null;
        }
    }

    /** The bytes reserved. */
    long held() {
        return held;
    }
}
