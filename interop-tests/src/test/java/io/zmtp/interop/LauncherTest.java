package io.zmtp.interop;

import io.zmtp.testing.Await;
import io.zmtp.testing.FreePorts;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code zmtp} launcher the build puts beside {@code zmtp.jar}: executable, runs the command
 * line from any working directory, and {@code exec}s the JVM, so that {@code kill $!} after
 * {@code zmtp ... &} stops the JVM and frees its port (a shell function or a forking script
 * would leave the JVM running).
 */
class LauncherTest {
    static final Path JAR = Path.of(System.getProperty("zmtp.jar", "../zmtp-cli/target/zmtp.jar"));
    static final Path LAUNCHER = JAR.resolveSibling("zmtp").toAbsolutePath();

    @Test
    void theLauncherRunsTheCommandLineFromAnyDirectory() throws Exception {
        assertTrue(Files.isExecutable(LAUNCHER), LAUNCHER + " is missing or not executable: 'mvn package' of zmtp-cli");
        Process p = new ProcessBuilder(LAUNCHER.toString(), "--version").directory(Files.createTempDirectory("zmtp-launcher").toFile())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "zmtp --version did not end");
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.startsWith("zmtp "), out);
    }

    @Test
    void killOfTheBackgroundJobStopsTheJvm() throws Exception {
        int port = FreePorts.next();
        String script = "'" + LAUNCHER + "' mdbroker --bind tcp://127.0.0.1:" + port + " -q & echo $!; wait $!; echo exit $?";
        Process sh = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(sh.getInputStream(), StandardCharsets.UTF_8))) {
            long pid = Long.parseLong(out.readLine().trim());
            Await.until(Duration.ofSeconds(60), () -> "the broker listening on " + port, () -> listening(port));
            ProcessHandle job = ProcessHandle.of(pid).orElseThrow();
            String command = job.info().command().orElse("");
            assertTrue(command.endsWith("/java"), "$! is the JVM itself, not a shell: " + command);
            new ProcessBuilder("kill", Long.toString(pid)).start().waitFor(10, TimeUnit.SECONDS); // kill $!
            Await.until(Duration.ofSeconds(30), () -> "the JVM " + pid + " still running", () -> !job.isAlive());
            assertFalse(listening(port), "the port is free");
            assertTrue(sh.waitFor(30, TimeUnit.SECONDS));
        } finally {
            sh.destroyForcibly();
        }
    }

    /**
     * The launcher grows the process's descriptor table before it becomes the JVM, where a single
     * thread grows it without waiting (docs/limits.md, "The descriptor table"): a command that
     * binds nothing, so that the library grows nothing, runs with a table of 16,384 (Linux's
     * FDSize); with the launcher of before, 64 (checked). Started as a shell's background job, as
     * an operator would, so that the table is not one copied from this JVM's (a child gets a
     * table as large as its parent's highest open descriptor needs).
     */
    @Test
    void theJvmStartsWithTheDescriptorTableGrown() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(hardDescriptorLimit() >= 16_384, "a descriptor limit of 16,384 or more");
        backgroundWorker("", (pid, shell) -> {
            int size = Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
                    .filter(l -> l.startsWith("FDSize:"))
                    .map(l -> Integer.parseInt(l.substring("FDSize:".length()).trim())).findFirst().orElseThrow();
            assertTrue(size >= 16_384, "FDSize " + size + " (the starting " + shell + ")");
        });
    }

    /** Growing the table never closes a descriptor 16383 that the caller passed down. */
    @Test
    void aDescriptorPassedDownStaysOpen() throws Exception {
        Path file = Files.createTempFile("zmtp-fd", ".txt");
        try {
            backgroundWorker(" 16383<'" + file + "'", (pid, shell) -> assertEquals(file.toRealPath(),
                    Files.readSymbolicLink(Path.of("/proc/" + pid + "/fd/16383")), "descriptor 16383 of the JVM"));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    interface WorkerCheck {
        void check(long pid, String shellTable) throws Exception;
    }

    /**
     * Starts {@code zmtp mdworker}, which binds nothing (so the library grows no table), as a
     * shell's background job with {@code redirect}, against a "broker" that accepts and never
     * speaks, so that it waits until killed; runs {@code check} on its JVM, then kills it. A
     * background job, as an operator starts one, so that its table is not one copied from this
     * JVM's: a child gets a table as large as its parent's highest open descriptor needs.
     */
    private static void backgroundWorker(String redirect, WorkerCheck check) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/limits")), "Linux's /proc");
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            String script = "'" + LAUNCHER + "' mdworker -q -e tcp://127.0.0.1:" + silent.getLocalPort()
                    + " </dev/null >/dev/null 2>&1" + redirect + " & echo $!; echo \"shell $(grep FDSize /proc/self/status)\"; wait $!";
            ProcessBuilder pb = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true);
            pb.environment().remove("ZMTP_JAVA_OPTS");
            Process sh = pb.start();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(sh.getInputStream(), StandardCharsets.UTF_8))) {
                long pid = Long.parseLong(out.readLine().trim());
                String shell = out.readLine();
                Await.until(Duration.ofSeconds(60), () -> "the JVM " + pid + " running",
                        () -> ProcessHandle.of(pid).flatMap(h -> h.info().command()).orElse("").endsWith("/java"));
                check.check(pid, shell);
                new ProcessBuilder("kill", Long.toString(pid)).start().waitFor(10, TimeUnit.SECONDS);
                assertTrue(sh.waitFor(30, TimeUnit.SECONDS));
            } finally {
                sh.destroyForcibly();
            }
        }
    }

    private static long hardDescriptorLimit() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
            if (line.startsWith("Max open files")) {
                String hard = line.substring("Max open files".length()).trim().split("\\s+")[1];
                return "unlimited".equals(hard) ? Long.MAX_VALUE : Long.parseLong(hard);
            }
        }
        return 0;
    }

    /**
     * ZMTP_JAVA_OPTS reach the JVM after the launcher's own options, so they win: the class-data
     * archive the launcher names is replaced by another when ZMTP_JAVA_OPTS names one. On JDK 17
     * to 19 the launcher sets G1's refinement green zone (docs/performance.md), unless the
     * operator set one in JDK_JAVA_OPTIONS; one in ZMTP_JAVA_OPTS wins. On JDK 20 and later, which
     * refuse the flag from 23, it is not passed at all.
     */
    @Test
    void zmtpJavaOptsComeAfterTheLaunchersOwnAndWin() throws Exception {
        String plain = launch(Map.of("ZMTP_JAVA_OPTS", "-XX:+PrintFlagsFinal"));
        assertTrue(plain.contains("\nzmtp "), "the command ran after the JVM's flags: " + plain);
        if (Files.exists(JAR.resolveSibling("zmtp.jsa"))) {
            String archive = flag(plain, "SharedArchiveFile");
            assertTrue(archive != null && archive.contains("zmtp.jsa") && archive.endsWith("{command line}"),
                    "the launcher's archive: " + archive);
        }
        String other = flag(launch(Map.of("ZMTP_JAVA_OPTS",
                "-XX:+PrintFlagsFinal -XX:SharedArchiveFile=/nonexistent/other.jsa")), "SharedArchiveFile");
        assertEquals("/nonexistent/other.jsa {command line}", other, "ZMTP_JAVA_OPTS named the archive last");
        int major = javaOnPathMajor();
        if (major < 17 || major > 19) {
            assertFalse(plain.contains("G1ConcRefinementGreenZone"), "JDK " + major + " has no such flag to set");
            return;
        }
        assertEquals("256 {command line}", flag(plain, "G1ConcRefinementGreenZone"), "the launcher's zone");
        assertEquals("8 {command line}", flag(launch(Map.of("JDK_JAVA_OPTIONS", "-XX:G1ConcRefinementGreenZone=8",
                "ZMTP_JAVA_OPTS", "-XX:+PrintFlagsFinal")), "G1ConcRefinementGreenZone"), "the operator's zone stands");
        assertEquals("16 {command line}", flag(launch(Map.of(
                "ZMTP_JAVA_OPTS", "-XX:+PrintFlagsFinal -XX:G1ConcRefinementGreenZone=16")), "G1ConcRefinementGreenZone"));
    }

    /**
     * The commands leave Netty's flight-recorder events off unless asked: registering them starts
     * JFR on the event loop at the first pooled buffer (docs/performance.md). Seen from outside
     * by whether the JVM loads the buffer pool's event class during a few round trips; the same
     * run with the property set to true loads it, so the check can fail.
     */
    @Test
    void nettysJfrEventsStayOffUnlessAsked() throws Exception {
        assertFalse(loadsChunkEvent(""), "the commands' default: Netty's JFR events off");
        assertTrue(loadsChunkEvent("-Dio.netty.jfr.enabled=true"), "asked for: on");
    }

    private static boolean loadsChunkEvent(String option) throws Exception {
        Path log = Files.createTempFile("zmtp-classes", ".log");
        try {
            ProcessBuilder pb = new ProcessBuilder(LAUNCHER.toString(), "tripping", "--no-warmup", "--sync=50",
                    "--async=50", "-q").redirectErrorStream(true);
            pb.environment().remove("JDK_JAVA_OPTIONS");
            pb.environment().remove("JAVA_TOOL_OPTIONS");
            pb.environment().put("ZMTP_JAVA_OPTS", "-Xlog:class+load=info:file=" + log + " " + option);
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "zmtp tripping did not end");
            assertEquals(0, p.exitValue(), out);
            String classes = Files.readString(log);
            assertTrue(classes.contains("io.netty.buffer.PooledByteBufAllocator "), "the run used Netty's pool");
            return classes.contains("io.netty.buffer.AllocateChunkEvent ");
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /**
     * On JDK 24 and later a command prints its own lines only: the launcher allows JCTools' use of
     * sun.misc.Unsafe (else a warning at the first queue to a user thread) and zmtp.jar's
     * manifest enables native access (else a warning when Netty loads its epoll library). Run with
     * the newest JDK under /usr/lib/jvm, when there is one that new; each half of the check is
     * shown able to fail: warned about when the operator asks for it, and without the manifest
     * (the jar on the class path instead of {@code -jar}).
     */
    @Test
    void aNewerJdkPrintsNoWarningsAtStart() throws Exception {
        Path jdk = newestJdk(24);
        org.junit.jupiter.api.Assumptions.assumeTrue(jdk != null, "no JDK 24 or later under /usr/lib/jvm");
        String path = jdk.resolve("bin") + ":" + System.getenv("PATH");
        String quiet = run(path, Map.of(), LAUNCHER.toString(), "tripping", "--no-warmup", "--sync=50", "--async=50", "-q");
        assertFalse(quiet.contains("WARNING"), "JDK " + jdk + ": " + quiet);

        String warned = run(path, Map.of("ZMTP_JAVA_OPTS", "--sun-misc-unsafe-memory-access=warn"), LAUNCHER.toString(),
                "tripping", "--no-warmup", "--sync=50", "--async=50", "-q");
        assertTrue(warned.contains("sun.misc.Unsafe"), "asked to warn: " + warned);
        String noManifest = run(path, Map.of(), jdk.resolve("bin/java").toString(), "-cp", JAR.toString(),
                "io.zmtp.cli.ZmtpCli", "tripping", "--no-warmup", "--sync=50", "--async=50", "-q");
        assertTrue(noManifest.contains("restricted method"), "without the manifest's attribute: " + noManifest);
    }

    /** The newest JDK under /usr/lib/jvm of at least {@code major}, or null. */
    private static Path newestJdk(int major) throws IOException {
        Path root = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(root)) {
            return null;
        }
        Path best = null;
        int bestMajor = 0;
        try (var dirs = Files.list(root)) {
            for (Path d : (Iterable<Path>) dirs::iterator) {
                Path release = d.resolve("release");
                if (!Files.isRegularFile(release) || !Files.isExecutable(d.resolve("bin/java"))) {
                    continue;
                }
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("JAVA_VERSION=\"(\\d+)")
                        .matcher(Files.readString(release));
                if (m.find() && Integer.parseInt(m.group(1)) >= Math.max(major, bestMajor + 1)) {
                    best = d;
                    bestMajor = Integer.parseInt(m.group(1));
                }
            }
        }
        return best;
    }

    /** Runs {@code command} with {@code path} as PATH and {@code env}, no other JVM options; its output. */
    private static String run(String path, Map<String, String> env, String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("ZMTP_JAVA_OPTS");
        pb.environment().put("PATH", path);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), String.join(" ", command) + " did not end");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    /** What {@code zmtp --version} prints, stdout and stderr, with {@code env} (and no other JVM options) set. */
    private static String launch(Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(LAUNCHER.toString(), "--version").redirectErrorStream(true);
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("ZMTP_JAVA_OPTS");
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "zmtp --version did not end");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    /** A flag's value and origin as -XX:+PrintFlagsFinal prints them ("256 {command line}"), or null. */
    private static String flag(String flags, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\s" + name + "\\s+=\\s+(\\S+)\\s+\\{[^}]*}\\s+(\\{[^}]*})")
                .matcher(flags);
        return m.find() ? m.group(1) + " " + m.group(2) : null;
    }

    /** The feature version of the {@code java} the launcher finds on the PATH. */
    private static int javaOnPathMajor() throws Exception {
        Process p = new ProcessBuilder("java", "-XshowSettings:properties", "-version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("java\\.specification\\.version = (\\d+)").matcher(out);
        assertTrue(m.find(), out);
        return Integer.parseInt(m.group(1));
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
