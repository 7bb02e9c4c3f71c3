package io.zmtp.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the commands say of themselves: the same words mean the same thing everywhere. */
class HelpTextTest {

    /** Each command's one-line summary in {@code zmtp --help} is a whole sentence. */
    @Test
    void everySummaryIsAWholeSentence() {
        for (Map.Entry<String, CommandLine> c : ZmtpCli.commandLine().getSubcommands().entrySet()) {
            String[] description = c.getValue().getCommandSpec().usageMessage().description();
            assertTrue(description.length > 0, c.getKey() + " has a description");
            assertTrue(description[0].endsWith("."), c.getKey() + "'s summary stops mid-sentence: " + description[0]);
        }
    }

    /**
     * {@code zmtp NAME} builds only NAME's command (a faster start), so each name must be the one
     * the command's class gives itself, and the command line built for it alone must hold it.
     */
    @Test
    void eachCommandIsRegisteredUnderItsOwnName() {
        for (String name : ZmtpCli.COMMANDS.keySet()) {
            Object command = ZmtpCli.COMMANDS.get(name).get();
            assertEquals(name, command.getClass().getAnnotation(CommandLine.Command.class).name());
            assertEquals(java.util.Set.of(name), ZmtpCli.commandLine(java.util.List.of(name)).getSubcommands().keySet());
        }
        assertEquals(ZmtpCli.COMMANDS.keySet(), ZmtpCli.commandLine().getSubcommands().keySet());
    }

    /** {@code titanic -v} prints a line per request stored, dispatched and replied, and says so. */
    @Test
    void titanicSaysWhatVerbosePrints() {
        String text = help("titanic").replaceAll("\\s+", " ");
        assertTrue(text.contains("titanic: each request stored, dispatched and replied"), text);
    }

    /** Every client that takes {@code -n} says the same of {@code -n 0}. */
    @Test
    void everyClientSaysTheSameOfMinusNZero() {
        for (String client : new String[] {"lpclient", "mdclient", "bstarcli", "flclient", "ticlient"}) {
            String text = help(client).replaceAll("\\s+", " ");
            assertTrue(text.contains("0: until stopped, Ctrl-C or SIGTERM"), client + ": " + text);
        }
    }

    static String help(String command) {
        StringWriter out = new StringWriter();
        CommandLine cl = ZmtpCli.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.execute(command, "--help");
        return out.toString();
    }
}
