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
        assertTrue(Pattern.compile("Warmed up in [0-9.]+ s, \\d+ passes").matcher(out).find(), out);
        assertTrue(out.contains(" processors, ") && out.contains(" I/O, "), "the JVM and machine are printed: " + out);
    }

    @Test
    void theWarmUpEndsWhenTheLastThreeRatesAreWithinTenPercent() {
        TrippingCommand.WarmUp w = new TrippingCommand.WarmUp();
        w.add(10_000);
        w.add(50_000);
        assertTrue(!w.stable(), "fewer than three passes");
        w.add(52_000);
        assertTrue(!w.stable(), "10,000 -> 52,000 is still climbing");
        w.add(54_000);
        assertTrue(w.stable(), "50,000 / 52,000 / 54,000: within 10 %");
        w.add(60_000);
        assertTrue(!w.stable(), "52,000 -> 60,000 is more than 10 %");
        assertEquals(5, w.passes());
    }

    @Test
    void theWarmUpIsBoundedInTime() {
        // A bound of zero: one pass, which cannot be stable (three are needed), and the bound ends it.
        String out = run("tripping", "--sync", "50", "--async", "50", "--warmup", "0s");
        assertTwoRates(out);
        assertTrue(out.contains(", 1 passes (rates still moving: --warmup ends it)"), out);
    }

    @Test
    void runsOverInprocWithAReactorClient() {
        String out = run("tripping", "--sync", "200", "--async", "2000", "--transport", "inproc", "--client", "reactor",
                "--no-warmup");
        assertTwoRates(out);
        assertTrue(!out.contains("Warming up"), out);
    }

    @Test
    void runsWithCurveOnBothHops() {
        String out = run("tripping", "--sync", "200", "--async", "2000", "--curve", "--no-warmup");
        assertTwoRates(out);
        assertTrue(out.contains("(tcp, blocking client, CURVE)"), out);
    }
}
