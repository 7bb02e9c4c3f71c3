package io.zmtp.interop;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 43: 10,000 handshaken peers on one bound socket with the default options, from one address
 * and from 20. The server is {@code zmtp cat -q -t ROUTER --echo} bound to an ephemeral port; the
 * client is the many-peers harness ({@code benchmarks/native/manypeers.c}, which speaks ZMTP 3.0
 * NULL itself, built by {@code benchmarks/native/build.sh}), connecting the peers in batches of 100
 * from 127.0.0.1 (or 127.0.0.1 to 127.0.0.20), then one warm-up and two echo rounds in which every
 * peer sends a message that must come back to it.
 *
 * <p>Asserted: all 10,000 handshaken at once, every echo back, no connection failure on the
 * harness's side, and on the server's side (its stderr, where the library logs a WARN for each)
 * no connection refused or evicted. The figures (connect time, round times, the server's memory)
 * are printed, not asserted: only the harness's own deadlines bound them.
 */
class ManyPeersProcessTest {
    static final int PEERS = 10_000;
    /** The descriptors each process is given: the peers and the JVM's own files (jars, epoll, pipes). */
    static final int FILES = PEERS + 500;
    static final Path NATIVE = Path.of("..", "benchmarks", "native").toAbsolutePath().normalize();
    static final Path HARNESS = NATIVE.resolve("build").resolve("manypeers");

    final List<PeerScript> processes = new ArrayList<>();

    /**
     * Skips the class when the descriptors do not suffice; else builds the harness when it is
     * missing or older than its source (build.sh checks; gcc is a test dependency).
     */
    @BeforeAll
    static void buildHarness() throws Exception {
        String hard = shell("ulimit -Hn");
        assumeTrue(hard.equals("unlimited") || Long.parseLong(hard) >= FILES, "10,000 peers need " + FILES
                + " descriptors in the server and in the harness (separate processes), but ulimit -Hn is " + hard);
        Path log = Files.createTempFile("manypeers-build", ".log");
        Process p = new ProcessBuilder(NATIVE.resolve("build.sh").toString()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        boolean done = p.waitFor(120, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        String out = Files.readString(log);
        Files.delete(log);
        assertTrue(done, "benchmarks/native/build.sh still running after 120 s: " + out);
        assertEquals(0, p.exitValue(), "benchmarks/native/build.sh failed (gcc and libzmq3-dev: "
                + "scripts/install-test-deps.sh installs them): " + out);
        assertTrue(Files.isExecutable(HARNESS), HARNESS + " was not built: " + out);
    }

    @AfterEach
    void stop() {
        for (PeerScript p : processes) {
            p.close();
        }
    }

    /**
     * Longer than the project's 60 s a test, so that the harness's own deadlines (60 s to connect,
     * 20 s a round) say what failed: a run took 35 s under a load average of 18 from other jobs.
     */
    @ParameterizedTest(name = "from {0} address(es)")
    @Timeout(180)
    @ValueSource(ints = {1, 20})
    void tenThousandPeersHandshakeAndEchoWithTheDefaultOptions(int sources) throws Exception {
        Path jar = PeerScript.ZMTP_JAR;
        assertTrue(Files.isRegularFile(jar), jar + " is missing: build it with mvn package (or verify)");

        PeerScript server = start("zmtp cat -q -t ROUTER --echo (ulimit -n " + FILES + ")", true,
                Stream.concat(PeerScript.zmtpJava().stream(), Stream.of("cat", "-q", "-t", "ROUTER", "--echo", "-b",
                        "tcp://127.0.0.1:0")).toArray(String[]::new));
        String bound = server.awaitLine("bound ");
        int port = io.zmtp.testing.FreePorts.port(bound.substring("bound ".length()).trim());

        long start = System.nanoTime();
        PeerScript harness = start("manypeers --sources " + sources, false, HARNESS.toString(), "--mode", "echo",
                "--target", "127.0.0.1:" + port, "--n", Integer.toString(PEERS), "--sources", Integer.toString(sources),
                "--batch", "100", "--warmup", "1", "--rounds", "2", "--deadline-s", "60", "--round-timeout-s", "20",
                "--server-pid", Long.toString(server.pid()), "--label", "zmtp-netty");
        // the harness's own deadlines (60 s to connect, 20 s a round) end it first; this bounds a hung one
        int exit = harness.awaitExit(150_000);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        String connect = phase(harness, "connect");
        String figures = object(connect, "server");
        System.out.println("manypeers: " + PEERS + " peers from " + sources + " address(es), default options, batches"
                + " of 100: " + (long) number(connect, "handshaken") + " handshaken " + number(connect, "connect_s")
                + " s after the first connect (server CPU " + number(figures, "cpu_s") + " s, RSS "
                + (long) number(figures, "rss_kib") + " KiB, " + (long) number(figures, "fds") + " descriptors)");
        List<String> warnings = server.lines().stream()
                .filter(l -> l.contains("refused a connection") || l.contains("evicted the connection")).toList();
        assertTrue(warnings.isEmpty(), warnings.size() + " connections refused (rate-limited WARN lines) or evicted: "
                + warnings.subList(0, Math.min(20, warnings.size())));
        assertTrue(connect.contains("\"complete\":true"), "not all handshaken at once: " + connect);
        assertEquals(PEERS, (long) number(connect, "handshaken"), connect);
        assertEquals(0, (long) number(connect, "missing"), connect);
        String warmup = phase(harness, "warmup");
        String measured = phase(harness, "measured");
        System.out.println("manypeers: " + PEERS + " peers from " + sources + " address(es): echo rounds, warm-up "
                + object(warmup, "round_ms") + ", measured " + object(measured, "round_ms") + " ms; harness run "
                + ms + " ms");
        assertEquals(0, exit, "the harness failed: " + harness.lines());
        for (String phase : List.of(connect, warmup, measured)) {
            assertTrue(phase.contains("\"complete\":true"), "not every echo came back: " + phase);
            assertTrue(object(phase, "failures").matches("\\{(\"\\w+\":0,?)+}"), "connections failed: " + phase);
            assertEquals(0, (long) number(phase, "retries"), "peers retried: " + phase);
        }
        assertEquals(2, (long) number(measured, "rounds"), measured);
    }

    /** Starts {@code command} with at most {@link #FILES} descriptors (ulimit -n); stderr with stdout when asked. */
    PeerScript start(String name, boolean withStderr, String... command) {
        List<String> cmd = new ArrayList<>(List.of("/bin/sh", "-c", "ulimit -n " + FILES + " && exec \"$@\"", "sh"));
        cmd.addAll(List.of(command));
        PeerScript p = PeerScript.startProgram(name, cmd, withStderr);
        processes.add(p);
        return p;
    }

    static String shell(String script) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("/bin/sh", "-c", script).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), script + " still running");
        return out;
    }

    /** The harness's JSON line of {@code phase}. */
    static String phase(PeerScript harness, String phase) {
        return harness.lines().stream().filter(l -> l.contains("\"phase\":\"" + phase + "\"")).findFirst()
                .orElseThrow(() -> new AssertionError("the harness printed no " + phase + " phase: " + harness.lines()));
    }

    /** A number of the JSON line (the first member of that name). */
    static double number(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":(-?[0-9.]+)").matcher(json);
        if (!m.find()) {
            throw new AssertionError("no " + name + " in " + json);
        }
        return Double.parseDouble(m.group(1));
    }

    /** An object member of the JSON line, as its text (the harness's objects nest at most one level here). */
    static String object(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":(\\{(?:[^{}]|\\{[^{}]*}|\\[[^\\]]*])*})").matcher(json);
        if (!m.find()) {
            throw new AssertionError("no " + name + " in " + json);
        }
        return m.group(1);
    }
}
