package io.zmtp.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static io.zmtp.testing.Await.until;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** zmtp flserver and flclient, run in-process through {@link ZmtpCli#commandLine()}. */
class FreelanceCommandsTest {
    final List<CommandRun> runs = new ArrayList<>();

    @AfterEach
    void stopAll() {
        for (CommandRun r : runs) {
            r.stop();
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
        new CommandRun(runs, "flserver", "--model", Integer.toString(model), a).awaitLine("listening on " + a);
        new CommandRun(runs, "flserver", "--model", Integer.toString(model), b).awaitLine("listening on " + b);
        CommandRun client = new CommandRun(runs, "flclient", "--model", Integer.toString(model), "-n", "200", a, b);
        assertEquals(0, client.awaitExit(), client.err.text());
        assertTrue(client.out.text().matches("(?s).*Average round trip cost: \\d+ usec.*"), client.out.text());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void theClientExitsWithOneInBoundedTimeWhenNoServerAnswers(int model) throws Exception {
        CommandRun client = new CommandRun(runs, "flclient", "--model", Integer.toString(model), "-n", "3", "-t", "200ms",
                "-r", "2", freeEndpoint());
        assertEquals(1, client.awaitExit());
        assertTrue(client.err.text().contains("no reply"), client.err.text());
    }

    @Test
    void badOptionsAndHelp() throws Exception {
        assertEquals(2, new CommandRun(runs, "flclient", "--model", "4", freeEndpoint()).awaitExit());
        assertEquals(2, new CommandRun(runs, "flclient", "-n", "-1", freeEndpoint()).awaitExit()); // -n 0: until stopped
        assertEquals(2, new CommandRun(runs, "flserver", "--model", "3", "tcp://127.0.0.1:0").awaitExit(),
                "a model 3 server is known by its port");
        CommandRun help = new CommandRun(runs, "flclient", "--help");
        assertEquals(0, help.awaitExit());
        assertTrue(help.out.text().contains("Exit status:") && help.out.text().contains("every request got its reply"),
                help.out.text());
        CommandRun serverHelp = new CommandRun(runs, "flserver", "--help");
        assertEquals(0, serverHelp.awaitExit());
        assertTrue(serverHelp.out.text().contains("Exit status:") && serverHelp.out.text().contains("--plain-user"),
                serverHelp.out.text());
    }
}
