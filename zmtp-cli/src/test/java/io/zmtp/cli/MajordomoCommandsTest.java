package io.zmtp.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Majordomo commands (mdbroker, mdworker, mdclient, mmi) run in-process with captured output. */
class MajordomoCommandsTest {
    static final long T = 10_000;

    final List<Running> running = new ArrayList<>();

    @AfterEach
    void stopAll() throws InterruptedException {
        for (int i = running.size() - 1; i >= 0; i--) {
            running.get(i).stop();
        }
    }

    /** Captured output: thread-safe, line by line. */
    static final class Capture extends Writer {
        private final StringBuilder text = new StringBuilder();

        @Override
        public synchronized void write(char[] buf, int off, int len) {
            text.append(buf, off, len);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        synchronized String text() {
            return text.toString();
        }

        List<String> lines() {
            return List.of(text().split("\n"));
        }

        /** The first line matching {@code regex} (waiting for it), as a matcher. */
        Matcher await(String regex) {
            Pattern p = Pattern.compile(regex);
            long deadline = System.currentTimeMillis() + T;
            while (System.currentTimeMillis() < deadline) {
                for (String line : lines()) {
                    Matcher m = p.matcher(line);
                    if (m.find()) {
                        return m;
                    }
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
            throw new AssertionError("no line matching " + regex + " in:\n" + text());
        }
    }

    /** A command running on a thread of its own until interrupted. */
    static final class Running {
        final Capture out = new Capture();
        final Capture err = new Capture();
        final Thread thread;
        final AtomicInteger exit = new AtomicInteger(-1);

        Running(String... args) {
            CommandLine cmd = ZmtpCli.commandLine();
            cmd.setOut(new PrintWriter(out, true));
            cmd.setErr(new PrintWriter(err, true));
            thread = new Thread(() -> exit.set(cmd.execute(args)), "cli-" + args[0]);
            thread.start();
        }

        int stop() throws InterruptedException {
            thread.interrupt();
            thread.join(T);
            assertFalse(thread.isAlive(), "the command stops when interrupted");
            return exit.get();
        }
    }

    /** Runs a command to its end. */
    static final class Result {
        final Capture out = new Capture();
        final Capture err = new Capture();
        final int exit;

        Result(String... args) {
            CommandLine cmd = ZmtpCli.commandLine();
            cmd.setOut(new PrintWriter(out, true));
            cmd.setErr(new PrintWriter(err, true));
            exit = cmd.execute(args);
        }
    }

    Running start(String... args) {
        Running r = new Running(args);
        running.add(r);
        return r;
    }

    String startBroker(String... extra) {
        List<String> args = new ArrayList<>(List.of("mdbroker", "--bind", "tcp://127.0.0.1:0", "--heartbeat", "100"));
        args.addAll(List.of(extra));
        Running broker = start(args.toArray(new String[0]));
        return broker.out.await("is active at (tcp://\\S+)").group(1);
    }

    @Test
    void brokerWorkerClientAndMmiEndToEnd() throws InterruptedException {
        Running broker = start("mdbroker", "--bind", "tcp://127.0.0.1:0", "--heartbeat", "100");
        String endpoint = broker.out.await("is active at (tcp://\\S+)").group(1);
        Running worker = start("mdworker", "--connect", endpoint, "--service", "echo", "--protocol", "0.2",
                "--heartbeat", "100");
        broker.out.await("WORKER_READY .* service=echo: MDP/0.2");

        Result sync = new Result("mdclient", "--connect", endpoint, "-n", "50", "--protocol", "0.1", "hi");
        assertEquals(0, sync.exit, sync.out.text() + sync.err.text());
        assertTrue(sync.out.text().matches("(?s).*50 requests/replies processed in [0-9.]+ s: \\d+ requests per second "
                + "\\(synchronous, MDP/0.1\\).*"), sync.out.text());

        Result async = new Result("mdclient", "--connect", endpoint, "-n", "200", "--async", "--protocol", "0.2", "-q");
        assertEquals(0, async.exit, async.out.text());
        assertTrue(async.out.text().contains("200 requests/replies processed"), async.out.text());
        assertTrue(async.out.text().contains("(asynchronous, MDP/0.2)"), async.out.text());
        assertEquals(1, async.out.lines().size(), "quiet: the summary only");

        worker.out.await("I: echo request 250: \\[Hello world\\]");

        Result found = new Result("mmi", "--connect", endpoint, "echo");
        assertEquals(0, found.exit);
        assertEquals("Lookup echo service: 200", found.out.text().trim());
        Result missing = new Result("mmi", "--connect", endpoint, "--protocol", "0.2", "titanic");
        assertEquals(1, missing.exit);
        assertEquals("Lookup titanic service: 404", missing.out.text().trim());
        Result unimplemented = new Result("mmi", "--connect", endpoint, "--mmi-service", "mmi.stats", "echo");
        assertEquals(1, unimplemented.exit);
        assertEquals("Lookup echo service: 501", unimplemented.out.text().trim());

        assertEquals(0, worker.stop());
        worker.out.await("workers stopped after 250 request\\(s\\)");
        broker.out.await("WORKER_LEFT");
        assertEquals(0, broker.stop());
        broker.out.await("I: broker stopped");
    }

    static int freePort() {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aHighlyAvailablePairOfBrokersFailsOverWhenThePrimaryStops() throws InterruptedException {
        int sp = freePort();
        int sb = freePort();
        Running primary = start("mdbroker", "--bstar", "primary", "-e", "tcp://127.0.0.1:0", "--interval", "100ms",
                "--state-pub", "tcp://127.0.0.1:" + sp, "--state-peer", "tcp://127.0.0.1:" + sb,
                "--state-heartbeat", "100ms");
        String p = primary.out.await("Binary Star primary, at (tcp://\\S+); state on").group(1);
        Running backup = start("mdbroker", "--bstar", "backup", "-e", "tcp://127.0.0.1:0", "--interval", "100ms",
                "--state-pub", "tcp://127.0.0.1:" + sb, "--state-peer", "tcp://127.0.0.1:" + sp,
                "--state-heartbeat", "100ms");
        String b = backup.out.await("Binary Star backup, at (tcp://\\S+); state on").group(1);
        // the state transition in full, as bstarsrv prints it (these lines were once cut at 64 characters)
        primary.out.await("I: connected to backup \\(passive\\), ready as active \\(PRIMARY -> ACTIVE\\)");
        backup.out.await("I: connected to primary \\(active\\), ready as passive \\(BACKUP -> PASSIVE\\)");
        Running worker = start("mdworker", "-e", p, "-e", b, "--interval", "100ms", "-q");
        primary.out.await("WORKER_READY .* service=echo");
        Result before = new Result("mdclient", "-e", p, "-e", b, "-n", "20", "-t", "500", "--settle", "300", "-q");
        assertEquals(0, before.exit, before.out.text());

        assertEquals(0, primary.stop()); // its workers are told DISCONNECT and move to the backup
        backup.out.await("WORKER_READY .* service=echo");
        Result after = new Result("mdclient", "-e", p, "-e", b, "-n", "20", "-t", "500", "--settle", "300", "-r", "4",
                "--async", "-q");
        assertEquals(0, after.exit, after.out.text());
        assertTrue(after.out.text().contains("20 requests/replies processed"), after.out.text());
        backup.out.await("I: failover successful, ready as active \\(PASSIVE -> ACTIVE\\)");
        assertTrue(worker.out.text().isEmpty(), "quiet worker");
    }

    @Test
    void twoPrimaryBrokersAreAFatalPairAndTheOneThatSeesItExitsWithStatusOne() throws InterruptedException {
        int s1 = freePort();
        int s2 = freePort();
        Running one = start("mdbroker", "--bstar", "primary", "-e", "tcp://127.0.0.1:0", "--state-pub",
                "tcp://127.0.0.1:" + s1, "--state-peer", "tcp://127.0.0.1:" + s2, "--state-heartbeat", "100ms");
        Running two = start("mdbroker", "--bstar", "primary", "-e", "tcp://127.0.0.1:0", "--state-pub",
                "tcp://127.0.0.1:" + s2, "--state-peer", "tcp://127.0.0.1:" + s1, "--state-heartbeat", "100ms");
        // the first to hear the other's state stops at once, maybe before it published its own
        io.zmtp.testing.Await.until(() -> "a fatal line: " + one.out.text() + two.out.text(),
                () -> one.out.text().contains("both servers are primary") || two.out.text().contains("both servers are primary"));
        Running fatal = one.out.text().contains("both servers are primary") ? one : two;
        fatal.thread.join(T);
        assertFalse(fatal.thread.isAlive(), "a fatal pair state ends the command");
        assertEquals(1, fatal.exit.get(), fatal.out.text());
        assertTrue(fatal.out.text().contains("E: fatal error - both servers are primary"), fatal.out.text());
    }

    @Test
    void mdbrokerBstarChecksItsOptions() {
        Result role = new Result("mdbroker", "--bstar", "tertiary");
        assertEquals(2, role.exit);
        assertTrue(role.err.text().contains("--bstar takes primary or backup"), role.err.text());
        Result peer = new Result("mdbroker", "--state-peer", "tcp://127.0.0.1:1");
        assertEquals(2, peer.exit);
        assertTrue(peer.err.text().contains("need --bstar"), peer.err.text());
    }

    @Test
    void aV01ClientOfAStreamingWorkerGetsOneReply() {
        String endpoint = startBroker();
        Running worker = start("mdworker", "--connect", endpoint, "--protocol", "0.2", "--partials", "2", "-q");
        running.get(0).out.await("WORKER_READY .* service=echo");
        Result v = new Result("mdclient", "--connect", endpoint, "-n", "1", "-v", "--protocol", "0.1", "ab");
        assertEquals(0, v.exit, v.out.text());
        String t = v.out.text();
        assertTrue(t.contains("I: send request to 'echo' service:\n----------------------------------------\n"
                + "[006] MDPC01\n[004] echo\n[002] ab\n"), t);
        assertTrue(t.contains("I: received reply:\n----------------------------------------\n"
                + "[006] MDPC01\n[004] echo\n[002] ab\n[002] ab\n[002] ab\n"), "two partials and the final, joined: " + t);
        Result v2 = new Result("mdclient", "--connect", endpoint, "-n", "1", "-v", "--protocol", "0.2", "cd");
        assertEquals(0, v2.exit);
        assertTrue(v2.out.text().contains("[006] MDPC02\n[001] 02\n[004] echo\n[002] cd\n"), v2.out.text());
        assertTrue(v2.out.text().contains("[006] MDPC02\n[001] 03\n[004] echo\n[002] cd\n"), v2.out.text());
        assertTrue(worker.out.text().isEmpty(), "quiet worker");
    }

    @Test
    void verboseBrokerAndWorkerDumpEveryMessage() {
        String endpoint = startBroker("-v");
        Running broker = running.get(0);
        Running worker = start("mdworker", "--connect", endpoint, "-v", "--heartbeat", "100");
        worker.out.await("I: sending READY to broker");
        assertTrue(worker.out.text().contains("I: sending READY to broker\n----------------------------------------\n"
                + "[000]\n[006] MDPW01\n[001] 01\n[004] echo\n"), worker.out.text());
        broker.out.await("I: sending HEARTBEAT to worker");
        worker.out.await("I: received message from broker:");
    }

    @Test
    void aClientWithoutABrokerGivesUpAndSaysSo() {
        Result r = new Result("mdclient", "--connect", "tcp://127.0.0.1:1", "-n", "5", "--timeout", "50",
                "--retries", "2");
        assertEquals(1, r.exit);
        assertTrue(r.out.text().contains("I: RETRYING"), r.out.text());
        assertTrue(r.out.text().contains("I: REQUEST_FAILED"), r.out.text());
        assertTrue(r.out.text().contains("0 requests/replies processed"), r.out.text());
        Result a = new Result("mdclient", "--connect", "tcp://127.0.0.1:1", "-n", "3", "--async", "--timeout", "50",
                "--retries", "2", "-q");
        assertEquals(1, a.exit);
        assertTrue(a.out.text().contains("0 requests/replies processed"), a.out.text());
        Result m = new Result("mmi", "--connect", "tcp://127.0.0.1:1", "--timeout", "50", "echo");
        assertEquals(2, m.exit);
        assertTrue(m.err.text().contains("no reply"), m.err.text());
    }

    @Test
    void badArgumentsAreRefused() {
        Result r = new Result("mdclient", "--protocol", "0.3");
        assertEquals(2, r.exit);
        assertTrue(r.err.text().contains("unknown MDP version '0.3'"), r.err.text());
        Result w = new Result("mdworker", "--service", "mmi.service");
        assertEquals(2, w.exit);
        assertTrue(w.err.text().contains("may not register"), w.err.text());
        Result b = new Result("mdbroker", "--bind", "nonsense://x");
        assertEquals(1, b.exit, "a bad endpoint: 1, as the pirate commands");
        assertTrue(b.err.text().contains("cannot bind"), b.err.text());
        Result forever = new Result("mdclient", "--async", "-n", "0");
        assertEquals(2, forever.exit, "-n 0 (until stopped) with --async: every request would go out first");
        assertTrue(forever.err.text().contains("sends every request before it reads a reply"), forever.err.text());
    }

    @Test
    void helpListsTheMajordomoCommands() {
        Result r = new Result("--help");
        for (String c : List.of("mdbroker", "mdworker", "mdclient", "mmi")) {
            assertTrue(r.out.text().contains(c), r.out.text());
        }
    }

    @Test
    void theCommandsTakeTheCommonOptionNamesAndListTheirExitStatuses() {
        for (String c : List.of("mdbroker", "mdworker", "mdclient", "mmi")) {
            Result help = new Result(c, "--help");
            for (String option : List.of("Exit status:", "--endpoint", "--quiet", "--verbose", "--plain-user",
                    "--curve-server-key")) {
                assertTrue(help.out.text().contains(option), c + " --help lacks " + option + ":\n" + help.out.text());
            }
        }
        assertTrue(new Result("mdworker", "--help").out.text().contains("--reconnect-max"));
        assertTrue(new Result("mdclient", "--help").out.text().contains("--retries"));
    }

    @Test
    void brokerWorkerAndClientsTalkPlainWithTheCommonOptionNames() {
        Running broker = start("mdbroker", "-e", "tcp://127.0.0.1:0", "--interval", "100ms", "--liveness", "3",
                "--plain-server", "--plain-account", "u:p");
        String endpoint = broker.out.await("is active at (tcp://\\S+)").group(1);
        start("mdworker", "-e", endpoint, "--interval", "100ms", "--reconnect", "100ms", "--reconnect-max", "400ms",
                "--plain-user", "u", "--plain-password", "p", "-q");
        broker.out.await("WORKER_READY .* service=echo");
        Result client = new Result("mdclient", "-e", endpoint, "--requests", "3", "-t", "2s", "-r", "2",
                "--plain-user", "u", "--plain-password", "p", "-q");
        assertEquals(0, client.exit, client.out.text() + client.err.text());
        assertTrue(client.out.text().contains("3 requests/replies processed"), client.out.text());
        Result mmi = new Result("mmi", "-e", endpoint, "-t", "2s", "--plain-user", "u", "--plain-password", "p", "echo");
        assertEquals(0, mmi.exit, mmi.err.text());
        Result refused = new Result("mmi", "-e", endpoint, "-t", "300ms", "--plain-user", "u", "--plain-password",
                "wrong", "echo");
        assertEquals(2, refused.exit, "a wrong password gets no answer");
    }
}
