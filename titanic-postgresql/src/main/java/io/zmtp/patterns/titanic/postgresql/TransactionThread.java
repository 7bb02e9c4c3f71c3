package io.zmtp.patterns.titanic.postgresql;

import io.zmtp.patterns.titanic.TitanicException;
import io.zmtp.patterns.titanic.TitanicStatus;
import io.zmtp.patterns.titanic.TitanicStoreFullException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The store's one thread and its connection to PostgreSQL: group commit, and a new connection
 * after the server went away.
 *
 * <p>Every call queues an operation and returns its future at once; the thread takes whatever has
 * queued (at most {@code maxBatch}, never waiting for more), runs it as one transaction, commits
 * once, and only then completes the futures. An operation that throws an unchecked exception (a
 * refusal: full, a duplicate) fails alone, before it wrote anything. An {@link SQLException}
 * rolls the transaction back; if the connection is still good the operations run again one per
 * transaction, so only the culprit fails; if the connection is gone (the server stopped or
 * restarted) every operation of the batch fails with a {@link TitanicException} saying so, and
 * the next batch connects again (a failed connect fails that batch at once, so a request during
 * an outage is answered 500 rather than left waiting).
 */
final class TransactionThread {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresTitanicStore.class);

    /** An operation's work, run on this thread inside a transaction. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** Prepares a new connection (schema, session settings). */
    @FunctionalInterface
    interface Setup {
        void run(Connection c) throws SQLException;
    }

    private final String url;
    private final String where;
    private final int maxBatch;
    private final int maxQueued;
    private final Setup setup;
    private final Setup beforeCommit;
    private final Runnable afterTransaction;
    private final LinkedBlockingQueue<Op<?>> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong commits = new AtomicLong();
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    private final Op<Void> stop = new Op<>(c -> null);
    private final Thread thread;
    private volatile boolean closing;
    private Connection connection;

    /**
     * @param setup prepares each new connection (schema, session settings)
     * @param beforeCommit runs in each transaction after its operations (what they share: counts)
     * @param afterTransaction runs after each commit or rollback (forget what the transaction held)
     */
    TransactionThread(String name, String url, String where, int maxBatch, int maxQueued, Setup setup,
                      Setup beforeCommit, Runnable afterTransaction) {
        this.url = url;
        this.where = where;
        this.maxBatch = maxBatch;
        this.maxQueued = maxQueued;
        this.setup = setup;
        this.beforeCommit = beforeCommit;
        this.afterTransaction = afterTransaction;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
    }

    /** Connects (failing with the cause when the database cannot be reached) and starts the thread. */
    void start() throws SQLException {
        connection = connect();
        thread.start();
    }

    private Connection connect() throws SQLException {
        Connection c = DriverManager.getConnection(url);
        try {
            c.setAutoCommit(false);
            setup.run(c);
            c.commit();
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    <T> CompletableFuture<T> submit(Work<T> work) {
        Op<T> op = new Op<>(work);
        if (closing) {
            op.future.completeExceptionally(new TitanicException("the PostgreSQL Titanic store is closed", TitanicStatus.ERROR));
            return op.future;
        }
        if (queued.incrementAndGet() > maxQueued) {
            queued.decrementAndGet();
            op.future.completeExceptionally(new TitanicStoreFullException("Titanic store busy: "
                    + maxQueued + " operations queued (maxQueuedOperations)"));
            return op.future;
        }
        queue.add(op);
        if (closing && queue.remove(op)) {
            queued.decrementAndGet();
            op.future.completeExceptionally(new TitanicException("the PostgreSQL Titanic store is closed", TitanicStatus.ERROR));
        }
        return op.future;
    }

    long commits() {
        return commits.get();
    }

    CompletableFuture<Void> terminated() {
        return terminated;
    }

    boolean isCurrentThread() {
        return Thread.currentThread() == thread;
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
                continue;
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
                    op.future.completeExceptionally(new TitanicException("the PostgreSQL Titanic store is closed", TitanicStatus.ERROR));
                }
            }
            batch.clear();
        }
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.debug("closing the connection to {}", where, e);
            }
        }
        stop.future.complete(null);
        terminated.complete(null);
    }

    private void execute(List<Op<?>> ops) {
        if (connection == null) {
            try {
                connection = connect();
                LOG.info("titanic store: connected again to {}", where);
            } catch (SQLException e) {
                failAll(ops, e);
                return;
            }
        }
        try {
            for (Op<?> op : ops) {
                op.run(connection);
            }
            beforeCommit.run(connection);
            connection.commit();
            afterTransaction.run();
            commits.incrementAndGet();
            for (Op<?> op : ops) {
                op.complete();
            }
        } catch (SQLException e) {
            rollback();
            afterTransaction.run();
            if (!usable()) {
                failAll(ops, e);
                return;
            }
            if (ops.size() == 1) {
                ops.get(0).future.completeExceptionally(e);
                return;
            }
            for (Op<?> op : ops) {
                op.reset();
                execute(List.of(op));
            }
        }
    }

    /** Whether the connection still works after a failed transaction; if not it is dropped. */
    private boolean usable() {
        try {
            if (connection.isValid(2)) {
                return true;
            }
        } catch (SQLException e) {
            // not valid
        }
        try {
            connection.close();
        } catch (SQLException e) {
            // gone already
        }
        connection = null;
        return false;
    }

    private void rollback() {
        try {
            connection.rollback();
        } catch (SQLException e) {
            LOG.debug("rollback on {} failed", where, e);
        }
    }

    private void failAll(List<Op<?>> ops, SQLException cause) {
        LOG.warn("titanic store: {} cannot be reached: {} ({} operations fail)", where, cause.getMessage(), ops.size());
        TitanicException e = new TitanicException("the PostgreSQL Titanic store at " + where + " cannot be reached: "
                + cause.getMessage(), TitanicStatus.ERROR, cause);
        for (Op<?> op : ops) {
            op.future.completeExceptionally(e);
        }
    }

    /** One queued operation: its work, its result once run, its future once committed. */
    private static final class Op<T> {
        final Work<T> work;
        final CompletableFuture<T> future = new CompletableFuture<>();
        private T result;
        private RuntimeException refused;

        Op(Work<T> work) {
            this.work = work;
        }

        void run(Connection c) throws SQLException {
            if (refused != null || future.isDone()) {
                return;
            }
            try {
                result = work.run(c);
            } catch (RuntimeException e) {
                refused = e;
            }
        }

        void reset() {
            result = null;
            refused = null;
        }

        void complete() {
            if (refused != null) {
                future.completeExceptionally(refused);
            } else {
                future.complete(result);
            }
        }
    }
}
