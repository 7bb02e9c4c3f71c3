package io.zmtp.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static io.zmtp.patterns.PatternTesting.T;
import static io.zmtp.patterns.PatternTesting.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code zmtp bstarsrv} and {@code zmtp bstarcli}, in-process, with short heartbeats. */
class BinaryStarCommandsTest {
    final List<Run> runs = new ArrayList<>();

    @AfterEach
    void stopAll() {
        for (Run r : runs) {
            r.stop();
        }
    }

    static int freePort() throws IOException {
        return io.zmtp.testing.FreePorts.next();
    }

    final class Run {
        final Lines out = new Lines();
        final Lines err = new Lines();
        final AtomicInteger exit = new AtomicInteger(Integer.MIN_VALUE);
        final Thread thread;

        Run(String... args) {
            thread = new Thread(() -> exit.set(ZmtpCli.commandLine().setOut(new PrintWriter(out, true))
                    .setErr(new PrintWriter(err, true)).execute(args)), "cli-" + args[0]);
            thread.setDaemon(true);
            thread.start();
            runs.add(this);
        }

        String awaitLine(String text) {
            eventually(() -> "a line with '" + text + "' in " + out.lines + " (errors: " + err.lines + ")",
                    () -> out.find(text) != null);
            return out.find(text);
        }

        int awaitExit() {
            try {
                thread.join(T.toMillis());
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            if (thread.isAlive()) {
                throw new AssertionError("command still running; output " + out.lines + ", errors " + err.lines);
            }
            return exit.get();
        }

        int stop() {
            thread.interrupt();
            return awaitExit();
        }
    }

    static final class Lines extends Writer {
        final List<String> lines = new CopyOnWriteArrayList<>();
        private final StringBuilder partial = new StringBuilder();

        @Override
        public synchronized void write(char[] cbuf, int off, int len) {
            for (int i = off; i < off + len; i++) {
                char c = cbuf[i];
                if (c == '\n') {
                    lines.add(partial.toString());
                    partial.setLength(0);
                } else if (c != '\r') {
                    partial.append(c);
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        String find(String text) {
            return lines.stream().filter(l -> l.contains(text)).findFirst().orElse(null);
        }

        long count(String text) {
            return lines.stream().filter(l -> l.contains(text)).count();
        }
    }

    @Test
    void aClientFailsOverFromTheStoppedPrimaryToTheBackup() throws IOException {
        int fp = freePort();
        int fb = freePort();
        int sp = freePort();
        int sb = freePort();
        String primaryFe = "tcp://127.0.0.1:" + fp;
        String backupFe = "tcp://127.0.0.1:" + fb;
        Run primary = new Run("bstarsrv", "--primary", "--frontend", primaryFe, "--state-pub", "tcp://127.0.0.1:" + sp,
                "--state-peer", "tcp://127.0.0.1:" + sb, "--heartbeat", "100ms");
        Run backup = new Run("bstarsrv", "--backup", "--frontend", backupFe, "--state-pub", "tcp://127.0.0.1:" + sb,
                "--state-peer", "tcp://127.0.0.1:" + sp, "--heartbeat", "100ms");
        primary.awaitLine("I: connected to backup (passive), ready as active");
        backup.awaitLine("I: connected to primary (active), ready as passive");

        // Tries of 2 s: "0 timeouts" whatever the machine's speed (the first request opens the connection).
        Run client = new Run("bstarcli", "-e", primaryFe, "-e", backupFe, "-n", "3", "--pause", "0", "-t", "2s");
        assertEquals(0, client.awaitExit(), client.err.lines.toString());
        assertEquals("I: connecting to server at " + primaryFe + "...", client.out.lines.get(0));
        assertEquals(3, client.out.count("I: server replied OK"));
        assertNotNull(client.out.find("done: 3 requests, 3 replies, 0 timeouts"), client.out.lines.toString());

        assertEquals(0, primary.stop());
        // The first request times out on the stopped primary and goes to the backup 1.7 s after the
        // stop, long after the backup's 200 ms peer expiry: it takes over and serves it. Each of its
        // answers has 1.5 s, so no other request fails over and the count stays exact.
        Run failing = new Run("bstarcli", "-e", primaryFe, "-e", backupFe, "-n", "3", "--pause", "0",
                "-t", "1500ms", "--settle", "200ms");
        assertEquals(0, failing.awaitExit(), failing.out.lines + " " + failing.err.lines);
        assertNotNull(failing.out.find("W: no response from server, failing over"), failing.out.lines.toString());
        assertNotNull(failing.out.find("I: connecting to server at " + backupFe + "..."), failing.out.lines.toString());
        assertEquals(3, failing.out.count("I: server replied OK"));
        assertNotNull(failing.out.find("1 failed over"), failing.out.lines.toString());
        backup.awaitLine("I: failover successful, ready as active");
    }

    @Test
    void twoPrimariesStopWithStatusOne() throws IOException {
        int sa = freePort();
        int sb = freePort();
        Run a = new Run("bstarsrv", "-p", "--frontend", "tcp://127.0.0.1:0", "--state-pub", "tcp://127.0.0.1:" + sa,
                "--state-peer", "tcp://127.0.0.1:" + sb, "--heartbeat", "50ms");
        Run b = new Run("bstarsrv", "-p", "--frontend", "tcp://127.0.0.1:0", "--state-pub", "tcp://127.0.0.1:" + sb,
                "--state-peer", "tcp://127.0.0.1:" + sa, "--heartbeat", "50ms");
        eventually(() -> "a fatal line: " + a.out.lines + " / " + b.out.lines,
                () -> a.out.find("E: fatal error - both servers are primary") != null
                        || b.out.find("E: fatal error - both servers are primary") != null);
        Run stopped = a.out.find("E: fatal error") != null ? a : b;
        assertEquals(1, stopped.awaitExit());
    }

    @Test
    void badOptionsAndHelp() {
        assertEquals(2, new Run("bstarsrv").awaitExit());
        assertEquals(2, new Run("bstarsrv", "--primary", "--backup").awaitExit());
        assertEquals(2, new Run("bstarsrv", "--primary", "--heartbeat", "0").awaitExit());
        assertEquals(2, new Run("bstarcli", "-e", "tcp://127.0.0.1:1").awaitExit());
        for (String cmd : List.of("bstarsrv", "bstarcli")) {
            StringWriter help = new StringWriter();
            assertEquals(0, ZmtpCli.commandLine().setOut(new PrintWriter(help)).execute(cmd, "--help"));
            assertTrue(help.toString().contains("Exit status:"), help.toString());
            assertTrue(help.toString().contains("--quiet"), help.toString());
        }
    }
}
