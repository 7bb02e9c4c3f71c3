package io.zmtp.patterns.titanic.postgresql;

import io.zmtp.patterns.titanic.GroupCommitThread;
import io.zmtp.patterns.titanic.TitanicException;
import io.zmtp.patterns.titanic.TitanicIds;
import io.zmtp.patterns.titanic.TitanicStatus;
import io.zmtp.patterns.titanic.TitanicStore;
import io.zmtp.patterns.titanic.TitanicStoreFullException;
import io.zmtp.wire.Frames;

import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Titanic's store on PostgreSQL, shared by several Titanic servers at once, all active: any of
 * them takes submissions and answers {@code titanic.reply} and {@code titanic.close} for every
 * request; each dispatches the requests it has claimed.
 *
 * <p>Its promises are {@link TitanicStore}'s, and:
 * <ul>
 *   <li>{@link #putRequest} completes once its transaction has committed (PostgreSQL's default
 *       {@code synchronous_commit}: the commit record is flushed to disk), so a request answered
 *       200 survives {@code kill -9} of its Titanic server and a crash of the database server.
 *       Requests arriving together are committed together.</li>
 *   <li>Claims: each store (one per server process) has an owner id of its own. A new request is
 *       stored claimed by its server; {@link #claimRequests} takes pending requests that nobody
 *       holds or whose holder's lease lapsed ({@code SELECT ... FOR UPDATE SKIP LOCKED}, so two
 *       servers never take the same one); {@link #renewClaims} keeps a live server's. A dead
 *       server's requests are thus dispatched by another within {@link #claimLease()}.</li>
 *   <li>One reply per request: {@link #putReply} stores only where none is stored yet (one
 *       conditional update), whichever server's dispatch answered first.</li>
 *   <li>Bounds: entries and bytes, counted per server in {@code titanic_usage} and checked against
 *       the totals before each batch (so servers together may pass a bound by one batch each).
 *       A server's row is its net change to the totals (negative when it closed more than it
 *       stored: only the sum is the store's usage), and carries {@code seen_at}, renewed with its
 *       claims; the row of a server not seen for a claim lease is folded into a live server's,
 *       so the table holds about one row per live server, not one per server ever started.</li>
 *   <li>When the database cannot be reached every operation fails at once ({@code titanic.request}
 *       answers 500), and the store connects again on the next operation.</li>
 * </ul>
 * The tables ({@code titanic_request}, {@code titanic_usage}) are created if missing.
 */
public final class PostgresTitanicStore implements TitanicStore {
    private static final String SCHEMA = """
            CREATE TABLE IF NOT EXISTS titanic_request (
                seq bigserial,
                uuid text PRIMARY KEY,
                service text NOT NULL,
                body bytea[] NOT NULL,
                size bigint NOT NULL,
                reply bytea[],
                reply_size bigint,
                replied_at bigint,
                owner text,
                claimed_until timestamptz);
            CREATE INDEX IF NOT EXISTS titanic_request_pending ON titanic_request (seq) WHERE reply IS NULL;
            CREATE INDEX IF NOT EXISTS titanic_request_replied ON titanic_request (replied_at) WHERE reply IS NOT NULL;
            CREATE TABLE IF NOT EXISTS titanic_usage (
                owner text PRIMARY KEY,
                entries bigint NOT NULL,
                bytes bigint NOT NULL,
                reply_bytes bigint NOT NULL);
            ALTER TABLE titanic_usage ADD COLUMN IF NOT EXISTS seen_at timestamptz NOT NULL DEFAULT now()""";

    private final PostgresStoreSettings settings;
    private final String owner = UUID.randomUUID().toString();
    private final LongSupplier clock;
    private GroupCommitThread thread;
    /**
     * The transaction's view of the totals (entries, bytes, reply bytes): read once per
     * transaction, then kept up to date by its operations; null between transactions. Store
     * thread only.
     */
    private long[] totals;
    /** What this transaction's operations added to the totals: written to our usage row once, before the commit. */
    private final long[] delta = new long[3];

    private PostgresTitanicStore(PostgresStoreSettings settings) {
        this.settings = settings;
        this.clock = settings.clock();
    }

    /**
     * Connects to the database, creates the tables if missing, and starts the store's thread.
     *
     * @throws IllegalStateException when the database cannot be reached or the tables made (the
     *         message says why, without a password)
     */
    public static PostgresTitanicStore open(PostgresStoreSettings settings) {
        PostgresTitanicStore store = new PostgresTitanicStore(settings);
        try {
            store.thread = new GroupCommitThread("titanic-postgresql", settings.jdbcUrl(),
                    store.new Database(), settings.maxBatch(), settings.maxQueuedOperations());
        } catch (SQLException e) {
            // the driver's exception is not attached as the cause: its messages are the driver's
            // own, so only their redacted text goes on
            throw new IllegalStateException("cannot open the Titanic store at " + settings.jdbcUrl() + ": "
                    + settings.redact(reasons(e)));
        }
        return store;
    }

    /** The messages of a failure and its causes, the repeated ones once. */
    private static String reasons(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null && sb.length() < 2000; c = c.getCause() == c ? null : c.getCause()) {
            String m = c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
            if (sb.indexOf(m) < 0) {
                sb.append(sb.length() == 0 ? "" : ": ").append(m);
            }
        }
        return sb.toString();
    }

    /**
     * The database server: a new connection after one was lost (the schema checked again), the
     * shared totals written once per transaction.
     */
    private final class Database implements GroupCommitThread.Database {
        @Override
        public Connection connect() throws SQLException {
            forgetTotals();                      // a transaction on a lost connection counted nothing
            // the password as a property, never in the URL, which the driver's messages repeat
            Properties info = new Properties();
            if (settings.password() != null) {
                info.setProperty("password", settings.password());
            }
            Connection c = DriverManager.getConnection(settings.jdbcUrl(), info);
            try {
                c.setAutoCommit(false);
                setUp(c);
                c.commit();
                return c;
            } catch (SQLException | RuntimeException e) {
                c.close();
                throw e;
            }
        }

        @Override
        public boolean stillConnected(Connection c) {
            try {
                return c.isValid(2);
            } catch (SQLException e) {
                return false;
            }
        }

        @Override
        public void beforeCommit(Connection c) throws SQLException {
            writeDelta(c);
        }

        @Override
        public void afterTransaction(Connection c, boolean committed) {
            forgetTotals();
        }

        @Override
        public RuntimeException closedException() {
            return new TitanicException("the PostgreSQL Titanic store is closed", TitanicStatus.ERROR);
        }
    }

    /**
     * Whether every table, index and column of {@link #SCHEMA} is there, read from the catalog,
     * which locks no table.
     */
    private static final String SCHEMA_COMPLETE = """
            SELECT to_regclass('titanic_request') IS NOT NULL
               AND to_regclass('titanic_request_pending') IS NOT NULL
               AND to_regclass('titanic_request_replied') IS NOT NULL
               AND to_regclass('titanic_usage') IS NOT NULL
               AND EXISTS (SELECT 1 FROM pg_attribute
                           WHERE attrelid = to_regclass('titanic_usage') AND attname = 'seen_at' AND NOT attisdropped)""";

    /**
     * Schema (idempotent, serialised across servers by an advisory lock) and this store's usage row.
     * When the schema is complete, as it is for every server but the first, no DDL runs: even
     * with IF NOT EXISTS, CREATE INDEX locks its table against writes and ALTER TABLE takes an
     * exclusive lock before either looks, and a server starting beside one that writes
     * (RowExclusiveLock on both tables, in the other order) deadlocked there, once in a CI run.
     */
    private void setUp(Connection c) throws SQLException {
        boolean complete;
        try (Statement s = c.createStatement(); java.sql.ResultSet r = s.executeQuery(SCHEMA_COMPLETE)) {
            complete = r.next() && r.getBoolean(1);
        }
        if (!complete) {
            try (Statement s = c.createStatement()) {
                s.execute("SELECT pg_advisory_xact_lock(7429001)");
                for (String statement : SCHEMA.split(";")) {
                    s.execute(statement);
                }
            }
        }
        try (PreparedStatement p = c.prepareStatement("INSERT INTO titanic_usage VALUES (?, 0, 0, 0) "
                + "ON CONFLICT (owner) DO NOTHING")) {
            p.setString(1, owner);
            p.executeUpdate();
        }
    }

    /** This store's owner id: the server that holds its claims. */
    public String owner() {
        return owner;
    }

    @Override
    public boolean shared() {
        return true;
    }

    @Override
    public Duration claimLease() {
        return settings.claimLease();
    }

    /** Transactions committed since open. */
    public long commits() {
        return thread.commits();
    }

    @Override
    public CompletableFuture<Void> putRequest(String uuid, String service, Frames body) {
        if (!TitanicIds.isValid(uuid)) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("not a Titanic uuid: " + uuid));
        }
        String key = uuid.toLowerCase(Locale.ROOT);
        long size = (long) service.getBytes(StandardCharsets.UTF_8).length + body.byteSize();
        byte[][] frames = body.toList().toArray(new byte[0][]);
        return thread.submit(c -> {
            long[] usage = usage(c);
            if (usage[0] >= settings.maxEntries()) {
                throw new TitanicStoreFullException("Titanic store full: " + usage[0] + " requests held (maxEntries "
                        + settings.maxEntries() + ")");
            }
            if (usage[1] + size > settings.maxBytes()) {
                throw new TitanicStoreFullException("Titanic store full: " + usage[1] + " bytes held, a request of "
                        + size + " bytes would pass maxBytes " + settings.maxBytes());
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO titanic_request (uuid, service, body, size, owner, "
                    + "claimed_until) VALUES (?, ?, ?, ?, ?, now() + ?::interval) ON CONFLICT (uuid) DO NOTHING")) {
                Array a = c.createArrayOf("bytea", frames);
                p.setString(1, key);
                p.setString(2, service);
                p.setArray(3, a);
                p.setLong(4, size);
                p.setString(5, owner);
                p.setString(6, settings.claimLease().toMillis() + " milliseconds");
                if (p.executeUpdate() != 1) {
                    throw new IllegalArgumentException("uuid " + uuid + " is already stored");
                }
            }
            count(c, 1, size, 0);
            return null;
        });
    }

    /**
     * Entries, bytes and reply bytes held by all servers together, with this transaction's
     * operations so far: the sum of the usage rows, read once per transaction.
     */
    private long[] usage(Connection c) throws SQLException {
        if (totals == null) {
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT coalesce(sum(entries), 0), coalesce(sum(bytes), 0), "
                         + "coalesce(sum(reply_bytes), 0) FROM titanic_usage")) {
                rs.next();
                totals = new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
            }
        }
        return totals.clone();
    }

    /** An operation's change to the totals, written with the transaction's others before its commit. */
    private void count(Connection c, long entries, long bytes, long replyBytes) throws SQLException {
        usage(c);
        totals[0] += entries;
        totals[1] += bytes;
        totals[2] += replyBytes;
        delta[0] += entries;
        delta[1] += bytes;
        delta[2] += replyBytes;
    }

    private void writeDelta(Connection c) throws SQLException {
        if (delta[0] == 0 && delta[1] == 0 && delta[2] == 0) {
            return;
        }
        try (PreparedStatement p = c.prepareStatement("UPDATE titanic_usage SET entries = entries + ?, "
                + "bytes = bytes + ?, reply_bytes = reply_bytes + ?, seen_at = now() WHERE owner = ?")) {
            p.setLong(1, delta[0]);
            p.setLong(2, delta[1]);
            p.setLong(3, delta[2]);
            p.setString(4, owner);
            if (p.executeUpdate() != 1) {
                // the row went (a database restored without it): make it again
                try (PreparedStatement i = c.prepareStatement("INSERT INTO titanic_usage VALUES (?, ?, ?, ?)")) {
                    i.setString(1, owner);
                    i.setLong(2, delta[0]);
                    i.setLong(3, delta[1]);
                    i.setLong(4, delta[2]);
                    i.executeUpdate();
                }
            }
        }
    }

    private void forgetTotals() {
        totals = null;
        java.util.Arrays.fill(delta, 0);
    }

    @Override
    public CompletableFuture<Optional<StoredRequest>> request(String uuid) {
        if (!TitanicIds.isValid(uuid)) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        String key = uuid.toLowerCase(Locale.ROOT);
        return thread.submit(c -> {
            try (PreparedStatement p = c.prepareStatement("SELECT service, body FROM titanic_request WHERE uuid = ?")) {
                p.setString(1, key);
                try (ResultSet rs = p.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(new StoredRequest(key, rs.getString(1), frames(rs.getArray(2))));
                }
            }
        });
    }

    private static Frames frames(Array a) throws SQLException {
        return Frames.of((byte[][]) a.getArray());
    }

    @Override
    public CompletableFuture<List<PendingRequest>> pendingRequests() {
        return thread.submit(c -> {
            List<PendingRequest> pending = new ArrayList<>();
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT uuid, service FROM titanic_request WHERE reply IS NULL ORDER BY seq")) {
                while (rs.next()) {
                    pending.add(new PendingRequest(rs.getString(1), rs.getString(2)));
                }
            }
            return pending;
        });
    }

    @Override
    public CompletableFuture<List<PendingRequest>> claimRequests(int max) {
        return thread.submit(c -> {
            // UPDATE ... RETURNING gives no order: the rows come back with their arrival number
            record Claimed(long seq, PendingRequest request) {
            }
            List<Claimed> claimed = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement("""
                    WITH free AS (
                        SELECT uuid FROM titanic_request
                        WHERE reply IS NULL AND (owner IS NULL OR claimed_until < now())
                        ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED)
                    UPDATE titanic_request r SET owner = ?, claimed_until = now() + ?::interval
                    FROM free WHERE r.uuid = free.uuid
                    RETURNING r.seq, r.uuid, r.service""")) {
                p.setInt(1, max);
                p.setString(2, owner);
                p.setString(3, settings.claimLease().toMillis() + " milliseconds");
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        claimed.add(new Claimed(rs.getLong(1), new PendingRequest(rs.getString(2), rs.getString(3))));
                    }
                }
            }
            claimed.sort(java.util.Comparator.comparingLong(Claimed::seq));
            return claimed.stream().map(Claimed::request).toList();
        });
    }

    @Override
    public CompletableFuture<Integer> renewClaims() {
        return thread.submit(c -> {
            try (PreparedStatement p = c.prepareStatement("UPDATE titanic_request SET claimed_until = now() + ?::interval "
                    + "WHERE owner = ? AND reply IS NULL")) {
                p.setString(1, settings.claimLease().toMillis() + " milliseconds");
                p.setString(2, owner);
                int renewed = p.executeUpdate();
                foldGoneServers(c);
                return renewed;
            }
        });
    }

    /**
     * This server's usage row marked as seen, with the rows of servers not seen for a claim lease
     * (stopped or dead: their claims lapsed too) added to it and deleted, in one statement: the
     * sums stay the same. A server that was only frozen finds its row gone at its next write and
     * makes it again ({@link #writeDelta}). A row another server is folding (locked) is skipped,
     * so a fold never waits on another transaction: the batch it is in cannot deadlock with
     * another server's over it.
     */
    private void foldGoneServers(Connection c) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("""
                WITH gone AS (DELETE FROM titanic_usage WHERE owner IN (
                                  SELECT owner FROM titanic_usage WHERE owner <> ? AND seen_at < now() - ?::interval
                                  FOR UPDATE SKIP LOCKED)
                              RETURNING entries, bytes, reply_bytes)
                UPDATE titanic_usage SET entries = entries + (SELECT coalesce(sum(entries), 0) FROM gone),
                    bytes = bytes + (SELECT coalesce(sum(bytes), 0) FROM gone),
                    reply_bytes = reply_bytes + (SELECT coalesce(sum(reply_bytes), 0) FROM gone),
                    seen_at = now()
                WHERE owner = ?""")) {
            p.setString(1, owner);
            p.setString(2, settings.claimLease().toMillis() + " milliseconds");
            p.setString(3, owner);
            if (p.executeUpdate() != 1) {
                try (PreparedStatement i = c.prepareStatement("INSERT INTO titanic_usage VALUES (?, 0, 0, 0) "
                        + "ON CONFLICT (owner) DO NOTHING")) {
                    i.setString(1, owner);
                    i.executeUpdate(); // folded by another server while we were frozen: seen again
                }
            }
        }
    }

    @Override
    public CompletableFuture<Boolean> putReply(String uuid, Frames reply) {
        if (!TitanicIds.isValid(uuid)) {
            return CompletableFuture.completedFuture(false);
        }
        String key = uuid.toLowerCase(Locale.ROOT);
        long size = reply.byteSize();
        byte[][] frames = reply.toList().toArray(new byte[0][]);
        return thread.submit(c -> {
            long[] usage = usage(c);
            if (usage[2] + size > settings.maxBytes()) {
                try (PreparedStatement p = c.prepareStatement("SELECT 1 FROM titanic_request WHERE uuid = ? AND reply IS NULL")) {
                    p.setString(1, key);
                    try (ResultSet rs = p.executeQuery()) {
                        if (!rs.next()) {
                            return false;
                        }
                    }
                }
                throw new TitanicStoreFullException("Titanic store full: " + usage[2] + " bytes of replies held, a reply of "
                        + size + " bytes would pass maxBytes " + settings.maxBytes());
            }
            try (PreparedStatement p = c.prepareStatement("UPDATE titanic_request SET reply = ?, reply_size = ?, "
                    + "replied_at = ?, owner = NULL, claimed_until = NULL WHERE uuid = ? AND reply IS NULL")) {
                p.setArray(1, c.createArrayOf("bytea", frames));
                p.setLong(2, size);
                p.setLong(3, clock.getAsLong());
                p.setString(4, key);
                if (p.executeUpdate() != 1) {
                    return false;
                }
            }
            count(c, 0, 0, size);
            return true;
        });
    }

    @Override
    public CompletableFuture<ReplyLookup> reply(String uuid) {
        if (!TitanicIds.isValid(uuid)) {
            return CompletableFuture.completedFuture(new ReplyLookup.Unknown());
        }
        String key = uuid.toLowerCase(Locale.ROOT);
        return thread.submit(c -> {
            try (PreparedStatement p = c.prepareStatement("SELECT reply FROM titanic_request WHERE uuid = ?")) {
                p.setString(1, key);
                try (ResultSet rs = p.executeQuery()) {
                    if (!rs.next()) {
                        return new ReplyLookup.Unknown();
                    }
                    Array a = rs.getArray(1);
                    return a == null ? new ReplyLookup.Pending() : new ReplyLookup.Ready(frames(a));
                }
            }
        });
    }

    @Override
    public CompletableFuture<Void> close(String uuid) {
        if (!TitanicIds.isValid(uuid)) {
            return CompletableFuture.completedFuture(null);
        }
        String key = uuid.toLowerCase(Locale.ROOT);
        return thread.submit(c -> {
            try (PreparedStatement p = c.prepareStatement("DELETE FROM titanic_request WHERE uuid = ? "
                    + "RETURNING size, coalesce(reply_size, 0)")) {
                p.setString(1, key);
                try (ResultSet rs = p.executeQuery()) {
                    if (rs.next()) {
                        count(c, -1, -rs.getLong(1), -rs.getLong(2));
                    }
                }
            }
            return null;
        });
    }

    @Override
    public CompletableFuture<Integer> expireReplies(long storedAtOrBeforeMillis) {
        return thread.submit(c -> {
            long entries = 0;
            long bytes = 0;
            long replyBytes = 0;
            try (PreparedStatement p = c.prepareStatement("DELETE FROM titanic_request WHERE reply IS NOT NULL "
                    + "AND replied_at <= ? RETURNING size, reply_size")) {
                p.setLong(1, storedAtOrBeforeMillis);
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        entries++;
                        bytes += rs.getLong(1);
                        replyBytes += rs.getLong(2);
                    }
                }
            }
            if (entries > 0) {
                count(c, -entries, -bytes, -replyBytes);
            }
            return (int) entries;
        });
    }

    @Override
    public CompletableFuture<Long> size() {
        return thread.submit(c -> usage(c)[0]);
    }

    /** Bytes held by requests (bodies and service names) and by replies, all servers together. */
    public CompletableFuture<long[]> storedBytes() {
        return thread.submit(c -> {
            long[] u = usage(c);
            return new long[] {u[1], u[2]};
        });
    }

    /**
     * Commits what is queued and closes the connection; waits for it. This store's claims stay
     * until their lease lapses (another server then takes them).
     */
    @Override
    public void close() {
        thread.stop();
        if (!thread.isCurrentThread()) {
            thread.terminated().exceptionally(e -> null).join();   // a connection already lost cannot close cleanly
        }
    }

    @Override
    public String toString() {
        return "PostgreSQL " + settings.jdbcUrl() + ", owner " + owner;
    }
}
