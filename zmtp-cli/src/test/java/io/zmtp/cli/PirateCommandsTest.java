package io.zmtp.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The six Pirate commands, run in-process through {@link ZmtpCli#commandLine()} with captured output. */
class PirateCommandsTest {
    private static final Pattern QUEUE_READY = Pattern.compile("clients on (\\S+), workers on (\\S+?),? ");

    final List<CommandRun> runs = new ArrayList<>();

    @AfterEach
    void stopAll() {
        for (CommandRun r : runs) {
            r.stop();
        }
    }


    static String[] queueEndpoints(String readyLine) {
        Matcher m = QUEUE_READY.matcher(readyLine + " ");
        assertTrue(m.find(), readyLine);
        return new String[] {m.group(1), m.group(2)};
    }

    @Test
    void lpclientAgainstLpserver() {
        CommandRun server = new CommandRun(runs, "lpserver", "-e", "tcp://127.0.0.1:0");
        String endpoint = server.awaitLine("listening on ").substring("listening on ".length());
        CommandRun client = new CommandRun(runs, "lpclient", "-e", endpoint, "-n", "3", "-t", "2s");
        assertEquals(0, client.awaitExit());
        assertEquals(3, client.out.count("server replied OK"));
        assertTrue(client.out.find("done: 3 requests, 3 replies") != null, client.out.lines.toString());
        server.awaitLine("normal request (3)");
        assertEquals(0, server.stop());
    }

    @Test
    void lpclientGivesUpWithStatusOneWhenNoServerAnswers() {
        CommandRun client = new CommandRun(runs, "lpclient", "-e", "tcp://127.0.0.1:1", "-n", "1", "-t", "50ms", "-r", "2");
        assertEquals(1, client.awaitExit());
        assertEquals(1, client.out.lines.stream().filter(l -> l.startsWith("sending request 1")).count());
        assertEquals(1, client.out.lines.stream().filter(l -> l.startsWith("resending request 1 (try 2 of 2)")).count());
        assertTrue(client.out.find("abandoning") != null, client.out.lines.toString());
    }

    @Test
    void quietPrintsNothing() {
        CommandRun server = new CommandRun(runs, "lpserver", "-e", "tcp://127.0.0.1:0");
        String endpoint = server.awaitLine("listening on ").substring("listening on ".length());
        CommandRun client = new CommandRun(runs, "lpclient", "-e", endpoint, "-n", "2", "--quiet");
        assertEquals(0, client.awaitExit());
        assertEquals(List.of(), client.out.lines);
        CommandRun quietServer = new CommandRun(runs, "lpserver", "-e", "tcp://127.0.0.1:0", "-q");
        assertEquals(0, quietServer.stop(), () -> quietServer.err.lines.toString());
        assertEquals(List.of(), quietServer.out.lines);
    }

    @Test
    void lpserverSimulatesTheGuidesCrashAndExitsWithStatusThree() {
        // Seed 1: requests 1 to 4 are answered (no overload), request 5 crashes the server.
        CommandRun server = new CommandRun(runs, "lpserver", "-e", "tcp://127.0.0.1:0", "--simulate-failures", "--seed", "1");
        String endpoint = server.awaitLine("listening on ").substring("listening on ".length());
        // One try of 2 s per request: none of the first four is sent twice, however slow the machine
        // (a resend would be the server's next request, and the crash would come a request sooner).
        CommandRun client = new CommandRun(runs, "lpclient", "-e", endpoint, "-n", "10", "-t", "2s", "-r", "1");
        assertEquals(1, client.awaitExit());
        assertEquals(4, client.out.count("server replied OK"), client.out.lines.toString());
        assertTrue(client.out.find("abandoning") != null, "request 5 given up: " + client.out.lines);
        assertEquals(CommandSupport.SIMULATED_CRASH, server.awaitExit());
        assertTrue(server.out.find("simulating a crash (5)") != null, server.out.lines.toString());
    }

    @Test
    void spqueueWithSpworkersServesLpclient() {
        CommandRun queue = new CommandRun(runs, "spqueue", "--frontend", "tcp://127.0.0.1:0", "--backend", "tcp://127.0.0.1:0");
        String[] eps = queueEndpoints(queue.awaitLine("queue ready"));
        CommandRun worker = new CommandRun(runs, "spworker", "-e", eps[1], "--identity", "W1");
        queue.awaitLine("worker W1 ready");
        CommandRun client = new CommandRun(runs, "lpclient", "-e", eps[0], "-n", "3", "-t", "2s");
        assertEquals(0, client.awaitExit());
        worker.awaitLine("normal reply (3)");
        assertEquals(0, queue.out.count("request to worker"), "per-message lines only with --verbose");
        assertEquals(0, worker.stop());
        assertEquals(0, queue.stop());
    }

    @Test
    void ppqueueAndPpworkerHeartbeatServeAndRecover() {
        CommandRun queue = new CommandRun(runs, "ppqueue", "--frontend", "tcp://127.0.0.1:0", "--backend", "tcp://127.0.0.1:0",
                "--interval", "50ms", "--liveness", "4");
        String[] eps = queueEndpoints(queue.awaitLine("queue ready"));
        CommandRun worker = new CommandRun(runs, "ppworker", "-e", eps[1], "--identity", "P1", "--interval", "50ms", "--liveness", "4",
                "--reconnect", "100ms", "--reconnect-max", "400ms", "-v");
        queue.awaitLine("worker P1 ready");
        worker.awaitLine("queue heartbeat");
        CommandRun client = new CommandRun(runs, "lpclient", "-e", eps[0], "-n", "3", "-t", "2s");
        assertEquals(0, client.awaitExit());
        worker.awaitLine("normal reply (3)");

        // A queue that stops is not a silent queue: the worker's socket reconnects by itself, and
        // the worker is back, READY, as soon as a queue listens on the same endpoints again.
        assertEquals(0, queue.stop());
        worker.awaitLine("lost, reconnecting");
        CommandRun restarted = new CommandRun(runs, "ppqueue", "--frontend", eps[0], "--backend", eps[1],
                "--interval", "50ms", "--liveness", "4");
        restarted.awaitLine("worker P1 ready");
        CommandRun after = new CommandRun(runs, "lpclient", "-e", eps[0], "-n", "1", "-t", "2s");
        assertEquals(0, after.awaitExit());
        assertEquals(0, worker.stop());
        assertEquals(0, restarted.stop());
    }

    @Test
    void badOptionsAndUnbindableEndpointsGiveClearStatuses() {
        CommandRun badDuration = new CommandRun(runs, "lpclient", "--timeout", "soon");
        assertEquals(2, badDuration.awaitExit());
        assertTrue(badDuration.err.find("not a duration") != null, badDuration.err.lines.toString());
        CommandRun badLiveness = new CommandRun(runs, "ppqueue", "--liveness", "0");
        assertEquals(2, badLiveness.awaitExit());

        CommandRun server = new CommandRun(runs, "lpserver", "-e", "tcp://127.0.0.1:0");
        String endpoint = server.awaitLine("listening on ").substring("listening on ".length());
        CommandRun clash = new CommandRun(runs, "lpserver", "-e", endpoint);
        assertEquals(1, clash.awaitExit());
        assertTrue(clash.err.find("cannot bind") != null, clash.err.lines.toString());
    }

    @Test
    void everyPirateCommandSpellsItsOptionsTheSameWayAndListsItsExitStatuses() {
        for (String command : List.of("lpclient", "lpserver", "spqueue", "spworker", "ppqueue", "ppworker")) {
            CommandRun help = new CommandRun(runs, command, "--help");
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
        CommandRun server = new CommandRun(runs, "lpserver", "-e", "tcp://127.0.0.1:0", "--plain-server", "--plain-account", "u:p");
        String endpoint = server.awaitLine("listening on ").substring("listening on ".length());
        CommandRun client = new CommandRun(runs, "lpclient", "-e", endpoint, "--requests", "2", "-t", "2s", "--plain-user", "u",
                "--plain-password", "p");
        assertEquals(0, client.awaitExit(), () -> client.err.lines.toString());
        assertEquals(2, client.out.count("server replied OK"));
        CommandRun older = new CommandRun(runs, "lpclient", "-e", endpoint, "--count", "1", "-t", "2s", "--plain-user", "u",
                "--plain-password", "p");
        assertEquals(0, older.awaitExit(), () -> older.err.lines.toString());
        assertTrue(older.out.find("done: 1 requests, 1 replies") != null, older.out.lines.toString());
        CommandRun refused = new CommandRun(runs, "lpclient", "-e", endpoint, "-n", "1", "-t", "200ms", "-r", "1", "--plain-user", "u",
                "--plain-password", "wrong", "-q");
        assertEquals(1, refused.awaitExit(), "a server that refuses us never answers");
        assertEquals(0, server.stop());
    }
}
