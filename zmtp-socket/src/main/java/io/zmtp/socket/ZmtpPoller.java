package io.zmtp.socket;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits for any of several blocking sockets to have a message (as zmq_poll with ZMQ_POLLIN, the
 * way the guide's clients poll). A socket wakes a waiting poller only when the poller sleeps.
 * Used by one thread at a time.
 */
public final class ZmtpPoller implements AutoCloseable {
    private final List<BlockingSocket> sockets = new ArrayList<>();
    private volatile Thread waiter;
    /** What a socket runs when a message arrives: wakes this poller if it waits. */
    private final Runnable wake = this::signal;

    /** Adds a socket; returns its index. */
    public int register(BlockingSocket socket) {
        sockets.add(socket);
        socket.addPoller(wake);
        return sockets.size() - 1;
    }

    public void unregister(BlockingSocket socket) {
        sockets.remove(socket);
        socket.removePoller(wake);
    }

    /**
     * Waits until at least one socket has a message, or {@code timeout} passes (null: forever).
     * Returns how many sockets have a message.
     */
    public int poll(Duration timeout) {
        int ready = ready();
        if (ready > 0) {
            return ready;
        }
        long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
        waiter = Thread.currentThread();
        try {
            while ((ready = ready()) == 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return 0;
                }
                LockSupport.parkNanos(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
                if (Thread.currentThread().isInterrupted()) {
                    return 0;
                }
            }
            return ready;
        } finally {
            waiter = null;
        }
    }

    /** Whether socket {@code index} has a message. */
    public boolean readable(int index) {
        return sockets.get(index).hasMessage();
    }

    public boolean readable(BlockingSocket socket) {
        return socket.hasMessage();
    }

    private int ready() {
        int n = 0;
        for (BlockingSocket s : sockets) {
            if (s.hasMessage()) {
                n++;
            }
        }
        return n;
    }

    void signal() {
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    @Override
    public void close() {
        for (BlockingSocket s : sockets) {
            s.removePoller(wake);
        }
        sockets.clear();
    }
}
