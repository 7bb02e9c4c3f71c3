package io.zmtp.socket;

import io.netty.channel.EventLoop;

import java.util.ArrayDeque;

/**
 * Flush once per batch: a pipe written to during a task of the event loop is flushed once, by a
 * task queued behind the current one, however many messages went to it meanwhile. One per
 * socket, on its event loop.
 */
final class FlushBatch {
    private final EventLoop loop;
    private final ArrayDeque<Pipe> dirty = new ArrayDeque<>();
    private boolean flushScheduled;
    private final Runnable flushTask = this::flush;

    FlushBatch(EventLoop loop) {
        this.loop = loop;
    }

    /** Remembers to flush {@code pipe} at the end of this batch of work. */
    void markDirty(Pipe pipe) {
        if (!pipe.dirty) {
            pipe.dirty = true;
            dirty.add(pipe);
            if (!flushScheduled) {
                flushScheduled = true;
                loop.execute(flushTask);
            }
        }
    }

    /** Flushes every pipe written to since the last flush. */
    void flush() {
        flushScheduled = false;
        Pipe p;
        while ((p = dirty.poll()) != null) {
            p.dirty = false;
            p.flush();
        }
    }

    /** {@code pipe} is gone: nothing to flush there. */
    void forget(Pipe pipe) {
        if (pipe.dirty) {
            dirty.remove(pipe);
            pipe.dirty = false;
        }
    }
}
