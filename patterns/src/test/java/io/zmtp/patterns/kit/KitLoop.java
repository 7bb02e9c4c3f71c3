package io.zmtp.patterns.kit;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;

import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/** One event loop for a kit test, and a way to run code on it and wait. */
final class KitLoop implements AutoCloseable {
    final EventLoop loop = new DefaultEventLoop();

    <V> V call(Callable<V> c) {
        try {
            return loop.submit(c).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    void run(Runnable r) {
        call(() -> {
            r.run();
            return null;
        });
    }

    @Override
    public void close() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
