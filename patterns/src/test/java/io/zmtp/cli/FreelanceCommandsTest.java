package io.zmtp.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.zmtp.patterns.PatternTesting.T;
import static io.zmtp.patterns.PatternTesting.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** zmtp flserver and flclient, run in-process through {@link ZmtpCli#commandLine()}. */
class FreelanceCommandsTest {
    final List<Run> runs = new ArrayList<>();

    @AfterEach
    void stopAll() {
        for (Run r : runs) {
            r.stop();
        }
    }

    /** A command on its own thread, with its output collected. */
    final class Run {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final CompletableFuture<Integer> exit = new CompletableFuture<>();
        final Thread thread;

        Run(String... args) {
            thread = new Thread(() -> exit.complete(ZmtpCli.commandLine().setOut(new PrintWriter(out, true))
                    .setErr(new PrintWriter(err, true)).execute(args)), "cli-" + args[0]);
            thread.setDaemon(true);
            thread.start();
            runs.add(this);
        }

        String out() {
            synchronized (out.getBuffer()) {
                return out.toString();
            }
        }

        void awaitOutput(String text) {
            eventually(() -> "'" + text + "' in " + out() + " (errors: " + err + ")", () -> out().contains(text));
        }

        int awaitExit() {
            try {
                return exit.get(T.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                throw new AssertionError("no exit: output " + out() + ", errors " + err, e);
            }
        }

        void stop() {
            if (!exit.isDone()) {
                thread.interrupt();
                awaitExit();
            }
        }
    }

    static String freeEndpoint() throws IOException {
        return io.zmtp.testing.FreePorts.loopbackEndpoint();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void theClientOfEachModelIsServedByTwoServersAndPrintsTheAverageRoundTrip(int model) throws Exception {
        String a = freeEndpoint();
        String b = freeEndpoint();
        new Run("flserver", "--model", Integer.toString(model), a).awaitOutput("listening on " + a);
        new Run("flserver", "--model", Integer.toString(model), b).awaitOutput("listening on " + b);
        Run client = new Run("flclient", "--model", Integer.toString(model), "-n", "200", a, b);
        assertEquals(0, client.awaitExit(), client.err.toString());
        assertTrue(client.out().matches("(?s).*Average round trip cost: \\d+ usec.*"), client.out());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void theClientExitsWithOneInBoundedTimeWhenNoServerAnswers(int model) throws Exception {
        Run client = new Run("flclient", "--model", Integer.toString(model), "-n", "3", "-t", "200ms",
                "-r", "2", freeEndpoint());
        assertEquals(1, client.awaitExit());
        assertTrue(client.err.toString().contains("no reply"), client.err.toString());
    }

    @Test
    void badOptionsAndHelp() throws Exception {
        assertEquals(2, new Run("flclient", "--model", "4", freeEndpoint()).awaitExit());
        assertEquals(2, new Run("flclient", "-n", "-1", freeEndpoint()).awaitExit()); // -n 0: until stopped
        assertEquals(2, new Run("flserver", "--model", "3", "tcp://127.0.0.1:0").awaitExit(),
                "a model 3 server is known by its port");
        Run help = new Run("flclient", "--help");
        assertEquals(0, help.awaitExit());
        assertTrue(help.out().contains("Exit status:") && help.out().contains("every request got its reply"),
                help.out());
        Run serverHelp = new Run("flserver", "--help");
        assertEquals(0, serverHelp.awaitExit());
        assertTrue(serverHelp.out().contains("Exit status:") && serverHelp.out().contains("--plain-user"),
                serverHelp.out());
    }
}
