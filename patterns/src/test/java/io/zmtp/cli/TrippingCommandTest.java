package io.zmtp.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TrippingCommandTest {

    private static String run(String... args) {
        CommandLine cli = ZmtpCli.commandLine();
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out));
        assertEquals(0, cli.execute(args));
        return out.toString();
    }

    private static void assertTwoRates(String out) {
        Matcher m = Pattern.compile(" (\\d+) calls/second").matcher(out);
        int rates = 0;
        while (m.find()) {
            assertTrue(Long.parseLong(m.group(1)) > 0);
            rates++;
        }
        assertEquals(2, rates, out);
        assertTrue(out.contains("Synchronous round-trip test...") && out.contains("Asynchronous round-trip test..."));
    }

    @Test
    void runsTheGuidesRoundTripOverTcpWithABlockingClient() {
        String out = run("tripping", "--sync", "200", "--async", "2000");
        assertTwoRates(out);
        assertTrue(out.contains("Warming up"), out);
    }

    @Test
    void runsOverInprocWithAReactorClient() {
        String out = run("tripping", "--sync", "200", "--async", "2000", "--transport", "inproc", "--client", "reactor",
                "--no-warmup");
        assertTwoRates(out);
        assertTrue(!out.contains("Warming up"), out);
    }
}
