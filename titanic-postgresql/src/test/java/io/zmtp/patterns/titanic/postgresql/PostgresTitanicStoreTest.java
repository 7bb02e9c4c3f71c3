package io.zmtp.patterns.titanic.postgresql;

import io.zmtp.patterns.titanic.TitanicException;
import io.zmtp.patterns.titanic.TitanicIds;
import io.zmtp.patterns.titanic.TitanicStore;
import io.zmtp.patterns.titanic.TitanicStore.PendingRequest;
import io.zmtp.patterns.titanic.TitanicStore.ReplyLookup;
import io.zmtp.patterns.titanic.TitanicStoreFullException;
import io.zmtp.testing.Await;
import io.zmtp.testing.PostgresServer;
import io.zmtp.wire.Frames;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The PostgreSQL store against a real server (a private cluster this class starts and stops). */
class PostgresTitanicStoreTest {
    static PostgresServer server;
    static final AtomicInteger databases = new AtomicInteger();
    final List<PostgresTitanicStore> stores = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        server = PostgresServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @AfterEach
    void closeStores() {
        stores.forEach(PostgresTitanicStore::close);
    }

    /** A store on a database of its own; {@code more} on the same database, as other servers. */
    PostgresStoreSettings.Builder fresh() {
        return PostgresStoreSettings.builder().url(server.newDatabase("t" + databases.incrementAndGet()));
    }

    PostgresTitanicStore open(PostgresStoreSettings s) {
        PostgresTitanicStore store = PostgresTitanicStore.open(s);
        stores.add(store);
        return store;
    }

    static <T> T get(CompletableFuture<T> f) {
        return Await.get(f);
    }

    @Test
    void aStoredRequestIsPendingUntilItsReplyThenTheReplyUntilClosed() {
        PostgresTitanicStore s = open(fresh().build());
        String id = TitanicIds.newId();
        get(s.putRequest(id, "echo", Frames.ofStrings("hello", "")));
        assertEquals("echo", get(s.request(id)).orElseThrow().service());
        assertEquals(Frames.ofStrings("hello", ""), get(s.request(id)).orElseThrow().body());
        assertInstanceOf(ReplyLookup.Pending.class, get(s.reply(id)));
        assertEquals(List.of(new PendingRequest(id, "echo")), get(s.pendingRequests()));
        assertTrue(get(s.putReply(id, Frames.ofStrings("world"))));
        assertFalse(get(s.putReply(id, Frames.ofStrings("late"))), "the first reply stays");
        assertEquals(Frames.ofStrings("world"), ((ReplyLookup.Ready) get(s.reply(id))).reply());
        assertEquals(List.of(), get(s.pendingRequests()));
        assertEquals(1L, get(s.size()));
        get(s.close(id));
        assertInstanceOf(ReplyLookup.Unknown.class, get(s.reply(id)));
        assertFalse(get(s.putReply(id, Frames.ofStrings("after close"))));
        get(s.close(id));
        get(s.close("not-a-uuid"));
        assertEquals(0L, get(s.size()));
        assertEquals(0L, get(s.storedBytes())[0]);
    }

    @Test
    void aDuplicateUuidFailsAloneAndStoresNothingMore() {
        PostgresTitanicStore s = open(fresh().build());
        String id = TitanicIds.newId();
        get(s.putRequest(id, "echo", Frames.ofStrings("a")));
        CompletableFuture<Void> dup = s.putRequest(id, "echo", Frames.ofStrings("b"));
        CompletableFuture<Void> other = s.putRequest(TitanicIds.newId(), "echo", Frames.ofStrings("c"));
        CompletionException e = assertThrows(CompletionException.class, dup::join);
        assertInstanceOf(IllegalArgumentException.class, e.getCause());
        get(other);
        assertEquals(2L, get(s.size()));
        assertEquals(Frames.ofStrings("a"), get(s.request(id)).orElseThrow().body());
    }

