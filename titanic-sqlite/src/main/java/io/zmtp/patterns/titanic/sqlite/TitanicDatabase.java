package io.zmtp.patterns.titanic.sqlite;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The Titanic store's database as it is opened: the directory's lock, and one SQLite connection in
 * WAL mode, at the settings' durability, with the schema.
 *
 * <ul>
 *   <li>Lock: {@value #LOCK_FILE} in the directory; a second store on the directory (this process
 *       or another) is refused. The operating system releases the lock when a process dies, so a
 *       store killed with {@code kill -9} opens again at once (SQLite replays its write-ahead
 *       log).</li>
 *   <li>Connection: exclusive locking mode before WAL (the write-ahead log's index then lives in
 *       the heap, no shared-memory file); {@code synchronous=NORMAL} for
 *       {@link TitanicStoreSettings.Durability#PROCESS_CRASH}, {@code FULL} for
 *       {@link TitanicStoreSettings.Durability#POWER_LOSS}; autocommit off.</li>
 *   <li>Schema ({@value #SCHEMA_VERSION}, in {@code user_version}): one table
 *       {@code titanic_request} (seq = arrival order, uuid as 16 bytes, service, body, created,
 *       reply, replied), a partial index of pending requests and one of replied ones (retention).
 *       A newer schema is refused.</li>
 * </ul>
 */
final class TitanicDatabase {
    private static final Logger LOG = LoggerFactory.getLogger(TitanicDatabase.class);
    /** The schema this code writes, kept in SQLite's {@code user_version}. */
    static final int SCHEMA_VERSION = 1;
    static final String LOCK_FILE = "titanic.lock";

    final Connection connection;
    /** Holds the directory's lock until closed. */
    private final FileChannel lock;

    private TitanicDatabase(Connection connection, FileChannel lock) {
        this.connection = connection;
        this.lock = lock;
    }

    /**
     * Locks the settings' directory (creating it) and opens the database in it. Throws
     * {@link IllegalStateException} if another store has it open, {@link UncheckedIOException} if
     * the directory or database cannot be opened.
     */
    static TitanicDatabase open(TitanicStoreSettings settings) {
        Path dir = settings.directory();
        FileChannel channel = null;
        Connection connection = null;
        try {
            Files.createDirectories(dir);
            channel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                throw new IllegalStateException("the Titanic store in " + dir + " is open elsewhere");
            }
            // No generated keys: the store never asks for them, and the driver would otherwise
            // inspect every insert's SQL text for them (a pattern match per statement).
            org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
            config.setGetGeneratedKeys(false);
            connection = DriverManager.getConnection("jdbc:sqlite:" + settings.databaseFile(), config.toProperties());
            configure(connection, settings.durability());
            return new TitanicDatabase(connection, channel);
        } catch (IOException e) {
            closeQuietly(connection, channel);
            throw new UncheckedIOException("cannot open the Titanic store in " + dir, e);
        } catch (SQLException e) {
            closeQuietly(connection, channel);
            throw new UncheckedIOException("cannot open the Titanic store in " + dir, new IOException(e));
        } catch (RuntimeException | Error e) {
            closeQuietly(connection, channel);
            throw e;
        }
    }

    /** Releases the directory's lock (after the connection closed). */
    void unlock() {
        closeQuietly(null, lock);
    }

    /** Closes the connection and releases the lock, after a failed open. */
    void closeQuietly() {
        closeQuietly(connection, lock);
    }

    private static void configure(Connection c, TitanicStoreSettings.Durability durability) throws SQLException {
        try (Statement s = c.createStatement()) {
            // Exclusive before WAL: the write-ahead log's index then lives in the heap, no shared
            // memory file; nobody else opens the database anyway (the lock file).
            s.execute("PRAGMA locking_mode = EXCLUSIVE");
            try (ResultSet rs = s.executeQuery("PRAGMA journal_mode = WAL")) {
                if (!rs.next() || !"wal".equalsIgnoreCase(rs.getString(1))) {
                    throw new SQLException("SQLite refused WAL mode");
                }
            }
            s.execute("PRAGMA synchronous = "
                    + (durability == TitanicStoreSettings.Durability.POWER_LOSS ? "FULL" : "NORMAL"));
            s.execute("PRAGMA cache_size = -16384");
            s.execute("PRAGMA temp_store = MEMORY");
            s.execute("PRAGMA journal_size_limit = 67108864");
            int version;
            try (ResultSet rs = s.executeQuery("PRAGMA user_version")) {
                version = rs.next() ? rs.getInt(1) : 0;
            }
            if (version > SCHEMA_VERSION) {
                throw new SQLException("the store's schema version " + version + " is newer than this code's "
                        + SCHEMA_VERSION);
            }
            c.setAutoCommit(false);
            // seq: arrival order. uuid: 16 bytes. service: UTF-8 bytes. body, reply: FrameListCodec.
            s.execute("CREATE TABLE IF NOT EXISTS titanic_request ("
                    + "seq INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, service BLOB NOT NULL, "
                    + "body BLOB NOT NULL, created INTEGER NOT NULL, reply BLOB, replied INTEGER)");
            s.execute("CREATE INDEX IF NOT EXISTS titanic_pending ON titanic_request(seq) WHERE replied IS NULL");
            s.execute("CREATE INDEX IF NOT EXISTS titanic_replied ON titanic_request(replied) "
                    + "WHERE replied IS NOT NULL");
            s.execute("PRAGMA user_version = " + SCHEMA_VERSION);
            c.commit();
        }
    }

    private static void closeQuietly(Connection connection, FileChannel channel) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.debug("closing a Titanic store connection", e);
            }
        }
        if (channel != null) {
            try {
                channel.close(); // releases the lock
            } catch (IOException e) {
                LOG.debug("closing the Titanic store's lock file", e);
            }
        }
    }
}
