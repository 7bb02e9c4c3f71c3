package io.zmtp.patterns.titanic.sqlite;

import io.zmtp.patterns.titanic.TitanicStore;

import io.zmtp.patterns.titanic.TitanicStore.PendingRequest;
import io.zmtp.patterns.titanic.TitanicStore.ReplyLookup;
import io.zmtp.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static io.zmtp.patterns.PatternTesting.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store's promise against {@code kill -9}: a child process ({@link StoreWritingProcess}) writes
 * for ever and prints each operation once its future completed; it is killed with SIGKILL
 * ({@link Process#destroyForcibly()}) at a random moment, several times, on the same directory.
 * After each kill the store opens cleanly, its database passes SQLite's integrity check, and every
 * printed operation is there: requests stored (and listed pending until replied), replies stored
 * with their bytes, closes done; an operation that completed but was not printed yet may be there
 * too (a close that committed just before the kill).
 */
class StoreKillTest {
    private static final Pattern LINE = Pattern.compile("[PABRQC] [0-9a-f]{32}");
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void everyCompletedWriteSurvivesKillMinus9() throws Exception {
        killAndCheck(TitanicStoreSettings.Durability.PROCESS_CRASH, 5);
    }

    @Test
    void everyCompletedWriteSurvivesKillMinus9WithPowerLossDurability() throws Exception {
        killAndCheck(TitanicStoreSettings.Durability.POWER_LOSS, 2);
    }

    private void killAndCheck(TitanicStoreSettings.Durability durability, int rounds) throws Exception {
        Path storeDir = dir.resolve("store");
        long seed = System.nanoTime();
        Random random = new Random(seed);
        Map<String, Character> printed = new HashMap<>(); // uuid -> its last letter
        for (int round = 0; round < rounds; round++) {
            int killAfter = 200 + random.nextInt(5000);
            String context = "round " + round + " of seed " + seed + ", killed after " + killAfter + " lines";
            for (String line : runAndKill(storeDir, durability, killAfter, context)) {
                printed.put(line.substring(2), line.charAt(0));
            }
            assertIntegrity(storeDir, context);
            try (SqliteTitanicStore store = SqliteTitanicStore.open(TitanicStoreSettings.in(storeDir))) {
                Set<String> pending = new HashSet<>();
                for (PendingRequest p : get(store.pendingRequests())) {
                    pending.add(p.uuid());
                }
                long held = 0;
                for (Map.Entry<String, Character> e : printed.entrySet()) {
                    String uuid = e.getKey();
                    char letter = e.getValue();
                    String what = letter + " " + uuid + ", " + context;
                    ReplyLookup lookup = get(store.reply(uuid));
                    switch (letter) {
                        case 'P', 'A' -> { // stored (A: its reply may have been stored unprinted)
                            if (letter == 'P' || lookup instanceof ReplyLookup.Pending) {
                                assertInstanceOf(ReplyLookup.Pending.class, lookup, what);
                                assertTrue(pending.contains(uuid), "listed pending: " + what);
                                assertEquals(uuid, new String(get(store.request(uuid)).orElseThrow().body().frame(0),
                                        StandardCharsets.US_ASCII), what);
                            } else {
                                assertReply(lookup, uuid, what);
                            }
                        }
                        case 'R' -> assertReply(lookup, uuid, what);
                        case 'B', 'Q' -> { // stored or replied; its close may have been done unprinted
                            if (!(lookup instanceof ReplyLookup.Unknown)) {
                                if (letter == 'Q' || lookup instanceof ReplyLookup.Ready) {
                                    assertReply(lookup, uuid, what);
                                } else {
                                    assertTrue(pending.contains(uuid), "listed pending: " + what);
                                }
                            }
                        }
                        default -> assertInstanceOf(ReplyLookup.Unknown.class, lookup, what); // C
                    }
                    if (!(lookup instanceof ReplyLookup.Unknown)) {
                        held++;
                    }
                }
                assertTrue(get(store.size()) >= held, context);
            }
        }
        assertTrue(printed.size() >= rounds * 100, "the child wrote: " + printed.size());
    }

    private static void assertReply(ReplyLookup lookup, String uuid, String what) {
        ReplyLookup.Ready ready = assertInstanceOf(ReplyLookup.Ready.class, lookup, what);
        assertEquals("re " + uuid, new String(ready.reply().frame(0), StandardCharsets.US_ASCII), what);
    }

    /** Runs the child until it printed {@code killAfter} lines, kills it with SIGKILL, returns every line it printed. */
    private List<String> runAndKill(Path storeDir, TitanicStoreSettings.Durability durability, int killAfter,
            String context) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path stderr = Files.createTempFile(dir, "child", ".err");
        // sqlite-jdbc unpacks its native library into org.sqlite.tmpdir and deletes it at exit, which
        // a killed process never reaches: keep it in the test's directory, deleted after the test
        Path nativeDir = Files.createDirectories(dir.resolve("native"));
        Process child = new ProcessBuilder(java.toString(), "-Xmx256m", "-Dorg.sqlite.tmpdir=" + nativeDir,
                "-cp", System.getProperty("java.class.path"),
                StoreWritingProcess.class.getName(), storeDir.toString(), durability.name())
                .redirectError(stderr.toFile())
                .start();
        List<String> lines = new CopyOnWriteArrayList<>();
        boolean[] opened = {false};
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII))) {
                for (String line; (line = in.readLine()) != null; ) {
                    if (LINE.matcher(line).matches()) {
                        lines.add(line);
                    } else if (line.equals("OPEN")) {
                        opened[0] = true;
                    } // else: a line cut by the kill, not printed whole
                }
            } catch (IOException e) {
                // the pipe closes with the process
            }
        }, "child-stdout");
        reader.start();
        try {
            Await.until(DEADLINE, () -> "the child printing " + killAfter + " lines (it printed " + lines.size()
                    + ", alive " + child.isAlive() + ", stderr: " + read(stderr) + "), " + context,
                    () -> lines.size() >= killAfter || !child.isAlive());
            assertTrue(child.isAlive(), "the child died by itself: " + read(stderr));
        } finally {
            child.destroyForcibly();
        }
        assertTrue(child.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS), "killed child gone");
        assertEquals(137, child.exitValue(), "killed by SIGKILL");
        reader.join(DEADLINE.toMillis());
        assertTrue(opened[0], context);
        return new ArrayList<>(lines);
    }

    private static void assertIntegrity(Path storeDir, String context) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + storeDir.resolve(TitanicStoreSettings.DATABASE_FILE));
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("PRAGMA integrity_check")) {
            assertTrue(rs.next());
            assertEquals("ok", rs.getString(1), context);
        }
    }

    private static String read(Path file) {
        try {
            String text = Files.readString(file);
            return text.length() > 2000 ? text.substring(0, 2000) + "..." : text;
        } catch (IOException e) {
            return e.toString();
        }
    }
}