    @Test
    void aDeadServersClaimsAreTakenOverOnceEachAfterTheLease() {
        PostgresStoreSettings settings = fresh().claimLease(Duration.ofSeconds(1)).build();
        PostgresTitanicStore a = open(settings);
        PostgresTitanicStore b = open(settings);
        PostgresTitanicStore c = open(settings);
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            String id = TitanicIds.newId();
            ids.add(id);
            a.putRequest(id, "echo", Frames.ofStrings("r" + i));
        }
        get(a.renewClaims());
        assertEquals(List.of(), get(b.claimRequests(1000)), "a's requests are a's while it renews");
        assertEquals(200, get(a.renewClaims()));
        stores.remove(a);
        a.close();                                  // a stops renewing, as a dead server would
        Set<String> taken = new HashSet<>();
        List<String> twice = new ArrayList<>();
        Await.until(Duration.ofSeconds(30), () -> "taken over: " + taken.size(), () -> {
            CompletableFuture<List<PendingRequest>> byB = b.claimRequests(70);
            CompletableFuture<List<PendingRequest>> byC = c.claimRequests(70);
            for (PendingRequest p : get(byB)) {
                if (!taken.add(p.uuid())) {
                    twice.add(p.uuid());
                }
            }
            for (PendingRequest p : get(byC)) {
                if (!taken.add(p.uuid())) {
                    twice.add(p.uuid());
                }
            }
            return taken.size() == 200;
        });
        assertEquals(ids, taken);
        assertEquals(List.of(), twice, "no request claimed by two servers");
        assertEquals(List.of(), get(b.claimRequests(1000)), "all held (by b and c, who renew)");
    }

    @Test
    void theUsageRowsOfGoneServersAreFoldedIntoALiveOneWithTheSameTotals() throws Exception {
        PostgresStoreSettings settings = fresh().claimLease(Duration.ofSeconds(1)).build();
        List<String> ids = new ArrayList<>();
        for (int start = 0; start < 3; start++) {         // a server started three times
            PostgresTitanicStore a = open(settings);
            for (int i = 0; i < 2; i++) {
                String id = TitanicIds.newId();
                ids.add(id);
                get(a.putRequest(id, "echo", Frames.ofStrings("r")));
            }
            stores.remove(a);
            a.close();
        }
        PostgresTitanicStore b = open(settings);
        get(b.close(ids.get(0)));                         // b's net change is -1
        assertEquals(4, usageRows(settings).size(), "three gone servers and b: " + usageRows(settings));
        Await.until(Duration.ofSeconds(30), () -> "folded: " + usageRows(settings), () -> {
            get(b.renewClaims());                           // as b's claim keeper does every third of the lease
            return usageRows(settings).size() == 1;
        });
        assertEquals(List.of(b.owner() + " 5"), usageRows(settings), "the gone servers' counts are b's now");
        assertEquals(5L, get(b.size()));
        PostgresTitanicStore c = open(settings);
        get(c.close(ids.get(1)));
        get(c.renewClaims());                               // c seen just now: alive
        get(b.renewClaims());
        assertEquals(2, usageRows(settings).size(), "a live server's row stays: " + usageRows(settings));
        assertEquals(4L, get(c.size()));
    }

    /** The rows of titanic_usage: "owner entries", by owner. */
    /**
     * A server that opens the store while another writes takes no table lock: with both tables
     * held in ROW EXCLUSIVE mode by an open transaction (what a writing server holds), a second
     * open completes. Before the schema was checked in the catalog first, its CREATE INDEX IF NOT
     * EXISTS waited for that transaction, and a writer waiting in turn for the opener deadlocked.
     */
    @Test
    void aServerOpensTheStoreWhileAnotherHoldsItsTablesForWriting() throws Exception {
        PostgresStoreSettings settings = fresh().build();
        open(settings);
        try (java.sql.Connection writer = java.sql.DriverManager.getConnection(settings.jdbcUrl())) {
            writer.setAutoCommit(false);
            try (java.sql.Statement st = writer.createStatement()) {
                st.execute("LOCK TABLE titanic_usage IN ROW EXCLUSIVE MODE");
                st.execute("LOCK TABLE titanic_request IN ROW EXCLUSIVE MODE");
            }
            CompletableFuture<PostgresTitanicStore> second = CompletableFuture.supplyAsync(() -> open(settings));
            try {
                assertTrue(get(second).shared(), "the second server opened the store");
            } finally {
                writer.rollback();
            }
        }
    }

    private static List<String> usageRows(PostgresStoreSettings settings) {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(settings.jdbcUrl());
             java.sql.ResultSet rs = c.createStatement().executeQuery("SELECT owner, entries FROM titanic_usage ORDER BY owner")) {
            List<String> rows = new ArrayList<>();
            while (rs.next()) {
                rows.add(rs.getString(1) + " " + rs.getLong(2));
            }
            return rows;
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void concurrentRepliesFromTwoServersStoreOne() {
        PostgresStoreSettings settings = fresh().build();
        PostgresTitanicStore a = open(settings);
        PostgresTitanicStore b = open(settings);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            String id = TitanicIds.newId();
            ids.add(id);
            a.putRequest(id, "echo", Frames.ofStrings("r"));
        }
        get(a.size());
        List<CompletableFuture<Boolean>> fromA = new ArrayList<>();
        List<CompletableFuture<Boolean>> fromB = new ArrayList<>();
        for (String id : ids) {
            fromA.add(a.putReply(id, Frames.ofStrings("from a")));
            fromB.add(b.putReply(id, Frames.ofStrings("from b")));
        }
        for (int i = 0; i < ids.size(); i++) {
            boolean ra = get(fromA.get(i));
            boolean rb = get(fromB.get(i));
            assertTrue(ra ^ rb, "exactly one reply stored for " + ids.get(i));
            String stored = ((ReplyLookup.Ready) get(b.reply(ids.get(i)))).reply().frameString(0);
            assertEquals(ra ? "from a" : "from b", stored);
        }
    }

    @Test
    void boundsAreSharedByAllServersAndACloseFreesRoom() {
        PostgresStoreSettings settings = fresh().maxEntries(3).build();
        PostgresTitanicStore a = open(settings);
        PostgresTitanicStore b = open(settings);
        String first = TitanicIds.newId();
        get(a.putRequest(first, "echo", Frames.ofStrings("1")));
        get(b.putRequest(TitanicIds.newId(), "echo", Frames.ofStrings("2")));
        get(a.putRequest(TitanicIds.newId(), "echo", Frames.ofStrings("3")));
        CompletionException e = assertThrows(CompletionException.class,
                () -> b.putRequest(TitanicIds.newId(), "echo", Frames.ofStrings("4")).join());
        assertInstanceOf(TitanicStoreFullException.class, e.getCause());
        get(b.close(first));                          // closed through the other server
        get(b.putRequest(TitanicIds.newId(), "echo", Frames.ofStrings("4")));
        assertEquals(3L, get(a.size()));
    }

    @Test
    void retentionDeletesOldRepliesAndNothingPending() {
        long[] now = {1_000};
        PostgresTitanicStore s = open(fresh().clock(() -> now[0]).build());
        String old = TitanicIds.newId();
        String recent = TitanicIds.newId();
        String pending = TitanicIds.newId();
        get(s.putRequest(old, "echo", Frames.ofStrings("o")));
        get(s.putRequest(recent, "echo", Frames.ofStrings("r")));
        get(s.putRequest(pending, "echo", Frames.ofStrings("p")));
        get(s.putReply(old, Frames.ofStrings("x")));
        now[0] = 2_000;
        get(s.putReply(recent, Frames.ofStrings("y")));
        assertEquals(1, get(s.expireReplies(1_500)));
        assertInstanceOf(ReplyLookup.Unknown.class, get(s.reply(old)));
        assertInstanceOf(ReplyLookup.Ready.class, get(s.reply(recent)));
        assertInstanceOf(ReplyLookup.Pending.class, get(s.reply(pending)));
        assertEquals(2L, get(s.size()));
    }

    @Test
    void whileTheDatabaseIsDownOperationsFailAtOnceAndNothingAcknowledgedIsLost() {
        PostgresTitanicStore s = open(fresh().build());
        String before = TitanicIds.newId();
        get(s.putRequest(before, "echo", Frames.ofStrings("kept")));
        java.io.PrintStream stderr = System.err;
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(log, true, java.nio.charset.StandardCharsets.UTF_8));
        String where = s.toString().substring("PostgreSQL ".length(), s.toString().indexOf(", owner"));
        try {
            server.stopImmediately();
            try {
                CompletionException e = assertThrows(CompletionException.class,
                        () -> s.putRequest(TitanicIds.newId(), "echo", Frames.ofStrings("lost")).join());
                assertInstanceOf(TitanicException.class, e.getCause(), String.valueOf(e.getCause()));
                assertThrows(CompletionException.class, () -> s.reply(before).join(), "a read fails too");
                for (int i = 0; i < 5; i++) {
                    assertThrows(CompletionException.class, () -> s.size().join(), "and every operation after them");
                }
            } finally {
                server.startAgain();
            }
            String after = TitanicIds.newId();
            get(s.putRequest(after, "echo", Frames.ofStrings("again")));
        } finally {
            System.setErr(stderr);
        }
        // the outage in two lines, not one (with a stack trace) per failed operation
        java.util.List<String> lines = log.toString(java.nio.charset.StandardCharsets.UTF_8).lines()
                .filter(l -> l.contains(where)).toList();
        assertEquals(2, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(0).contains("WARN") && lines.get(0).contains("cannot be reached"), lines.get(0));
        assertTrue(lines.get(1).contains("connected again to " + where + " (7 operations failed meanwhile)"), lines.get(1));
        assertEquals(Frames.ofStrings("kept"), get(s.request(before)).orElseThrow().body());
        assertEquals(2L, get(s.size()), "the request that failed was not stored");
    }

    @Test
    void aPostgresqlUrlBecomesAJdbcUrlAndPasswordsAreNeverShown() {
        PostgresStoreSettings withPassword = PostgresStoreSettings.builder().url("postgresql://ti:p%40w@db:5432/titanic").build();
        assertEquals("jdbc:postgresql://db:5432/titanic?user=ti", withPassword.jdbcUrl(), "the password is kept apart");
        assertEquals("p@w", withPassword.password(), "percent-decoded as libpq does");
        PostgresStoreSettings jdbc = PostgresStoreSettings.of("jdbc:postgresql://db/t?user=u&password=secret&ssl=true");
        assertEquals("jdbc:postgresql://db/t?user=u&ssl=true", jdbc.jdbcUrl());
        assertEquals("secret", jdbc.password());
        assertEquals("masked *** here", jdbc.redact("masked secret here"));
        assertFalse(PostgresStoreSettings.of("postgresql://u@db/t").hasPassword(), "none: the driver's ~/.pgpass");
        assertEquals("given", PostgresStoreSettings.builder().url("postgresql://u@db/t").password("given").build().password());
        assertEquals("jdbc:postgresql://127.0.0.1/t", PostgresStoreSettings.of("postgresql://127.0.0.1/t").jdbcUrl());
        String shown = PostgresStoreSettings.builder().url("postgresql://ti:pw@db/titanic").build().toString();
        assertFalse(shown.contains("pw"), shown);
        assertFalse(PostgresStoreSettings.redacted("jdbc:postgresql://db/t?user=u&password=secret").contains("secret"));
        assertThrows(IllegalArgumentException.class, () -> PostgresStoreSettings.of("mysql://db/t"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> PostgresTitanicStore.open(
                PostgresStoreSettings.of("jdbc:postgresql://127.0.0.1:" + io.zmtp.testing.FreePorts.next()
                        + "/none?user=x&password=hidden&connectTimeout=2")));
        assertFalse(e.getMessage().contains("hidden"), e.getMessage());
    }
}
