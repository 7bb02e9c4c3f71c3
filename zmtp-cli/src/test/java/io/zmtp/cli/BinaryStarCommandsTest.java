package io.zmtp.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static io.zmtp.testing.Await.until;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code zmtp bstarsrv} and {@code zmtp bstarcli}, in-process, with short heartbeats. */
class BinaryStarCommandsTest {
    final List<CommandRun> runs = new ArrayList<>();

    @AfterEach
    void stopAll() {
        for (CommandRun r : runs) {
            r.stop();
        }
    }

    static int freePort() throws IOException {
        return io.zmtp.testing.FreePorts.next();
    }


    @Test
    void aClientFailsOverFromTheStoppedPrimaryToTheBackup() throws IOException {
        int fp = freePort();
        int fb = freePort();
        int sp = freePort();
        int sb = freePort();
        String primaryFe = "tcp://127.0.0.1:" + fp;
        String backupFe = "tcp://127.0.0.1:" + fb;
        CommandRun primary = new CommandRun(runs, "bstarsrv", "--primary", "--frontend", primaryFe, "--state-pub", "tcp://127.0.0.1:" + sp,
                "--state-peer", "tcp://127.0.0.1:" + sb, "--heartbeat", "100ms");
        CommandRun backup = new CommandRun(runs, "bstarsrv", "--backup", "--frontend", backupFe, "--state-pub", "tcp://127.0.0.1:" + sb,
                "--state-peer", "tcp://127.0.0.1:" + sp, "--heartbeat", "100ms");
        primary.awaitLine("I: connected to backup (passive), ready as active");
        backup.awaitLine("I: connected to primary (active), ready as passive");

        // Tries of 2 s: "0 timeouts" whatever the machine's speed (the first request opens the connection).
        CommandRun client = new CommandRun(runs, "bstarcli", "-e", primaryFe, "-e", backupFe, "-n", "3", "--pause", "0", "-t", "2s");
        assertEquals(0, client.awaitExit(), client.err.lines.toString());
        assertEquals("I: connecting to server at " + primaryFe + "...", client.out.lines.get(0));
        assertEquals(3, client.out.count("I: server replied OK"));
        assertNotNull(client.out.find("done: 3 requests, 3 replies, 0 timeouts"), client.out.lines.toString());

        assertEquals(0, primary.stop());
        // The first request times out on the stopped primary and goes to the backup 1.7 s after the
        // stop, long after the backup's 200 ms peer expiry: it takes over and serves it. Each of its
        // answers has 1.5 s, so no other request fails over and the count stays exact.
        CommandRun failing = new CommandRun(runs, "bstarcli", "-e", primaryFe, "-e", backupFe, "-n", "3", "--pause", "0",
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
        CommandRun a = new CommandRun(runs, "bstarsrv", "-p", "--frontend", "tcp://127.0.0.1:0", "--state-pub", "tcp://127.0.0.1:" + sa,
                "--state-peer", "tcp://127.0.0.1:" + sb, "--heartbeat", "50ms");
        CommandRun b = new CommandRun(runs, "bstarsrv", "-p", "--frontend", "tcp://127.0.0.1:0", "--state-pub", "tcp://127.0.0.1:" + sb,
                "--state-peer", "tcp://127.0.0.1:" + sa, "--heartbeat", "50ms");
        until(() -> "a fatal line: " + a.out.lines + " / " + b.out.lines,
                () -> a.out.find("E: fatal error - both servers are primary") != null
                        || b.out.find("E: fatal error - both servers are primary") != null);
        CommandRun stopped = a.out.find("E: fatal error") != null ? a : b;
        assertEquals(1, stopped.awaitExit());
    }

    @Test
    void badOptionsAndHelp() {
        assertEquals(2, new CommandRun(runs, "bstarsrv").awaitExit());
        assertEquals(2, new CommandRun(runs, "bstarsrv", "--primary", "--backup").awaitExit());
        assertEquals(2, new CommandRun(runs, "bstarsrv", "--primary", "--heartbeat", "0").awaitExit());
        assertEquals(2, new CommandRun(runs, "bstarcli", "-e", "tcp://127.0.0.1:1").awaitExit());
        for (String cmd : List.of("bstarsrv", "bstarcli")) {
            StringWriter help = new StringWriter();
            assertEquals(0, ZmtpCli.commandLine().setOut(new PrintWriter(help)).execute(cmd, "--help"));
            assertTrue(help.toString().contains("Exit status:"), help.toString());
            assertTrue(help.toString().contains("--quiet"), help.toString());
        }
    }
}
