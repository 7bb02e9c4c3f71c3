package io.zmtp.socket;

import io.zmtp.wire.ZmtpMessage;
import org.jctools.queues.SpscUnboundedArrayQueue;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The messages a {@link BlockingSocket}'s socket received, on their way from the event loop (the
 * one producer) to the user thread (the one consumer) through a single-producer queue. The loop
 * wakes the user thread only when it is parked waiting ({@link #receiver}), and signals the
 * pollers that watch the socket. When the user thread falls behind by the receive limit, reading
 * from peers pauses ({@link ReadPause#CONSUMER}) until it has taken half of what waits. With
 * CONFLATE only the newest message waits.
 *
 * <p>The queue has one consumer at a time: the user thread taking a message, or the release after
 * the socket closed. Both take {@link #busy} first; whichever finds the other holding it leaves
 * the release to it (no lock, one uncontended CAS per take).
 */
final class BlockingInbox {
    private final SocketCore socket;
    private final ReceivePath receiving;
    private final SpscUnboundedArrayQueue<ZmtpMessage> queue = new SpscUnboundedArrayQueue<>(1024);
    private final AtomicInteger count = new AtomicInteger();
    private final AtomicBoolean consumerPaused = new AtomicBoolean();
    /** Held by whoever polls {@link #queue}; see the class comment. */
    private final AtomicBoolean busy = new AtomicBoolean();
    private volatile boolean closed;
    /** CONFLATE: the one message waiting for the user thread, replaced by each newer one. */
    private final AtomicReference<ZmtpMessage> latest = new AtomicReference<>();
    /**
     * The user thread while it is parked waiting for a message, else null; the loop takes it out
     * when it wakes it ({@link #wakeReceiver}).
     */
    volatile Thread receiver;
    /** What wakes each poller that watches the socket ({@link ZmtpPoller}). */
    private final CopyOnWriteArrayList<Runnable> pollers = new CopyOnWriteArrayList<>();

    BlockingInbox(SocketCore socket, ReceivePath receiving) {
        this.socket = socket;
        this.receiving = receiving;
    }

    /** On the loop: a message for the user thread. */
    void offer(ZmtpMessage m) {
        if (socket.conflating()) {
            conflate(m);
            return;
        }
        queue.offer(m);
        int n = count.incrementAndGet();
        if (n >= receiving.limit() && consumerPaused.compareAndSet(false, true)) {
            receiving.pause(ReadPause.CONSUMER);
            // The consumer may have emptied the inbox before it could see the flag (then it
            // posted no resume): check again now that the flag is visible.
            if (count.get() <= receiving.limit() / 2 && consumerPaused.compareAndSet(true, false)) {
                receiving.resume(ReadPause.CONSUMER);
            }
        }
        wakeReceiver();
        if (!pollers.isEmpty()) {
            for (Runnable p : pollers) {
                p.run();
            }
        }
    }

    /** CONFLATE: {@code m} replaces the message the user thread has not taken yet. */
    private void conflate(ZmtpMessage m) {
        if (closed) {
            m.release();
            return;
        }
        ZmtpMessage old = latest.getAndSet(m);
        if (old != null) {
            old.release();
        }
        wakeReceiver();
        for (Runnable p : pollers) {
            p.run();
        }
    }

    /**
     * Wakes the user thread if it is parked waiting, once: the first message of a burst takes the
     * waiting thread out of {@link #receiver} and unparks it, and the rest of the burst finds no
     * one to wake (before, every message of a burst unparked the thread until it ran again, a
     * system call each: 8% of a busy loop's time in the asynchronous CLIENT/SERVER benchmark). The
     * user thread puts itself back before each park ({@link BlockingSocket#receive}).
     */
    private void wakeReceiver() {
        Thread r = receiver;
        if (r != null && RECEIVER.compareAndSet(this, r, null)) {
            LockSupport.unpark(r);
        }
    }

    private static final java.lang.invoke.VarHandle RECEIVER;

    static {
        try {
            RECEIVER = java.lang.invoke.MethodHandles.lookup().findVarHandle(BlockingInbox.class, "receiver", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** On the user thread: the next message, or null when none waits. */
    ZmtpMessage take() {
        if (socket.conflating()) {
            return latest.getAndSet(null);
        }
        if (!busy.compareAndSet(false, true)) {
            return null;   // the close is releasing the inbox
        }
        ZmtpMessage m = queue.poll();
        busy.set(false);
        if (closed) {
            releaseIfFree();   // the close found us taking: what is left is ours to release
        }
        if (m == null) {
            return null;
        }
        int left = count.decrementAndGet();
        if (consumerPaused.get() && left <= receiving.limit() / 2 && consumerPaused.compareAndSet(true, false)) {
            socket.inLoop(() -> receiving.resume(ReadPause.CONSUMER));
        }
        return m;
    }

    /** Whether a message is waiting (any thread). */
    boolean hasMessage() {
        return socket.conflating() ? latest.get() != null : count.get() > 0;
    }

    /** Messages received and not yet taken (any thread). */
    long size() {
        return count.get();
    }

    void addPoller(Runnable p) {
        pollers.addIfAbsent(p);
    }

    void removePoller(Runnable p) {
        pollers.remove(p);
    }

    /** On the loop, once the socket has closed: releases what waits, now or as the user thread lets go. */
    void close() {
        closed = true;
        releaseIfFree();
        ZmtpMessage last = latest.getAndSet(null);
        if (last != null) {
            last.release();
        }
    }

    /** Releases what waits, unless the user thread is taking (it then releases it as it leaves). */
    private void releaseIfFree() {
        while (closed && busy.compareAndSet(false, true)) {
            ZmtpMessage m;
            while ((m = queue.poll()) != null) {
                count.decrementAndGet();
                m.release();
            }
            busy.set(false);
            if (queue.isEmpty()) {
                return;
            }
        }
    }
}
