package io.zmtp.transport;

import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.IntSupplier;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.netty.util.internal.ThreadExecutorMap;

import java.time.Duration;

/**
 * An event loop's way to wait for I/O: when it has nothing to do it keeps polling without
 * blocking for a short while before it blocks in epoll_wait (or select). A message that arrives
 * within that window is handled at once, instead of after the operating system has woken the
 * thread, which on a virtual machine costs tens of microseconds per hop of a round trip. The
 * window only starts after work, so an idle loop costs nothing; a loop that is never idle never
 * spins. Zero turns it off (Netty's default behaviour).
 *
 * <p>The poll yields the processor between looks, so on a machine with few cores a spinning loop
 * gives way to any thread that has work; and it stops as soon as a task is handed to the loop
 * (Netty sends no wake-up to a loop that is not blocked, so the spin must look for itself).
 */
public final class SpinThenBlockStrategy implements SelectStrategy {
    private final long spinNanos;

    public SpinThenBlockStrategy(Duration spin) {
        this.spinNanos = spin.toNanos();
    }

    public static SelectStrategyFactory factory(Duration spin) {
        return () -> new SpinThenBlockStrategy(spin);
    }

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        if (hasTasks) {
            return selectNow.get();
        }
        if (spinNanos <= 0) {
            return SelectStrategy.SELECT;
        }
        EventExecutor loop = ThreadExecutorMap.currentExecutor();
        SingleThreadEventExecutor tasks = loop instanceof SingleThreadEventExecutor ? (SingleThreadEventExecutor) loop : null;
        long deadline = System.nanoTime() + spinNanos;
        do {
            int ready = selectNow.get();
            if (ready > 0 || (tasks != null && tasks.pendingTasks() > 0)) {
                return ready;
            }
            Thread.yield();
        } while (System.nanoTime() < deadline);
        return SelectStrategy.SELECT;
    }
}
