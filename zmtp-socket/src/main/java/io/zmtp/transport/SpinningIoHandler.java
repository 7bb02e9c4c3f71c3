package io.zmtp.transport;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;

import java.time.Duration;

/**
 * An io_uring loop that looks for completions for a short while before it blocks, as
 * {@link SpinThenBlockStrategy} makes epoll and NIO loops do: Netty's io_uring handler takes no
 * select strategy, so this wraps the handler instead. A reply that completes within the window
 * is handled at once, instead of after the kernel has woken the thread, which is most of a
 * synchronous round trip on a virtual machine. A look that finds nothing to submit costs no
 * system call (the completion queue is memory shared with the kernel), so the spin is cheaper
 * than epoll's, which polls with epoll_wait.
 *
 * <p>The window opens only when the loop would block, and closes as soon as a task is handed to
 * the loop or a timer is due (the loop's context then says it cannot block). The loop yields the
 * processor between looks, so on a machine with few cores a spinning loop gives way to any thread
 * that has work. Zero turns it off: the handler blocks at once, Netty's behaviour.
 */
public final class SpinningIoHandler implements IoHandler {
    /** A look that never waits: the wrapped handler submits what is queued and takes what completed. */
    private static final IoHandlerContext LOOK = new IoHandlerContext() {
        @Override
        public boolean canBlock() {
            return false;
        }

        @Override
        public long delayNanos(long currentTimeNanos) {
            return 0;
        }

        @Override
        public long deadlineNanos() {
            return -1;
        }
    };

    private final IoHandler handler;
    private final long spinNanos;

    private SpinningIoHandler(IoHandler handler, long spinNanos) {
        this.handler = handler;
        this.spinNanos = spinNanos;
    }

    /** Handlers from {@code factory} whose loops look for {@code spin} before they block. */
    public static IoHandlerFactory factory(IoHandlerFactory factory, Duration spin) {
        long nanos = spin.toNanos();
        if (nanos <= 0) {
            return factory;
        }
        return new IoHandlerFactory() {
            @Override
            public IoHandler newHandler(io.netty.util.concurrent.ThreadAwareExecutor ioExecutor) {
                return new SpinningIoHandler(factory.newHandler(ioExecutor), nanos);
            }

            @Override
            public boolean isChangingThreadSupported() {
                return factory.isChangingThreadSupported();
            }
        };
    }

    @Override
    public int run(IoHandlerContext context) {
        if (!context.canBlock()) {
            return handler.run(context);
        }
        long deadline = System.nanoTime() + spinNanos;
        do {
            int handled = handler.run(LOOK);
            if (handled > 0 || !context.canBlock()) {
                return handled;
            }
            Thread.yield();
        } while (System.nanoTime() - deadline < 0);
        return handler.run(context);
    }

    @Override
    public void initialize() {
        handler.initialize();
    }

    @Override
    public void prepareToDestroy() {
        handler.prepareToDestroy();
    }

    @Override
    public void destroy() {
        handler.destroy();
    }

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
        return handler.register(handle);
    }

    @Override
    public void wakeup() {
        handler.wakeup();
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return handler.isCompatible(handleType);
    }
}
