package io.zmtp.socket;

import io.netty.channel.EventLoop;

import java.util.ArrayDeque;

/**
 * Flush once per batch: a pipe written to during a task of the event loop is flushed once, by a
 * task queued behind the current one, however many messages went to it meanwhile. One per
 * socket, on its event loop.
 *
 * <p>A batch of reads is bounded, though: when thousands of the socket's peers are ready at
 * once (a round of requests from each), the loop reads them all before that task runs, and every
 * answer would wait for the last read. So after {@link #READS_PER_FLUSH} of the socket's
 * connections have ended a read in one batch, what they wrote goes out at once, and the peers
 * answered first are at work while the rest are read. A pipe written to from many reads (a
 * broker's worker) is still flushed once per batch while fewer connections are read.
 */
final class FlushBatch {
    /** Connections whose reads end in one batch before what they wrote goes out (zmtp.flush.reads). */
    static final int READS_PER_FLUSH = Integer.getInteger("zmtp.flush.reads", 64);
    /** Pipes flushed by one flush task before the rest wait behind the loop's other tasks (zmtp.flush.pipes). */
    static final int PIPES_PER_TASK = Integer.getInteger("zmtp.flush.pipes", 64);

    private final EventLoop loop;
    private final ArrayDeque<Pipe> dirty = new ArrayDeque<>();
    private boolean flushScheduled;
    /** Reads ended since the last flush. */
    private int reads;
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

    /** One of the socket's connections ended a read: past the bound, what was written goes out now. */
    void readEnded() {
        if (++reads >= READS_PER_FLUSH && !dirty.isEmpty()) {
            flushDirty();
        }
    }

    /**
     * The task behind the batch: flushes the pipes written to since the last flush, at most
     * {@link #PIPES_PER_TASK} of them, and queues itself again for the rest. A message for every
     * peer (a PUB with a thousand subscribers) makes a flush round of a thousand writes; tasks
     * that came meanwhile (the next messages from the application) run between the parts, and the
     * pipes not flushed yet take those messages in the same write. So a loop that falls behind
     * batches more, as libzmq's I/O thread does behind its application thread, and one that keeps
     * up flushes every message at once.
     */
    void flush() {
        int n = 0;
        Pipe p;
        while (n < PIPES_PER_TASK && (p = dirty.poll()) != null) {
            p.dirty = false;
            p.flush();
            n++;
        }
        if (dirty.isEmpty()) {
            flushScheduled = false;
            reads = 0;
        } else {
            loop.execute(flushTask);
        }
    }

    private void flushDirty() {
        reads = 0;
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
