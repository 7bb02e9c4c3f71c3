package io.zmtp.patterns.tripping;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.Promise;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.patterns.kit.PatternClock;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The round-trip demonstrator's client: a DEALER with id "C". Synchronous calls send one
 * request and wait for its reply; asynchronous calls send them all, then receive them all.
 * Each comes in two forms: from a user thread through {@link BlockingSocket} (as the guide's
 * client), and as a reactor on the socket's event loop. The elapsed times are real-time
 * measurements, read from the kit's system clock ({@link PatternClock#system()}) on the socket's loop.
 */
public final class TrippingClient implements AutoCloseable {
    private static final byte[] HELLO = "hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /**
     * The reactor's request body: never released; each request refers to it
     * ({@link ZmtpMessage#ofShared}: no copy and no buffer object per request), so the reactor
     * client makes no garbage per call however many requests are in flight.
     */
    private static final ByteBuf HELLO_FRAME = PooledByteBufAllocator.DEFAULT.directBuffer(HELLO.length).writeBytes(HELLO);
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ZmtpContext ctx;
    private final String brokerFrontend;
    private final SocketOptions options;
    private BlockingSocket blocking;
    private ZmtpSocket reactor;

    public TrippingClient(ZmtpContext ctx, String brokerFrontend) {
        this(ctx, brokerFrontend, SocketOptions.DEFAULTS);
    }

    /**
     * A client whose DEALER takes these options (a CURVE client, say), with the identity "C" and
     * high-water marks of 1,000,000 on top (no asynchronous call waits for room).
     */
    public TrippingClient(ZmtpContext ctx, String brokerFrontend, SocketOptions options) {
        this.ctx = ctx;
        this.brokerFrontend = brokerFrontend;
        this.options = options.toBuilder().identity("C").hwm(1_000_000).build();
    }

    private BlockingSocket blocking() {
        if (blocking == null) {
            blocking = ctx.blocking(SocketType.DEALER, options);
            blocking.connect(brokerFrontend);
            Connected.await(blocking.socket());
        }
        return blocking;
    }

    /** Sends {@code n} requests one at a time from this thread; returns elapsed nanoseconds. */
    public long synchronous(int n) {
        BlockingSocket c = blocking();
        LoopClock clock = stopwatch(c.socket());
        long start = clock.nanoTime();
        for (int i = 0; i < n; i++) {
            c.send(ZmtpMessage.of(HELLO));
            ZmtpMessage reply = c.receive(WAIT);
            if (reply == null) {
                throw new IllegalStateException("no reply within " + WAIT);
            }
            reply.release();
        }
        return clock.nanoTime() - start;
    }

    /** Sends {@code n} requests from this thread, then receives {@code n} replies; elapsed ns. */
    public long asynchronous(int n) {
        BlockingSocket c = blocking();
        LoopClock clock = stopwatch(c.socket());
        long start = clock.nanoTime();
        for (int i = 0; i < n; i++) {
            c.send(ZmtpMessage.of(HELLO));
        }
        for (int i = 0; i < n; i++) {
            ZmtpMessage reply = c.receive(WAIT);
            if (reply == null) {
                throw new IllegalStateException("reply " + i + " of " + n + " did not come within " + WAIT);
            }
            reply.release();
        }
        return clock.nanoTime() - start;
    }

    private ZmtpSocket reactor() {
        if (reactor == null) {
            reactor = ctx.socket(SocketType.DEALER, options);
            reactor.connect(brokerFrontend).syncUninterruptibly();
            Connected.await(reactor);
        }
        return reactor;
    }

    /** Synchronous calls driven on the socket's event loop: each reply sends the next request. */
    public long synchronousReactor(int n) {
        ZmtpSocket c = reactor();
        Promise<Long> done = c.eventLoop().newPromise();
        int[] left = {n};
        LoopClock clock = stopwatch(c);
        long start = clock.nanoTime();
        c.onMessage(m -> {
            m.release();
            if (--left[0] == 0) {
                done.setSuccess(clock.nanoTime() - start);
            } else {
                sendOnLoop(c, ZmtpMessage.ofShared(HELLO_FRAME));
            }
        });
        c.inLoop(() -> sendOnLoop(c, ZmtpMessage.ofShared(HELLO_FRAME)));
        return done.syncUninterruptibly().getNow();
    }

    /**
     * Asynchronous calls driven on the event loop: all requests sent, replies counted. The
     * requests go out in turns of the socket's {@link SocketOptions#messagesPerTurn}, the next
     * turn a zero-delay scheduled task as the decoder's turns are (ARCHITECTURE, "Turns"): each
     * turn is flushed, and the loop polls, before the next, so the broker starts on the first
     * requests while the rest are still being written: about a tenth to a fifth more calls per
     * second than one task for the whole burst, over tcp and inproc (benchmarks/RESULTS.md). The
     * next turn given to {@code execute} instead ran within the same run of tasks.
     */
    public long asynchronousReactor(int n) {
        ZmtpSocket c = reactor();
        Promise<Long> done = c.eventLoop().newPromise();
        int[] left = {n};
        LoopClock clock = stopwatch(c);
        long start = clock.nanoTime();
        c.onMessage(m -> {
            m.release();
            if (--left[0] == 0) {
                done.setSuccess(clock.nanoTime() - start);
            }
        });
        int perTurn = c.options().messagesPerTurn() == 0 ? n : c.options().messagesPerTurn();
        c.inLoop(new Runnable() {
            private int sent;

            @Override
            public void run() {
                int end = Math.min(n, sent + perTurn);
                for (; sent < end; sent++) {
                    sendOnLoop(c, ZmtpMessage.ofShared(HELLO_FRAME));
                }
                if (sent < n) {
                    c.eventLoop().schedule(this, 0, TimeUnit.NANOSECONDS);
                }
            }
        });
        return done.syncUninterruptibly().getNow();
    }

    /** The real time, as the socket's loop reads it. */
    private static LoopClock stopwatch(ZmtpSocket socket) {
        return PatternClock.system().on(socket.eventLoop());
    }

    /** On the loop: the non-blocking send, or a send that waits when a peer is at its mark. */
    private static void sendOnLoop(ZmtpSocket c, ZmtpMessage m) {
        if (!c.trySend(m)) {
            c.send(m);
        }
    }

    @Override
    public void close() {
        if (blocking != null) {
            blocking.close(Duration.ZERO);
        }
        if (reactor != null) {
            reactor.close(Duration.ZERO);
        }
    }
}
