package io.zmtp.benchmarks.titanic;

import io.zmtp.patterns.titanic.sqlite.SqliteTitanicStore;
import io.zmtp.patterns.titanic.TitanicStore;
import io.zmtp.patterns.titanic.sqlite.TitanicStoreSettings;
import io.zmtp.patterns.titanic.sqlite.TitanicStoreSettings.Durability;
import io.zmtp.wire.Frames;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Titanic's durable store on this machine: the engine's raw commit rate (the physical limit: one
 * tiny SQLite transaction per operation, WAL, the same pragmas as the store) next to durable
 * submissions per second through {@link SqliteTitanicStore#putRequest} (a 64-byte request for
 * service {@code echo}, complete only once committed), with 1 client (one request outstanding at a
 * time) and 100 clients (100 outstanding: each completion is answered by a new request, as a
 * Titanic server's loop submits for its clients). Both at each {@link Durability}: the store's
 * default {@code PROCESS_CRASH} (written to the operating system, survives {@code kill -9}) and
 * {@code POWER_LOSS} (fsync per commit). Each trial starts on an empty store in a new directory
 * under {@code java.io.tmpdir}. And {@code lookupReply}: what {@code titanic.reply} costs the store
 * (a stored reply looked up, 100 lookups outstanding), since reads share the writer's thread.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar TitanicStoreBenchmark -f 1 -wi 2 -w 1s -i 3 -r 2s   # short
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsPrepend = "-Dio.netty.leakDetection.level=disabled")
public class TitanicStoreBenchmark {
    static final byte[] BODY = new byte[64];

    /** One tiny transaction per operation on a bare SQLite connection: the engine's commit rate. */
    @State(Scope.Thread)
    public static class Engine {
        @Param({"PROCESS_CRASH", "POWER_LOSS"})
        public Durability durability;

        Path dir;
        Connection connection;
        PreparedStatement insert;

        @Setup(Level.Trial)
        public void open() throws IOException, SQLException {
            dir = Files.createTempDirectory("titanic-engine");
            connection = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("raw.db"));
            try (Statement s = connection.createStatement()) {
                s.execute("PRAGMA locking_mode = EXCLUSIVE");
                s.execute("PRAGMA journal_mode = WAL");
                s.execute("PRAGMA synchronous = " + (durability == Durability.POWER_LOSS ? "FULL" : "NORMAL"));
                s.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL)");
            }
            connection.setAutoCommit(false);
            insert = connection.prepareStatement("INSERT INTO t (v) VALUES (?)");
        }

        @TearDown(Level.Trial)
        public void close() throws SQLException {
            connection.close();
            delete(dir);
        }
    }

    /** The store, with {@code clients} requests outstanding. */
    @State(Scope.Thread)
    public static class Store {
        @Param({"PROCESS_CRASH", "POWER_LOSS"})
        public Durability durability;

        @Param({"1", "100"})
        public int clients;

        Path dir;
        SqliteTitanicStore store;
        final ArrayDeque<CompletableFuture<Void>> outstanding = new ArrayDeque<>();
        final String prefix = HexFormat.of().toHexDigits(System.nanoTime());
        long next;

        @Setup(Level.Trial)
        public void open() throws IOException {
            dir = Files.createTempDirectory("titanic-store");
            store = SqliteTitanicStore.open(TitanicStoreSettings.builder().directory(dir).durability(durability)
                    .maxEntries(100_000_000).maxBytes(64L << 30).build());
        }

        String nextUuid() {
            return prefix + HexFormat.of().toHexDigits(next++);
        }

        @TearDown(Level.Trial)
        public void close() {
            outstanding.forEach(CompletableFuture::join);
            // how well commits were grouped, on the trial's last line
            System.out.printf("(%d requests in %d transactions) ", next, store.commits());
            store.close();
            delete(dir);
        }
    }

    /** A store of 10,000 replied requests, looked up with 100 lookups outstanding (reads share the writer's thread). */
    @State(Scope.Thread)
    public static class Replies {
        static final int STORED = 10_000;
        static final int WINDOW = 100;

        Path dir;
        SqliteTitanicStore store;
        final String[] uuids = new String[STORED];
        final ArrayDeque<CompletableFuture<TitanicStore.ReplyLookup>> outstanding = new ArrayDeque<>();
        int next;

        @Setup(Level.Trial)
        public void open() throws IOException {
            dir = Files.createTempDirectory("titanic-replies");
            store = SqliteTitanicStore.open(TitanicStoreSettings.builder().directory(dir).build());
            String prefix = HexFormat.of().toHexDigits(System.nanoTime());
            List<CompletableFuture<Boolean>> stored = new java.util.ArrayList<>();
            for (int i = 0; i < STORED; i++) {
                String uuid = prefix + HexFormat.of().toHexDigits((long) i);
                uuids[i] = uuid;
                stored.add(store.putRequest(uuid, "echo", Frames.of(BODY))
                        .thenCompose(v -> store.putReply(uuid, Frames.of(BODY))));
            }
            stored.forEach(f -> {
                if (!f.join()) {
                    throw new IllegalStateException("reply not stored");
                }
            });
        }

        @TearDown(Level.Trial)
        public void close() {
            outstanding.forEach(CompletableFuture::join);
            store.close();
            delete(dir);
        }
    }

    /** One reply looked up (titanic.reply's work) per operation, 100 outstanding. */
    @Benchmark
    public Object lookupReply(Replies r) {
        Object done = null;
        if (r.outstanding.size() == Replies.WINDOW) {
            done = r.outstanding.poll().join();
            if (!(done instanceof TitanicStore.ReplyLookup.Ready)) {
                throw new IllegalStateException("lookup answered " + done);
            }
        }
        r.outstanding.add(r.store.reply(r.uuids[r.next++ % Replies.STORED]));
        return done;
    }

    @Benchmark
    public long rawCommit(Engine e) throws SQLException {
        e.insert.setBytes(1, BODY);
        e.insert.executeUpdate();
        e.connection.commit();
        return 1;
    }

    /** One durable submission completed per operation (after the first {@code clients}, each waits for the oldest). */
    @Benchmark
    public long durableSubmit(Store s) {
        if (s.outstanding.size() == s.clients) {
            s.outstanding.poll().join();
        }
        s.outstanding.add(s.store.putRequest(s.nextUuid(), "echo", Frames.of(BODY)));
        return s.next;
    }

    static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
