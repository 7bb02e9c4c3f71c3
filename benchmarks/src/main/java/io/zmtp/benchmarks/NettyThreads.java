package io.zmtp.benchmarks;

import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A JMH executor whose worker threads are Netty {@code FastThreadLocalThread}s, like the event
 * loop threads the codec runs on in real use. Netty 4.2 gives its object pools and allocator
 * thread caches only to such threads, so a codec benchmark on JMH's plain threads would measure
 * allocations that never happen on an event loop. Used with
 * {@code -Djmh.executor=CUSTOM -Djmh.executor.class=io.zmtp.benchmarks.NettyThreads}.
 */
public final class NettyThreads extends ThreadPoolExecutor {
    public NettyThreads(int maxThreads, String prefix) {
        super(maxThreads, maxThreads, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(),
                new DefaultThreadFactory(prefix, true));
    }
}
