package io.zmtp.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --name-server} and {@code --lookup-timeout} ({@link NameLookupOptions}): every command that
 * connects takes them, and they parse into what {@code ZmtpContext.nameResolution} is given.
 */
class NameLookupOptionsTest {
    /** The commands that connect to endpoints (a new one that connects must be added here). */
    static final Set<String> CONNECTING = Set.of("bstarcli", "bstarsrv", "cat", "flclient", "lpclient", "mdbroker",
            "mdclient", "mdworker", "mmi", "ppworker", "spworker", "ticlient", "titanic");

    @Test
    void theConnectingCommandsAndOnlyThemTakeTheOptions() {
        Set<String> with = new TreeSet<>();
        for (Map.Entry<String, CommandLine> c : ZmtpCli.commandLine().getSubcommands().entrySet()) {
            if (c.getValue().getCommandSpec().mixins().values().stream()
                    .anyMatch(m -> m.userObject() instanceof NameLookupOptions)) {
                with.add(c.getKey());
            }
        }
        assertEquals(new TreeSet<>(CONNECTING), with);
    }

    @Test
    void nameServersAndTimeoutParse() {
        CommandLine cl = ZmtpCli.commandLine();
        cl.parseArgs("mdworker", "--name-server", "127.0.0.1:5353", "--name-server", "[::1]:53",
                "--lookup-timeout", "750ms");
        NameLookupOptions o = ((MdworkerCommand) cl.getSubcommands().get("mdworker").getCommand()).names;
        assertEquals(List.of(new InetSocketAddress("127.0.0.1", 5353), new InetSocketAddress("::1", 53)), o.nameServers);
        assertEquals(Duration.ofMillis(750), o.lookupTimeout);
    }

    @Test
    void leftOutTheyAreTheLibrarysDefaults() {
        CommandLine cl = ZmtpCli.commandLine();
        cl.parseArgs("mdclient");
        NameLookupOptions o = ((MdclientCommand) cl.getSubcommands().get("mdclient").getCommand()).names;
        assertEquals(List.of(), o.nameServers, "the system's name servers");
        assertEquals(Duration.ofSeconds(5), o.lookupTimeout);
        String help = HelpTextTest.help("mdclient").replaceAll("\\s+", " ");
        assertTrue(help.contains("--name-server=HOST:PORT") && help.contains("--lookup-timeout=DURATION"), help);
        assertTrue(help.contains("(default: 5000ms)"), help);
    }

    @Test
    void badValuesAreUsageErrors() {
        for (List<String> args : List.of(List.of("--name-server", "127.0.0.1"), List.of("--name-server", "127.0.0.1:0"),
                List.of("--name-server", "127.0.0.1:x"), List.of("--lookup-timeout", "0"))) {
            CommandLine cl = ZmtpCli.commandLine();
            List<String> all = new java.util.ArrayList<>(List.of("mdclient"));
            all.addAll(args);
            assertThrows(CommandLine.ParameterException.class, () -> cl.parseArgs(all.toArray(String[]::new)),
                    String.valueOf(args));
        }
    }
}
