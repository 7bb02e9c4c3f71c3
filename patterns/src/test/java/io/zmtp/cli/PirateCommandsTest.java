package io.zmtp.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.zmtp.patterns.PatternTesting.T;
import static io.zmtp.patterns.PatternTesting.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The six Pirate commands, run in-process through {@link ZmtpCli#commandLine()} with captured output. */
class PirateCommandsTest {
    private static final Pattern QUEUE_READY = Pattern.compile("clients on (\\S+), workers on (\\S+?),? ");

    final List<Run> runs = new ArrayList<>();

    @AfterEach
    void stopAll() {
        for (Run r : runs) {
            r.stop();
        }
    }

    /** A command running on its own thread, its output collected line by line. */
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

        /** The first output line containing {@code text}, waiting for it. */
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

        /** Stops a command that runs until stopped (as Ctrl-C would), and returns its exit status. */
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
            for (String l : lines) {
                if (l.contains(text)) {
                    return l;
                }
            }
            return null;
        }

        long count(String text) {
            return lines.stream().filter(l -> l.contains(text)).count();
        }
    }

    static String[] queueEndpoints(String readyLine) {
        Matcher m = QUEUE_READY.matcher(readyLine + " ");
        assertTrue(m.find(), readyLine);
        return new String[] {m.group(1), m.group(2)};
    }

    @Test
    void lpclientAgainstLpserver() {
        Run server = new Run("lpserver", "-e", "tcp://127.0.0.1:0");
        String endpoint = server.awaitLine("listening on ").substring("listening on ".length());
        Run client = new Run("lpclient", "-e", endpoint, "-n", "3", "-t", "2s");
        assertEquals(0, client.awaitExit());
        assertEquals(3, client.out.count("server replied OK"));
        assertTrue(client.out.find("done: 3 requests, 3 replies") != null, client.out.lines.toString());
        server.awaitLine("normal request (3)");
        assertEquals(0, server.stop());
    }

    @Test
    void lpclientGivesUpWithStatusOneWhenNoServerAnswers() {
        Run client = new Run("lpclient", "-e", "tcp://127.0.0.1:1", "-n", "1", "-t", "50ms", "-r", "2");
        assertEquals(1, client.awaitExit());
        assertEquals(1, client.out.lines.stream().filter(l -> l.startsWith("sending request 1")).count());
        assertEquals(1, client.out.lines.stream().filter(l -> l.startsWith("resending request 1 (try 2 of 2)")).count());
        assertTrue(client.out.find("abandoning") != null, client.out.lines.toString());
    }

    @Test
    void quietPrintsNothing() {
        Run server = new Run("lpserver", "-e", "tcp://127.0.0.1:0");
        String endpoint = server.awaitLine("listening on ").substring("listening on ".length());
        Run client = new Run("lpclient", "-e", endpoint, "-n", "2", "--quiet");
        assertEquals(0, client.awaitExit());
        assertEquals(List.of(), client.out.lines);
        Run quietServer = new Run("lpserver", "-e", "tcp://127.0.0.1:0", "-q");
        assertEquals(0, quietServer.stop(), () -> quietServer.err.lines.toString());
        assertEquals(List.of(), quietServer.out.lines);
    }

    @Test
    void lpserverSimulatesTheGuidesCrashAndExitsWithStatusThree() {
        // Seed 1: requests 1 to 4 are answered (no overload), request 5 crashes the server.
        Run server = new Run("lpserver", "-e", "tcp://127.0.0.1:0", "--simulate-failures", "--seed", "1");
        String endpoint = server.awaitLine("listening on ").substring("listening on ".length());
        // One try of 2 s per request: none of the first four is sent twice, however slow the machine
        // (a resend would be the server's next request, and the crash would come a request sooner).
        Run client = new Run("lpclient", "-e", endpoint, "-n", "10", "-t", "2s", "-r", "1");
        assertEquals(1, client.awaitExit());
        assertEquals(4, client.out.count("server replied OK"), client.out.lines.toString());
        assertTrue(client.out.find("abandoning") != null, "request 5 given up: " + client.out.lines);
        assertEquals(CommandSupport.SIMULATED_CRASH, server.awaitExit());
        assertTrue(server.out.find("simulating a crash (5)") != null, server.out.lines.toString());
    }

    @Test
    void spqueueWithSpworkersServesLpclient() {
        Run queue = new Run("spqueue", "--frontend", "tcp://127.0.0.1:0", "--backend", "tcp://127.0.0.1:0");
        String[] eps = queueEndpoints(queue.awaitLine("queue ready"));
        Run worker = new Run("spworker", "-e", eps[1], "--identity", "W1");
        queue.awaitLine("worker W1 ready");
        Run client = new Run("lpclient", "-e", eps[0], "-n", "3", "-t", "2s");
        assertEquals(0, client.awaitExit());
        worker.awaitLine("normal reply (3)");
        assertEquals(0, queue.out.count("request to worker"), "per-message lines only with --verbose");
        assertEquals(0, worker.stop());
        assertEquals(0, queue.stop());
    }

    @Test
    void ppqueueAndPpworkerHeartbeatServeAndRecover() {
        Run queue = new Run("ppqueue", "--frontend", "tcp://127.0.0.1:0", "--backend", "tcp://127.0.0.1:0",
                "--interval", "50ms", "--liveness", "4");
        String[] eps = queueEndpoints(queue.awaitLine("queue ready"));
        Run worker = new Run("ppworker", "-e", eps[1], "--identity", "P1", "--interval", "50ms", "--liveness", "4",
                "--reconnect", "100ms", "--reconnect-max", "400ms", "-v");
        queue.awaitLine("worker P1 ready");
        worker.awaitLine("queue heartbeat");
        Run client = new Run("lpclient", "-e", eps[0], "-n", "3", "-t", "2s");
        assertEquals(0, client.awaitExit());
        worker.awaitLine("normal reply (3)");

        assertEquals(0, queue.stop());
        worker.awaitLine("heartbeat failure");
        worker.awaitLine("reconnecting in 100 ms");
        worker.awaitLine("reconnecting in 200 ms");
        assertEquals(0, worker.stop());
    }

    @Test
    void badOptionsAndUnbindableEndpointsGiveClearStatuses() {
        Run badDuration = new Run("lpclient", "--timeout", "soon");
        assertEquals(2, badDuration.awaitExit());
        assertTrue(badDuration.err.find("not a duration") != null, badDuration.err.lines.toString());
        Run badLiveness = new Run("ppqueue", "--liveness", "0");
        assertEquals(2, badLiveness.awaitExit());

        Run server = new Run("lpserver", "-e", "tcp://127.0.0.1:0");
        String endpoint = server.awaitLine("listening on ").substring("listening on ".length());
        Run clash = new Run("lpserver", "-e", endpoint);
        assertEquals(1, clash.awaitExit());
        assertTrue(clash.err.find("cannot bind") != null, clash.err.lines.toString());
    }

    @Test
    void everyPirateCommandSpellsItsOptionsTheSameWayAndListsItsExitStatuses() {
        for (String command : List.of("lpclient", "lpserver", "spqueue", "spworker", "ppqueue", "ppworker")) {
            Run help = new Run(command, "--help");
            assertEquals(0, help.awaitExit());
            String text = String.join("\n", help.out.lines);
            for (String option : List.of("Exit status:", "--quiet", "--verbose", "--plain-user", "--curve-server-key")) {
                assertTrue(text.contains(option), command + " --help lacks " + option);
            }
            boolean queue = command.endsWith("queue");
            assertEquals(!queue, text.contains("--endpoint"), command);
            assertEquals(queue, text.contains("--frontend") && text.contains("--backend"), command);
            if (command.startsWith("pp")) {
                assertTrue(text.contains("--interval") && text.contains("--liveness"), command);
            }
        }
    }

    @Test
    void lpclientTakesRequestsOrTheOlderCountAndPlainCredentials() {
        Run server = new Run("lpserver", "-e", "tcp://127.0.0.1:0", "--plain-server", "--plain-account", "u:p");
        String endpoint = server.awaitLine("listening on ").substring("listening on ".length());
        Run client = new Run("lpclient", "-e", endpoint, "--requests", "2", "-t", "2s", "--plain-user", "u",
                "--plain-password", "p");
        assertEquals(0, client.awaitExit(), () -> client.err.lines.toString());
        assertEquals(2, client.out.count("server replied OK"));
        Run older = new Run("lpclient", "-e", endpoint, "--count", "1", "-t", "2s", "--plain-user", "u",
                "--plain-password", "p");
        assertEquals(0, older.awaitExit(), () -> older.err.lines.toString());
        assertTrue(older.out.find("done: 1 requests, 1 replies") != null, older.out.lines.toString());
        Run refused = new Run("lpclient", "-e", endpoint, "-n", "1", "-t", "200ms", "-r", "1", "--plain-user", "u",
                "--plain-password", "wrong", "-q");
        assertEquals(1, refused.awaitExit(), "a server that refuses us never answers");
        assertEquals(0, server.stop());
    }
}
