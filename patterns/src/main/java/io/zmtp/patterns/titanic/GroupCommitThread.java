package io.zmtp.patterns.titanic;

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

/**
 * A JDBC {@link TitanicStore}'s one thread, which owns its connection: group commit. The SQLite
 * and the PostgreSQL store both run on it; what differs between their databases is their
 * {@link Database}.
 *
 * <p>Every call puts an operation on a queue and returns its future at once; the thread takes
 * whatever has queued (at most {@code maxBatch} operations: nothing is waited for, so an idle
 * store adds no delay), runs it as one transaction, commits once, and only then completes the
 * futures, on this thread. So many operations arriving together cost one durable write, and no
 * caller ever waits for the disk.
 *
 * <p>An operation that throws an unchecked exception (a refusal: full, a duplicate) fails alone,
 * before it has written anything. An {@link SQLException} fails the transaction: it is rolled
 * back, and if the connection still works ({@link Database#stillConnected}) the operations run
 * again one per transaction, so only the culprit fails; if it does not (a database server that
 * went away), every operation of the batch fails with a {@link TitanicException} saying so, and
 * the next batch asks for a connection again ({@link Database#connect}), failing at once while
 * there is none. At most {@code maxQueued} operations wait; one more fails at once with
 * {@link TitanicStoreFullException}.
 */
public final class GroupCommitThread {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCommitThread.class);

    /** An operation's work, run on the store's thread inside a transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** What the store's database adds around the transactions; called on the store's thread. */
    public interface Database {
        /** A connection for the next transaction, auto-commit off: the open one, or a new one after one was lost. */
        Connection connect() throws SQLException;

        /** After a failed transaction was rolled back: whether {@code c} still works (if not, it is dropped). */
        default boolean stillConnected(Connection c) {
            return true;
        }

        /** In each transaction, after its operations and before its commit. */
        default void beforeCommit(Connection c) throws SQLException {
        }

        /** After each transaction, committed or rolled back, on its connection if it still works. */
        default void afterTransaction(Connection c, boolean committed) throws SQLException {
        }

        /** The thread stopped: the last commit is done and the connection closed. */
        default void stopped() {
        }

        /** What an operation fails with once the store is closed. */
        RuntimeException closedException();
    }

    private final Database database;
    /** Where the store is (a directory, a URL without its password), for log lines. */
    private final String where;
    private final int maxBatch;
    private final int maxQueued;
    private final LinkedBlockingQueue<Op<?>> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong commits = new AtomicLong();
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    private final Op<Void> stop = new Op<>(c -> null);
    private final Thread thread;
    private volatile boolean closing;
    /** The connection, or null after it was lost. */
    private Connection connection;
    /**
     * Operations failed since the database could not be reached, or -1 while it can: the outage
     * is logged once when it begins and once when it ends, not per batch. Store thread only.
     */
    private long failedWhileUnreachable = -1;

    /**
     * Connects (the failure propagates: a store that cannot reach its database does not open) and
     * starts the thread, named {@code name}.
     *
     * @param where where the store is, for log lines (never a password)
     */
    public GroupCommitThread(String name, String where, Database database, int maxBatch, int maxQueued)
            throws SQLException {
        this.database = database;
        this.where = where;
        this.maxBatch = maxBatch;
        this.maxQueued = maxQueued;
        this.connection = database.connect();
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Queues {@code work}; the future completes on this thread once its transaction committed. Any thread. */
    public <T> CompletableFuture<T> submit(Work<T> work) {
        Op<T> op = new Op<>(work);
        if (closing) {
            op.future.completeExceptionally(database.closedException());
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
            op.future.completeExceptionally(database.closedException());
        }
        return op.future;
    }

    /** Transactions committed since the thread started. */
    public long commits() {
        return commits.get();
    }

    /** Whether the caller is the store's thread. */
    public boolean isCurrentThread() {
        return Thread.currentThread() == thread;
    }

    /**
     * Completes when the thread stopped, after committing what was queued and closing the
     * connection (exceptionally if closing it failed).
     */
    public CompletableFuture<Void> terminated() {
        return terminated;
    }

    /** Commits what is queued and stops; operations after it fail. Returns at once. */
    public void stop() {
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
                    op.future.completeExceptionally(database.closedException());
                }
            }
            batch.clear();
        }
        shutDown();
    }

    /**
     * Runs the operations as one transaction, then completes them; a failed transaction is retried
     * one operation per transaction while the connection works, so only the culprit fails.
     */
    private void execute(List<Op<?>> ops) {
        if (connection == null) {
            try {
                connection = database.connect();
                if (failedWhileUnreachable >= 0) {
                    LOG.info("Titanic store: connected again to {} ({} operations failed meanwhile)", where,
                            failedWhileUnreachable);
                    failedWhileUnreachable = -1;
                } else {
                    LOG.info("Titanic store: connected again to {}", where);
                }
            } catch (SQLException e) {
                unreachable(ops, e);
                return;
            }
        }
        try {
            for (Op<?> op : ops) {
                op.run(connection);
            }
            database.beforeCommit(connection);
            connection.commit();
            commits.incrementAndGet();
            database.afterTransaction(connection, true);
        } catch (SQLException | RuntimeException e) {
            if (!rollback()) {
                unreachable(ops, e);
                return;
            }
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

    /** Rolls back a failed transaction; false (and the connection dropped) when it no longer works. */
    private boolean rollback() {
        try {
            connection.rollback();
        } catch (SQLException e) {
            LOG.debug("rolling back a failed Titanic store transaction on {} failed", where, e);
        }
        if (!database.stillConnected(connection)) {
            try {
                connection.close();
            } catch (SQLException e) {
                // gone already
            }
            connection = null;
            return false;
        }
        try {
            database.afterTransaction(connection, false);
        } catch (SQLException e) {
            LOG.error("after rolling back a failed Titanic store transaction on {}", where, e);
        }
        return true;
    }

    /** The batch fails: the database cannot be reached (the connection was lost, or connecting failed). */
    private void unreachable(List<Op<?>> ops, Exception cause) {
        if (failedWhileUnreachable < 0) {
            LOG.warn("Titanic store: {} cannot be reached: {} (operations fail until it is back; "
                    + "logged again when it is)", where, cause.getMessage());
            failedWhileUnreachable = 0;
        }
        failedWhileUnreachable += ops.size();
        TitanicException e = new TitanicException("the Titanic store at " + where + " cannot be reached: "
                + cause.getMessage(), TitanicStatus.ERROR, cause);
        for (Op<?> op : ops) {
            op.future.completeExceptionally(e);
        }
    }

    private void shutDown() {
        Throwable failure = null;
        if (connection != null) {
            try {
                connection.commit();
                connection.close();
            } catch (SQLException e) {
                failure = e;
                LOG.error("closing the Titanic store at {} failed", where, e);
            }
        }
        database.stopped();
        for (Op<?> op; (op = queue.poll()) != null; ) {
            queued.decrementAndGet();
            op.future.completeExceptionally(database.closedException());
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
        void run(Connection c) throws SQLException {
            try {
                result = work.run(c);
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
