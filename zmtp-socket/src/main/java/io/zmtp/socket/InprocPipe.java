package io.zmtp.socket;

import io.netty.util.ReferenceCountUtil;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpMetadata;
import io.zmtp.wire.ZmtpSubscription;
import io.zmtp.wire.ZmtpVersion;
import org.jctools.queues.SpscGrowableArrayQueue;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One end of an inproc:// connection: message objects pass to the other socket's event loop
 * as they are, with no encoding. Each end owns the queue of what it receives; the writer adds
 * to it from its own loop and schedules one drain task per batch (at flush), not per message.
 * The high-water mark is the writer's send mark plus the reader's receive mark, as in libzmq.
 *
 * <p>A message that passes between two event loops is not reused when it is released (see
 * {@link ZmtpMessage#doNotReuse()}; {@code -Dzmtp.messagePool.reuseAcrossThreads=true} turns
 * that off): it dies young, where G1 makes the other thread's stores into it cheap.
 *
 * <p>Closing is a two-step hand-shake so every queued message is delivered or released exactly
 * once: the closing end detaches, the other end delivers what it holds and detaches, then the
 * closing end releases what is left in its own queue.
 */
final class InprocPipe extends Pipe {
    private static final int DRAIN_BATCH = 1024;

    /** The queue's first ring; it doubles when a burst fills it. */
    private static final int INITIAL_QUEUE = 256;
    /** The most the queue can ever hold (the largest ring its library makes). */
    private static final int MAX_QUEUE = 1 << 30;

    private InprocPipe peer;
    /**
     * What the peer wrote to us, in order. A ring that doubles when full and keeps its size:
     * once it has grown to hold a burst, messages pass with no allocation (a queue of linked
     * chunks would make a new chunk every few hundred messages, about 4 bytes of garbage per
     * message). The ring holds references only, so the most it keeps is about four bytes per
     * message of the largest burst that was queued, itself bounded by the high-water marks.
     */
    private final SpscGrowableArrayQueue<Object> inbound = new SpscGrowableArrayQueue<>(INITIAL_QUEUE, MAX_QUEUE);
    /**
     * Messages in {@link #inbound} as the reader counts them: the writer adds its messages at each
     * flush (one atomic add per batch, not per message), the reader subtracts what it took.
     */
    private final AtomicInteger inboundCount = new AtomicInteger();
    /** Writer side: messages offered to the peer's queue since our last flush, not yet in its count. */
    private int unflushed;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final int capacity;
    /**
     * The two ends are on different event loops: a message received here came from another thread
     * and is not reused when released ({@link ZmtpMessage#doNotReuse()}), unless
     * {@link ZmtpMessage#REUSE_ACROSS_THREADS} says otherwise.
     */
    private final boolean arrivalsNotReused;
    private volatile boolean writerWaiting;
    private boolean paused;
    private boolean closed;
    private final Runnable drainTask = this::drain;

    private InprocPipe(SocketCore core, ZmtpMetadata peerMetadata, String endpoint, int capacity,
                       boolean arrivalsNotReused) {
        super(core, peerMetadata, ZmtpVersion.V3_1, endpoint);
        this.capacity = capacity;
        this.arrivalsNotReused = arrivalsNotReused;
    }

    /**
     * Connects {@code connector} to {@code binder} (any thread); the connector's end gets
     * {@code routingId} as its connect routing id (a PEER's kept id), or null.
     */
    static void link(SocketCore connector, SocketCore binder, String endpoint, byte[] routingId) {
        if (!connector.type().isCompatibleWith(binder.type())) {
            String reason = "socket types " + connector.type() + " and " + binder.type() + " cannot talk";
            connector.inLoop(() -> connector.monitor().event(SocketEvent.Type.HANDSHAKE_FAILED, endpoint, null, reason, null));
            binder.inLoop(() -> binder.monitor().event(SocketEvent.Type.HANDSHAKE_FAILED, endpoint, null, reason, null));
            return;
        }
        ZmtpMetadata binderMeta = binder.zmtpOptions().localMetadata();
        ZmtpMetadata connectorMeta = connector.zmtpOptions().localMetadata();
        boolean arrivalsNotReused = connector.loop() != binder.loop() && !ZmtpMessage.REUSE_ACROSS_THREADS;
        InprocPipe c = new InprocPipe(connector, binderMeta, endpoint,
                marks(binder.options().sendHwm(), connector.options().receiveHwm()), arrivalsNotReused);
        InprocPipe b = new InprocPipe(binder, connectorMeta, endpoint,
                marks(connector.options().sendHwm(), binder.options().receiveHwm()), arrivalsNotReused);
        c.peer = b;
        b.peer = c;
        c.connectRoutingId = routingId;
        binder.inLoop(() -> {
            binder.monitor().event(SocketEvent.Type.ACCEPTED, endpoint, null, null, null);
            binder.events().attach(b);
            binder.monitor().peerEvent(SocketEvent.Type.HANDSHAKE_SUCCEEDED, endpoint, null, null, null, b.routingId());
        });
        connector.inLoop(() -> {
            connector.monitor().event(SocketEvent.Type.CONNECTED, endpoint, null, null, null);
            connector.events().attach(c);
            connector.monitor().peerEvent(SocketEvent.Type.HANDSHAKE_SUCCEEDED, endpoint, null, null, null, c.routingId());
        });
    }

    /** A writer's send mark plus its reader's receive mark, as one capacity (no overflow). */
    static int marks(int sendHwm, int receiveHwm) {
        return (int) Math.min(Integer.MAX_VALUE, (long) sendHwm + receiveHwm);
    }

    // ---------------------------------------------------------------- writer side (our loop)

    @Override
    boolean hasRoom() {
        if (peer.inboundCount.get() + unflushed < peer.capacity) {
            return true;
        }
        publishUnflushed();
        peer.writerWaiting = true;
        return peer.inboundCount.get() < peer.capacity;
    }

    /** Adds what we offered since the last flush to the peer's count. */
    private void publishUnflushed() {
        if (unflushed != 0) {
            peer.inboundCount.addAndGet(unflushed);
            unflushed = 0;
        }
    }

    @Override
    void write(Object msg) {
        if (closed) {
            ReferenceCountUtil.release(msg);
            return;
        }
        core.counters().writing(msg);
        Object m = msg;
        if (msg instanceof ZmtpMessage && ((ZmtpMessage) msg).refCnt() > 1) {
            // Shared with other peers (a PUB's fan-out): the reader gets a message of its own.
            ZmtpMessage shared = (ZmtpMessage) msg;
            m = shared.retainedDuplicate();
            shared.release();
        }
        if (!peer.inbound.offer(m)) {
            // 2^30 messages queued and not read: far past any mark, but never lost silently.
            ReferenceCountUtil.release(m);
            core.counters().hwmDrop();
            return;
        }
        unflushed++;
        core.flushes().markDirty(this);
    }

    @Override
    void flush() {
        publishUnflushed();
        peer.scheduleDrain();
    }

    // ---------------------------------------------------------------- reader side (our loop)

    private void scheduleDrain() {
        if (drainScheduled.compareAndSet(false, true)) {
            core.loop().execute(drainTask);
        }
    }

    private void drain() {
        drainScheduled.set(false);
        if (paused || closed) {
            return;
        }
        int n = 0;
        Object m;
        while (!paused && n < DRAIN_BATCH && (m = inbound.poll()) != null) {
            n++;
            deliver(m);
        }
        afterTaking(n);
        if (!paused && !inbound.isEmpty()) {
            scheduleDrain();
        }
    }

    private void deliver(Object m) {
        if (!attached) {
            ReferenceCountUtil.release(m);
        } else if (m instanceof ZmtpMessage) {
            ZmtpMessage msg = (ZmtpMessage) m;
            if (arrivalsNotReused) {
                msg.doNotReuse();
            }
            core.counters().received(msg);
            core.events().received(this, msg.properties(peerMetadata()));
        } else if (m instanceof ZmtpSubscription) {
            core.events().subscriptionReceived(this, (ZmtpSubscription) m);
        } else {
            ReferenceCountUtil.release(m);
        }
    }

    private void afterTaking(int n) {
        if (n == 0) {
            return;
        }
        int left = inboundCount.addAndGet(-n);
        if (writerWaiting && left < capacity) {
            writerWaiting = false;
            InprocPipe w = peer;
            w.core.inLoop(() -> {
                if (w.attached) {
                    w.core.events().roomAvailable(w);
                }
            });
        }
    }

    @Override
    void setReading(boolean on) {
        paused = !on;
        if (on && !inbound.isEmpty()) {
            scheduleDrain();
        }
    }

    // ---------------------------------------------------------------- closing

    @Override
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        RoutingId id = routingId(); // detaching clears it
        core.events().detach(this);
        core.monitor().peerEvent(SocketEvent.Type.DISCONNECTED, endpoint(), null, "closed", null, id);
        InprocPipe p = peer;
        p.core.inLoop(p::peerClosed);
    }

    @Override
    void closeAfterFlush(Runnable done) {
        // What we wrote is already in the peer's queue; the peer delivers it before it detaches.
        close();
        done.run();
    }

    /** The other end closed: deliver what it sent, detach, and let it release what we sent. */
    private void peerClosed() {
        if (!closed) {
            int n = 0;
            Object m;
            while ((m = inbound.poll()) != null) {
                n++;
                deliver(m);
            }
            afterTaking(n);
            closed = true;
            RoutingId id = routingId();
            core.events().detach(this);
            core.monitor().peerEvent(SocketEvent.Type.DISCONNECTED, endpoint(), null, "peer closed", null, id);
        } else {
            releaseInbound();
        }
        InprocPipe p = peer;
        p.core.inLoop(p::releaseInbound);
    }

    private void releaseInbound() {
        Object m;
        while ((m = inbound.poll()) != null) {
            inboundCount.decrementAndGet();
            ReferenceCountUtil.release(m);
        }
    }
}
