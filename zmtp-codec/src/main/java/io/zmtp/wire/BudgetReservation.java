package io.zmtp.wire;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.EventExecutor;

/**
 * What one connection has reserved of its socket's {@link InboundBudget} (event loop only): after
 * each read the codec reserves what it holds of an unfinished message, and while the budget is
 * overdrawn a connection holding more than {@link InboundBudget#SMALL_HOLDING} pauses reading
 * ({@link ReadGate#BUDGET}) until other connections release theirs.
 */
final class BudgetReservation {
    private final Connection connection;
    private final ChannelHandlerContext ctx;
    private final InboundBudget budget;
    private long held;
    /** Resumes reading once the budget frees up (registered while paused for it). */
    private Runnable wake;

    BudgetReservation(Connection connection, InboundBudget budget) {
        this.connection = connection;
        this.ctx = connection.context();
        this.budget = budget;
    }

    /** Reserves {@code bytes} in all (replacing the previous reservation), pausing if need be. */
    void hold(long bytes) {
        budget.change(bytes - held);
        held = bytes;
        if (bytes > InboundBudget.SMALL_HOLDING && budget.overdrawn() && wake == null) {
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
        budget.change(-held);
        held = 0;
    }

    /** The bytes reserved. */
    long held() {
        return held;
    }
}
