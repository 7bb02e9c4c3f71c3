package io.zmtp.cli;

import io.zmtp.testing.FreePorts;
import io.zmtp.testing.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code zmtp titanic --store postgresql://...} as a process of its own (JUL and SLF4J configured
 * as {@code main} does, nothing captured in-process): no output stream ever shows the password,
 * whatever is wrong with the URL or the database; the driver's JUL warnings come in the SLF4J
 * format; and the password can stay off the command line ({@code PGPASSWORD}, {@code ~/.pgpass}).
 */
class TitanicStorePasswordTest {
    static final String SECRET = "S3cretPw";
    static PostgresServer db;

    @TempDir
    Path dir;

    @AfterAll
    static void stopDatabase() {
        if (db != null) {
            db.close();
        }
    }

    /** Every output stream of a failing {@code zmtp titanic}, for URLs wrong in every way. */
    @Test
    void aStoreThatCannotBeOpenedNeverShowsItsPassword() {
        int closed = FreePorts.next();
        List<String> urls = List.of(
                "postgresql://u:" + SECRET + "@127.0.0.1:notaport/db",
                "postgresql://u:" + SECRET + "@127.0.0.1:99999/db",
                "postgresql://u:" + SECRET + "@[::1/db",
                "postgresql://u:" + SECRET + "@127.0.0.1:" + closed + "/db?connectTimeout=2",
                "postgres://u:" + SECRET.substring(0, 3) + "%" + Integer.toHexString(SECRET.charAt(3)) + SECRET.substring(4)
                        + "@127.0.0.1:notaport/db",
                "jdbc:postgresql://127.0.0.1:notaport/db?user=u&password=" + SECRET,
                "jdbc:postgresql://127.0.0.1:" + closed + "/db?password=" + SECRET + "&user=u&connectTimeout=2",
                "jdbc:postgresql://127.0.0.1:" + closed + "/db?user=u&password=" + SECRET + "&sslmode=nonsense");
        // each run is a JVM of its own: three at a time, so the test takes a third of the time
        Map<String, Future<Run>> runs = new LinkedHashMap<>();
        Future<Run> badPortRun;
        Future<Run> fromEnvRun;
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            for (String url : urls) {
                runs.put(url, pool.submit(() -> Run.of(Map.of(), "titanic", "-e", "tcp://127.0.0.1:" + closed, "--store", url)));
            }
            badPortRun = pool.submit(() -> Run.of(Map.of(), "titanic", "--store", urls.get(0)));
            fromEnvRun = pool.submit(() -> Run.of(Map.of("PGPASSWORD", SECRET), "titanic", "--store",
                    "postgresql://u@127.0.0.1:" + closed + "/db?connectTimeout=2"));
        } finally {
            pool.shutdown();
        }
        for (String url : urls) {
            Run r = done(runs.get(url));
            assertEquals(1, r.exit, url + ": " + r);
            assertTrue(r.err.contains("titanic: cannot open the Titanic store at jdbc:postgresql://"), url + ": " + r);
            assertNoSecret(url, r);
            assertFalse(r.err.matches("(?s).*(^|\n)(WARNING|SEVERE|INFO): .*"), "a JUL-format line: " + r);
        }
        Run badPort = done(badPortRun);
        assertTrue(badPort.err.contains("WARN org.postgresql.util.PGPropertyUtil - JDBC URL invalid port number: notaport"),
                "the driver's warning through SLF4J: " + badPort);
        Run fromEnv = done(fromEnvRun);
        assertEquals(1, fromEnv.exit, fromEnv.toString());
        assertNoSecret("PGPASSWORD", fromEnv);
    }

    /** PGPASSWORD, then the driver's password file; a wrong password is refused without being shown. */
    @Test
    void thePasswordCanComeFromPgpasswordOrAPasswordFile() throws IOException {
        db = PostgresServer.start();
        db.addPasswordRole("operator", SECRET);
        String url = "postgresql://operator@127.0.0.1:" + db.port() + "/postgres";
        String broker = "tcp://127.0.0.1:" + FreePorts.next();

        Run wrong = Run.of(Map.of("PGPASSWORD", "Wrong" + SECRET), "titanic", "-e", broker, "--store", url);
        assertEquals(1, wrong.exit, wrong.toString());
        assertTrue(wrong.err.contains("password authentication failed for user \"operator\""), wrong.toString());
        assertNoSecret("a wrong PGPASSWORD", wrong);

        Run env = Run.serving(Map.of("PGPASSWORD", SECRET), "titanic", "-e", broker, "--store", url);
        assertTrue(env.out.contains("titanic serving through " + broker), env.toString());
        assertTrue(env.out.matches("(?s).*; store: PostgreSQL jdbc:postgresql://127\\.0\\.0\\.1:" + db.port()
                + "/postgres\\?user=operator, owner [0-9a-f-]{36}\n.*"), "the start-up line names the store: " + env);
        assertNoSecret("PGPASSWORD", env);

        Path passfile = dir.resolve("pgpass");
        Files.writeString(passfile, "127.0.0.1:" + db.port() + ":postgres:operator:" + SECRET + "\n");
        Files.setPosixFilePermissions(passfile, PosixFilePermissions.fromString("rw-------"));
        Run file = Run.serving(Map.of("PGPASSFILE", passfile.toString()), "titanic", "-e", broker, "--store", url);
        assertTrue(file.out.contains("titanic serving through " + broker), file.toString());
        assertNoSecret("PGPASSFILE", file);
    }

    private static Run done(Future<Run> run) {
        try {
            return run.get(90, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof AssertionError a ? a : new AssertionError(e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("a zmtp titanic run did not end within 90 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static void assertNoSecret(String what, Run r) {
        assertFalse(r.out.contains(SECRET), what + ": the password on stdout: " + r.out);
        assertFalse(r.err.contains(SECRET), what + ": the password on stderr: " + r.err);
    }

    /** A {@code zmtp} command in a JVM of its own, on this test's class path, with its exit status and output. */
    record Run(int exit, String out, String err) {
        /** Runs a command that ends by itself. */
        static Run of(Map<String, String> env, String... args) {
            return run(env, null, args);
        }

        /** Runs a command that serves until stopped: until it prints its serving line, then stopped. */
        static Run serving(Map<String, String> env, String... args) {
            return run(env, "serving", args);
        }

        private static Run run(Map<String, String> env, String until, String... args) {
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), ZmtpCli.class.getName()));
            cmd.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().remove("PGPASSWORD");
            pb.environment().remove("PGPASSFILE");
            pb.environment().putAll(env);
            try {
                Process p = pb.start();
                p.getOutputStream().close();
                Collector out = new Collector(p.getInputStream());
                Collector err = new Collector(p.getErrorStream());
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                if (until != null) {
                    io.zmtp.testing.Await.until(java.time.Duration.ofSeconds(60),
                            () -> "'" + until + "' from zmtp " + String.join(" ", args) + ": " + out.text() + err.text(),
                            () -> out.text().contains(until) || !p.isAlive());
                    p.destroy();  // SIGTERM, as an operator's kill
                }
                if (!p.waitFor(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    p.destroyForcibly();
                    throw new AssertionError("zmtp " + String.join(" ", args) + " did not end: " + out.text() + err.text());
                }
                out.join();
                err.join();
                return new Run(p.exitValue(), out.text(), err.text());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        @Override
        public String toString() {
            return "exit " + exit + "\nstdout:\n" + out + "stderr:\n" + err;
        }
    }

    /** Reads a stream to its end on a thread of its own. */
    static final class Collector extends Thread {
        private final InputStream in;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        Collector(InputStream in) {
            this.in = in;
            setDaemon(true);
            start();
        }

        @Override
        public void run() {
            byte[] buf = new byte[8192];
            try {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    synchronized (bytes) {
                        bytes.write(buf, 0, n);
                    }
                }
            } catch (IOException e) {
                // the process is gone
            }
        }

        String text() {
            synchronized (bytes) {
                return bytes.toString(StandardCharsets.UTF_8);
            }
        }
    }
}
