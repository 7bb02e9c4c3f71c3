package io.zmtp.patterns.titanic.sqlite;

import io.zmtp.patterns.titanic.TitanicStore;
import io.zmtp.patterns.titanic.TitanicStoreFullException;
import io.zmtp.patterns.titanic.GroupCommitThread;
import io.zmtp.patterns.titanic.TitanicIds;
import io.zmtp.wire.Frames;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The {@link TitanicStore} on SQLite (sqlite-jdbc), in WAL mode, one file in the settings' directory.
 *
 * <p>How it works, in three pieces: {@link TitanicDatabase} opens the database (the directory's
 * lock, WAL mode, the schema); a {@link GroupCommitThread}, the store's one thread, owns the
 * connection and runs whatever operations have queued as one transaction, completing their futures
 * only once it committed (group commit: many requests arriving together cost one durable write,
 * and no caller, event loop or not, ever waits for the disk); this class is the SQL of each
 * operation and the exact counts its bounds use. The futures complete on the store's thread: a
 * caller hops back to its own thread before touching its state, and does no long work in a
 * callback (it would hold up the next commit).
 *
 * <p>The promises of {@link TitanicStore}, as this store keeps them:
 * <ul>
 *   <li>A completed {@link #putRequest} is committed at the settings'
 *       {@link TitanicStoreSettings.Durability}: by default written to the operating system
 *       (survives {@code kill -9} and a restart, tested by killing a child process while it
 *       writes), or flushed to the disk with {@code POWER_LOSS}. After a restart,
 *       {@link #pendingRequests()} returns it until its reply is stored or it is closed.</li>
 *   <li>{@link #putReply} stores a reply only for a request that has none ({@code UPDATE ... WHERE
 *       replied IS NULL}): the first reply stays.</li>
 *   <li>{@link #reply} returns the stored reply as often as asked until {@link #close(String)};
 *       {@link #close(String)} succeeds for any uuid, stored or not (an invalid one too).</li>
 *   <li>Bounds: at most {@link TitanicStoreSettings#maxEntries()} requests and, for admitting a
 *       request, {@link TitanicStoreSettings#maxBytes()} bytes (bodies, service names and replies as
 *       stored); a request past either fails with {@link TitanicStoreFullException} and stores
 *       nothing. Replies may take the bytes up to twice {@code maxBytes}, so requests that filled the
 *       store can still be answered; a reply past that fails with {@link TitanicStoreFullException}
 *       and its request stays pending. The counts are read from the database when it opens and
 *       kept exact by every operation (a failed transaction counts again).</li>
 *   <li>Retention: {@link #expireReplies(long)} deletes replied requests by the reply's timestamp
 *       (the settings' clock), through an index of replied requests.</li>
 * </ul>
 *
 * <p>A second store on the same directory, in this process or another, is refused (a lock file);
 * the operating system releases the lock when a process dies, so a store killed with
 * {@code kill -9} opens again at once (SQLite replays its write-ahead log).
 */
public final class SqliteTitanicStore implements TitanicStore {
    private static final Logger LOG = LoggerFactory.getLogger(SqliteTitanicStore.class);
    private static final HexFormat HEX = HexFormat.of();
    /** The most requests {@link #expireReplies} deletes in one transaction. */
    static final int EXPIRY_CHUNK = 1000;
    private static final String SIZE = "length(body) + length(service) + coalesce(length(reply), 0)";

    private final TitanicStoreSettings settings;
    private final LongSupplier clock;
    private final Connection connection;
    /** The one thread that owns the connection and commits what queued as one transaction. */
    private final GroupCommitThread writer;

    // The store thread's own (the connection's statements and the exact counts).
    private final PreparedStatement insert;
    private final PreparedStatement selectRequest;
    private final PreparedStatement selectPending;
    private final PreparedStatement selectReply;
    private final PreparedStatement updateReply;
    private final PreparedStatement deleteOne;
    private final PreparedStatement deleteReplied;
    private long entries;
    private long bytes;

    private SqliteTitanicStore(TitanicStoreSettings settings, TitanicDatabase db) throws SQLException {
        this.settings = settings;
        this.clock = settings.clock();
        this.connection = db.connection;
        insert = connection.prepareStatement(
                "INSERT OR IGNORE INTO titanic_request(uuid, service, body, created) VALUES (?, ?, ?, ?)");
        selectRequest = connection.prepareStatement("SELECT service, body FROM titanic_request WHERE uuid = ?");
        selectPending = connection.prepareStatement(
                "SELECT uuid, service FROM titanic_request WHERE replied IS NULL ORDER BY seq");
        selectReply = connection.prepareStatement(
                "SELECT replied IS NOT NULL, reply FROM titanic_request WHERE uuid = ?");
        updateReply = connection.prepareStatement(
                "UPDATE titanic_request SET reply = ?, replied = ? WHERE uuid = ? AND replied IS NULL");
        deleteOne = connection.prepareStatement("DELETE FROM titanic_request WHERE uuid = ? RETURNING " + SIZE);
        deleteReplied = connection.prepareStatement("DELETE FROM titanic_request WHERE seq IN (SELECT seq FROM "
                + "titanic_request WHERE replied IS NOT NULL AND replied <= ? LIMIT ?) RETURNING " + SIZE);
        count();
        connection.commit();
        writer = new GroupCommitThread("titanic-store-" + settings.directory().getFileName(),
                String.valueOf(settings.directory()), new GroupCommitThread.Database() {
                    @Override
                    public Connection connect() {
                        return connection;                   // a file: never lost
                    }

                    @Override
                    public void afterTransaction(Connection c, boolean committed) throws SQLException {
                        if (!committed) {
                            count();                         // what the rolled-back transaction counted
                            c.commit();
                        }
                    }

                    @Override
                    public void stopped() {
                        db.unlock();
                    }

                    @Override
                    public RuntimeException closedException() {
                        return SqliteTitanicStore.this.closedException();
                    }
                }, settings.maxBatch(), settings.maxQueuedOperations());
    }

    /**
     * Opens (or creates) the store in the settings' directory, creating the directory. Throws
     * {@link IllegalStateException} if another store has it open, {@link UncheckedIOException} if
     * the directory or database cannot be opened.
     */
    public static SqliteTitanicStore open(TitanicStoreSettings settings) {
        TitanicDatabase db = TitanicDatabase.open(settings);
        try {
            SqliteTitanicStore store = new SqliteTitanicStore(settings, db);
            LOG.debug("opened {}: {} requests, {} bytes", settings, store.entries, store.bytes);
            return store;
        } catch (SQLException e) {
            db.closeQuietly();
            throw new UncheckedIOException("cannot open the Titanic store in " + settings.directory(), new IOException(e));
        } catch (RuntimeException | Error e) {
            db.closeQuietly();
            throw e;
        }
    }

    private void count() throws SQLException {
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), coalesce(sum(" + SIZE + "), 0) FROM titanic_request")) {
            rs.next();
            entries = rs.getLong(1);
            bytes = rs.getLong(2);
        }
    }

    /** The settings the store was opened with. */
    public TitanicStoreSettings settings() {
        return settings;
    }

    /** Transactions committed since the store opened (each a group of operations): for tests and metrics. */
    public long commits() {
        return writer.commits();
    }

    /** The bytes held now (bodies, service names and replies, as stored), as the bounds count them. */
    public CompletableFuture<Long> storedBytes() {
        return submit(() -> bytes);
    }

    /** Runs {@code sql} on the store's thread as one operation: for tests of a failing operation. */
    CompletableFuture<Void> executeSql(String sql) {
        return submit(() -> {
            try (Statement s = connection.createStatement()) {
                s.execute(sql);
            }
            return null;
        });
    }

    /** Runs {@code task} on the store's thread, inside a transaction: for tests that hold the thread. */
    CompletableFuture<Void> runOnStoreThread(Runnable task) {
        return submit(() -> {
            task.run();
            return null;
        });
    }

    @Override
    public CompletableFuture<Void> putRequest(String uuid, String service, Frames body) {
        byte[] key;
        byte[] serviceBytes;
        byte[] data;
        try {
            key = key(uuid);
            if (key == null) {
                throw new IllegalArgumentException("not a Titanic uuid: " + uuid);
            }
            serviceBytes = service.getBytes(StandardCharsets.UTF_8);
            data = FrameListCodec.encode(body);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        long size = (long) serviceBytes.length + data.length;
        return submit(() -> {
            if (entries >= settings.maxEntries()) {
                throw new TitanicStoreFullException("Titanic store full: " + entries + " requests held (maxEntries "
                        + settings.maxEntries() + ")");
            }
            if (bytes + size > settings.maxBytes()) {
                throw new TitanicStoreFullException("Titanic store full: " + bytes + " bytes held, a request of "
                        + size + " bytes would pass maxBytes " + settings.maxBytes());
            }
            insert.setBytes(1, key);
            insert.setBytes(2, serviceBytes);
            insert.setBytes(3, data);
            insert.setLong(4, clock.getAsLong());
            if (insert.executeUpdate() != 1) {
                throw new IllegalArgumentException("uuid " + uuid + " is already stored");
            }
            entries++;
            bytes += size;
            return null;
        });
    }

    @Override
    public CompletableFuture<Optional<StoredRequest>> request(String uuid) {
        byte[] key = key(uuid);
        if (key == null) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        return submit(() -> {
            selectRequest.setBytes(1, key);
            try (ResultSet rs = selectRequest.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new StoredRequest(uuid.toLowerCase(java.util.Locale.ROOT),
                        new String(rs.getBytes(1), StandardCharsets.UTF_8), FrameListCodec.decode(rs.getBytes(2))));
            }
        });
    }

    @Override
    public CompletableFuture<List<PendingRequest>> pendingRequests() {
        return submit(() -> {
            List<PendingRequest> pending = new ArrayList<>();
            try (ResultSet rs = selectPending.executeQuery()) {
                while (rs.next()) {
                    pending.add(new PendingRequest(HEX.formatHex(rs.getBytes(1)),
                            new String(rs.getBytes(2), StandardCharsets.UTF_8)));
                }
            }
            return pending;
        });
    }

    @Override
    public CompletableFuture<Boolean> putReply(String uuid, Frames reply) {
        byte[] key = key(uuid);
        if (key == null) {
            return CompletableFuture.completedFuture(false);
        }
        byte[] data;
        try {
            data = FrameListCodec.encode(reply);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return submit(() -> {
            if (bytes + data.length > 2 * settings.maxBytes()) {
                selectReply.setBytes(1, key);
                boolean pending;
                try (ResultSet rs = selectReply.executeQuery()) {
                    pending = rs.next() && !rs.getBoolean(1);
                }
                if (!pending) {
                    return false;
                }
                throw new TitanicStoreFullException("Titanic store full: " + bytes + " bytes held, a reply of "
                        + data.length + " bytes would pass twice maxBytes " + settings.maxBytes());
            }
            updateReply.setBytes(1, data);
            updateReply.setLong(2, clock.getAsLong());
            updateReply.setBytes(3, key);
            if (updateReply.executeUpdate() != 1) {
                return false;
            }
            bytes += data.length;
            return true;
        });
    }

    @Override
    public CompletableFuture<ReplyLookup> reply(String uuid) {
        byte[] key = key(uuid);
        if (key == null) {
            return CompletableFuture.completedFuture(new ReplyLookup.Unknown());
        }
        return submit(() -> {
            selectReply.setBytes(1, key);
            try (ResultSet rs = selectReply.executeQuery()) {
                if (!rs.next()) {
                    return new ReplyLookup.Unknown();
                }
                if (!rs.getBoolean(1)) {
                    return new ReplyLookup.Pending();
                }
                return new ReplyLookup.Ready(FrameListCodec.decode(rs.getBytes(2)));
            }
        });
    }

    @Override
    public CompletableFuture<Void> close(String uuid) {
        byte[] key = key(uuid);
        if (key == null) {
            return CompletableFuture.completedFuture(null);
        }
        return submit(() -> {
            deleteOne.setBytes(1, key);
            try (ResultSet rs = deleteOne.executeQuery()) {
                while (rs.next()) {
                    entries--;
                    bytes -= rs.getLong(1);
                }
            }
            return null;
        });
    }

    /**
     * {@inheritDoc}
     *
     * <p>Deletes in transactions of at most {@value #EXPIRY_CHUNK} requests, each queued behind what
     * arrived meanwhile, so a large expiry does not hold up other operations.
     */
    @Override
    public CompletableFuture<Integer> expireReplies(long storedAtOrBeforeMillis) {
        CompletableFuture<Integer> result = new CompletableFuture<>();
        expireChunk(storedAtOrBeforeMillis, 0, result);
        return result;
    }

    private void expireChunk(long storedAtOrBeforeMillis, int deletedSoFar, CompletableFuture<Integer> result) {
        submit(() -> {
            int deleted = 0;
            deleteReplied.setLong(1, storedAtOrBeforeMillis);
            deleteReplied.setInt(2, EXPIRY_CHUNK);
            try (ResultSet rs = deleteReplied.executeQuery()) {
                while (rs.next()) {
                    deleted++;
                    entries--;
                    bytes -= rs.getLong(1);
                }
            }
            return deleted;
        }).whenComplete((deleted, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else if (deleted < EXPIRY_CHUNK) {
                result.complete(deletedSoFar + deleted);
            } else {
                expireChunk(storedAtOrBeforeMillis, deletedSoFar + deleted, result);
            }
        });
    }

    @Override
    public CompletableFuture<Long> size() {
        return submit(() -> entries);
    }

    /**
     * Commits what is queued, closes the database and releases the directory; waits for it (unless
     * called on the store's own thread, from a callback). Operations after it fail with
     * {@link IllegalStateException}.
     */
    /** Where the store is, for the server's start-up line. */
    @Override
    public String toString() {
        return "SQLite in " + settings.directory().toAbsolutePath();
    }

    @Override
    public void close() {
        writer.stop();
        if (!writer.isCurrentThread()) {
            writer.terminated().join();
        }
    }

    /** Completes when the store is closed. */
    public CompletableFuture<Void> terminated() {
        return writer.terminated();
    }

    private static byte[] key(String uuid) {
        return TitanicIds.isValid(uuid) ? HEX.parseHex(uuid) : null;
    }

    /** An operation on the prepared statements of this store's one connection. */
    @FunctionalInterface
    private interface Work<T> {
        T run() throws SQLException;
    }

    private <T> CompletableFuture<T> submit(Work<T> work) {
        return writer.submit(c -> work.run());
    }

    private IllegalStateException closedException() {
        return new IllegalStateException("the Titanic store in " + settings.directory() + " is closed");
    }
}
