package io.zmtp.socket;

import io.netty.channel.Channel;
import io.netty.channel.DefaultMaxMessagesRecvByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.ServerChannelRecvByteBufAllocator;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The connections a bound endpoint has accepted and not yet set up, and the turns of the event
 * loop that set them up ({@link SocketOptions#acceptQueue()}).
 *
 * <p>Why it exists: the kernel holds a listening socket's new connections in a queue of at most
 * {@code net.core.somaxconn} (4,096 on recent Linux) and drops what arrives while it is full;
 * those peers try again a second later, then three. A restarted server meets all its peers at
 * once, and setting a connection up (admission, pipeline, registration, the greeting's write)
 * costs many times what accepting it does, most of all while the JVM is still compiling. Set up
 * as each is accepted, 10,000 peers connecting within 0.2 s overflowed the kernel's queue by
 * some 5,600 and were all served only after 2.4-5 s. Accepted as fast as accept(2) returns them
 * and set up here, a slice per turn between the turns' I/O, they were all handshaken after
 * 1.1-1.5 s with none dropped, in 19 runs of 20 (benchmarks/RESULTS.md, 2026-12-07). That the
 * twentieth overflowed was no fluke: the kernel's queue came near its bound in every storm, the
 * accepts standing still for 80-93 ms of the first 200 while Linux grew the process's
 * descriptor table; a bind now grows it beforehand ({@link io.zmtp.transport.DescriptorTable}),
 * and the queue filled half as far.
 *
 * <p>Accepting fast needs one more thing: Netty 4.2's epoll listener stops after one connection
 * per wake-up (it takes the descriptor accept(2) returns for a count of bytes read, which is
 * never the one byte it "attempted"), so a listener takes one connection per turn of the loop
 * however many wait; {@link #acceptMany} makes it read until accept(2) finds none, or
 * {@value #ACCEPTS_PER_READ}.
 *
 * <p>At its bound the queue stops the listener that filled it (the kernel queues the rest, and
 * drops past its own bound) and lets it accept again once half are set up. Call on the socket's
 * event loop only.
 */
final class AcceptQueue {
    /** How long one turn sets up connections, at most; each turn sets up at least one. */
    static final long TURN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Connections one read of a listener accepts at most. */
    static final int ACCEPTS_PER_READ = 1024;

    private final ArrayDeque<Channel> waiting = new ArrayDeque<>();
    /** Listeners stopped at the bound, to start again at half. */
    private final List<Channel> stopped = new ArrayList<>();
    private final EventLoop loop;
    private final int bound;
    private final Consumer<Channel> setUp;
    private final Runnable full;
    private boolean turnScheduled;

    /**
     * @param setUp sets up one accepted connection (or closes it); must not throw
     * @param full  called each time the queue reaches its bound and stops a listener
     */
    AcceptQueue(EventLoop loop, int bound, Consumer<Channel> setUp, Runnable full) {
        this.loop = loop;
        this.bound = bound;
        this.setUp = setUp;
        this.full = full;
    }

    /**
     * Makes {@code listener} accept until none wait, up to {@value #ACCEPTS_PER_READ} per read
     * and the queue's room, instead of Netty's one per wake-up over epoll (see above), or 16 over NIO.
     */
    void acceptMany(Channel listener) {
        RecvByteBufAllocator a = listener.config().getRecvByteBufAllocator();
        if (a instanceof DefaultMaxMessagesRecvByteBufAllocator m) {
            m.respectMaybeMoreData(false);   // read until accept(2) says there is none
            readSize(listener);
        }
    }

    /**
     * {@code listener}'s read ended: its next takes at most what the queue has room for. Over NIO
     * a read accepts all it will before it hands over the first, so stopping the listener at the
     * bound comes too late for that read; this keeps the bound there too.
     */
    void readDone(Channel listener) {
        readSize(listener);
    }

    private void readSize(Channel listener) {
        if (listener.config().getRecvByteBufAllocator() instanceof DefaultMaxMessagesRecvByteBufAllocator m) {
            m.maxMessagesPerRead(Math.max(1, Math.min(ACCEPTS_PER_READ, bound - waiting.size())));
        }
    }

    /**
     * For a listener that sets each connection up as it accepts it (ws:// and wss://, whose
     * connections only get an HTTP decoder until their upgrade request): up to {@code max}
     * connections per read, not Netty's one per wake-up over epoll.
     */
    static RecvByteBufAllocator readingUpTo(int max) {
        ServerChannelRecvByteBufAllocator a = new ServerChannelRecvByteBufAllocator();
        a.respectMaybeMoreData(false);
        a.maxMessagesPerRead(max);
        return a;
    }

    /** Takes a connection {@code listener} accepted, to be set up at the loop's next turn. */
    void add(Channel listener, Channel ch) {
        waiting.add(ch);
        if (waiting.size() >= bound && stop(listener)) {
            full.run();
        }
        if (!turnScheduled) {
            turnScheduled = true;
            // scheduled, not executed: it runs after the loop's next I/O, not in this turn's tasks
            loop.schedule(this::turn, 0, TimeUnit.NANOSECONDS);
        }
    }

    /** Closes the connections waiting (the endpoint is closing); they were never registered. */
    void closeAll() {
        Channel ch;
        while ((ch = waiting.poll()) != null) {
            ch.unsafe().closeForcibly();
        }
        stopped.clear();
    }

    private boolean stop(Channel listener) {
        if (!listener.config().isAutoRead()) {
            return false;
        }
        listener.config().setAutoRead(false);
        stopped.add(listener);
        return true;
    }

    private void turn() {
        turnScheduled = false;
        long start = System.nanoTime();
        Channel ch;
        while ((ch = waiting.poll()) != null) {
            setUp.accept(ch);
            if (System.nanoTime() - start >= TURN_NANOS) {
                break;
            }
        }
        if (!stopped.isEmpty() && waiting.size() <= bound / 2) {
            for (Channel l : stopped) {
                if (l.isOpen()) {
                    readSize(l);
                    l.config().setAutoRead(true);
                }
            }
            stopped.clear();
        }
        if (!waiting.isEmpty()) {
            turnScheduled = true;
            loop.schedule(this::turn, 0, TimeUnit.NANOSECONDS);
        }
    }
}
