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

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
