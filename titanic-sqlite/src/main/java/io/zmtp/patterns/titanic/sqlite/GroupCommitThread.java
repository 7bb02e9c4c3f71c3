package io.zmtp.patterns.titanic.sqlite;

import io.zmtp.patterns.titanic.TitanicStoreFullException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The store's one thread, which owns the database connection: group commit.
 *
 * <p>Every call puts an operation on a queue and returns its future at once; the thread takes
 * whatever has queued (at most {@code maxBatch} operations: nothing is waited for, so an idle
 * store adds no delay), runs it as one transaction, commits once, and only then completes the
 * futures, on this thread. So many operations arriving together cost one durable write, and no
 * caller ever waits for the disk.
 *
 * <p>An operation that throws an unchecked exception (a refusal: full, a duplicate) fails alone,
 * before it has written anything. An {@link SQLException} fails the transaction: it is rolled
 * back, the owner recounts what the database holds ({@code afterRollback}), and the operations run
 * again one per transaction, so only the culprit fails. At most {@code maxQueued} operations
 * wait; one more fails at once with {@link TitanicStoreFullException}.
 */
final class GroupCommitThread {
    private static final Logger LOG = LoggerFactory.getLogger(SqliteTitanicStore.class);

    /** An operation's work, run on the store's thread inside a transaction. */
    @FunctionalInterface
    interface Work<T> {
        T run() throws SQLException;
    }

    /** What the owner does on the store's thread, where it may use the connection. */
    @FunctionalInterface
    interface ConnectionTask {
        void run() throws SQLException;
    }

    private final Connection connection;
    /** Where the store is, for log lines. */
    private final String where;
    private final int maxBatch;
    private final int maxQueued;
    private final ConnectionTask afterRollback;
    private final Runnable afterStop;
    private final Supplier<RuntimeException> closedException;
    private final LinkedBlockingQueue<Op<?>> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong commits = new AtomicLong();
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    private final Op<Void> stop = new Op<>(() -> null);
    private final Thread thread;
    private volatile boolean closing;

    /**
     * Starts the thread, named {@code name}.
     *
     * @param where where the store is (its directory), for log lines
     * @param afterRollback run after a failed transaction was rolled back (the owner recounts)
     * @param afterStop run when the thread stops, after the last commit and the connection closed
     * @param closedException what an operation fails with once the store is closed
     */
    GroupCommitThread(String name, String where, Connection connection, int maxBatch, int maxQueued,
            ConnectionTask afterRollback, Runnable afterStop, Supplier<RuntimeException> closedException) {
        this.connection = connection;
        this.where = where;
        this.maxBatch = maxBatch;
        this.maxQueued = maxQueued;
        this.afterRollback = afterRollback;
        this.afterStop = afterStop;
        this.closedException = closedException;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Queues {@code work}; the future completes on this thread once its transaction committed. Any thread. */
    <T> CompletableFuture<T> submit(Work<T> work) {
        Op<T> op = new Op<>(work);
        if (closing) {
            op.future.completeExceptionally(closedException.get());
            return op.future;
        }
        if (queued.incrementAndGet() > maxQueued) {
            queued.decrementAndGet();
            op.future.completeExceptionally(new TitanicStoreFullException("Titanic store busy: "
                    + maxQueued + " operations queued (maxQueuedOperations)"));
            return op.future;
        }
        queue.add(op);
        // Closed meanwhile: the thread may have finished before our add. Whoever takes the
        // operation out of the queue fails it.
        if (closing && queue.remove(op)) {
            queued.decrementAndGet();
            op.future.completeExceptionally(closedException.get());
        }
        return op.future;
    }

    /** Transactions committed since the thread started. */
    long commits() {
        return commits.get();
    }

    /** Whether the caller is the store's thread. */
    boolean isCurrentThread() {
        return Thread.currentThread() == thread;
    }

    /** Completes when the thread stopped, after committing what was queued and closing the connection. */
    CompletableFuture<Void> terminated() {
        return terminated;
    }

    /** Commits what is queued and stops; operations after it fail. Returns at once. */
    void stop() {
        synchronized (this) {
            if (!closing) {
                closing = true;
                queued.incrementAndGet();
                queue.add(stop);
            }
        }
    }

    private void run() {
        List<Op<?>> batch = new ArrayList<>(Math.min(maxBatch, 4096));
        boolean stopping = false;
        while (!stopping) {
            Op<?> first;
            try {
                first = queue.take();
            } catch (InterruptedException e) {
                continue; // nobody interrupts this thread but by mistake; stop() stops it
            }
            batch.add(first);
            queue.drainTo(batch, maxBatch - 1);
            queued.addAndGet(-batch.size());
            int stopAt = batch.indexOf(stop);
            List<Op<?>> work = stopAt < 0 ? batch : batch.subList(0, stopAt);
            if (!work.isEmpty()) {
                execute(work);
            }
            if (stopAt >= 0) {
                stopping = true;
                for (Op<?> op : batch.subList(stopAt + 1, batch.size())) {
                    op.future.completeExceptionally(closedException.get());
                }
            }
            batch.clear();
        }
        shutDown();
    }

    /** Runs the operations as one transaction, then completes them; a failed transaction is retried one operation per transaction, so only the culprit fails. */
    private void execute(List<Op<?>> ops) {
        try {
            for (Op<?> op : ops) {
                op.run();
            }
            connection.commit();
            commits.incrementAndGet();
        } catch (SQLException | RuntimeException e) {
            rollback();
            if (ops.size() > 1) {
                LOG.warn("a batch of {} Titanic store operations failed, retrying them one by one: {}", ops.size(),
                        e.toString());
                for (Op<?> op : ops) {
                    op.reset();
                    execute(List.of(op));
                }
                return;
            }
            LOG.warn("a Titanic store operation failed", e);
            ops.get(0).failure = e;
        }
        for (Op<?> op : ops) {
            op.complete();
        }
    }

    private void rollback() {
        try {
            connection.rollback();
            afterRollback.run();
            connection.commit();
        } catch (SQLException e) {
            LOG.error("rolling back a failed Titanic store transaction failed", e);
        }
    }

    private void shutDown() {
        Throwable failure = null;
        try {
            connection.commit();
            connection.close();
        } catch (SQLException e) {
            failure = e;
            LOG.error("closing the Titanic store in {} failed", where, e);
        }
        afterStop.run();
        for (Op<?> op; (op = queue.poll()) != null; ) {
            queued.decrementAndGet();
            op.future.completeExceptionally(closedException.get());
        }
        if (failure == null) {
            terminated.complete(null);
        } else {
            terminated.completeExceptionally(failure);
        }
    }

    /** An operation waiting for the store's thread; its outcome is kept until the transaction commits. */
    private static final class Op<T> {
        final Work<T> work;
        final CompletableFuture<T> future = new CompletableFuture<>();
        T result;
        Throwable failure;

        Op(Work<T> work) {
            this.work = work;
        }

        /** Runs the work; a refusal (an unchecked exception) fails this operation only, an SQL error the transaction. */
        void run() throws SQLException {
            try {
                result = work.run();
            } catch (SQLException e) {
                throw e;
            } catch (RuntimeException e) {
                failure = e;
            }
        }

        void reset() {
            result = null;
            failure = null;
        }

        void complete() {
            if (failure != null) {
                future.completeExceptionally(failure);
            } else {
                future.complete(result);
            }
        }
    }
}
