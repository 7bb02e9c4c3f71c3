package io.zmtp.cli;

import io.zmtp.testing.FreePorts;
import io.zmtp.testing.TestDnsServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --name-server} and {@code --lookup-timeout} ({@link NameLookupOptions}): every command that
 * connects or binds takes them, they parse into what {@code ZmtpContext.nameResolution} is given,
 * a bind by name is looked up with them, and left out they start no resolver.
 */
class NameLookupOptionsTest {
    /** The commands that connect to endpoints (a new one that connects must be added here). */
    static final Set<String> CONNECTING = Set.of("bstarcli", "bstarsrv", "cat", "flclient", "lpclient", "mdbroker",
            "mdclient", "mdworker", "mmi", "ppworker", "spworker", "ticlient", "titanic");
    /** The commands that only bind: binds by name are looked up as connects are. */
    static final Set<String> BINDING_ONLY = Set.of("flserver", "lpserver", "ppqueue", "spqueue");

    private final List<CommandRun> runs = new ArrayList<>();
    private final TestDnsServer dns = new TestDnsServer();

    @AfterEach
    void stop() {
        for (CommandRun r : runs) {
            r.stop();
        }
        dns.close();
    }

    @Test
    void theCommandsThatConnectOrBindAndOnlyThemTakeTheOptions() {
        Set<String> with = new TreeSet<>();
        Set<String> binding = new TreeSet<>();
        for (Map.Entry<String, CommandLine> c : ZmtpCli.commandLine().getSubcommands().entrySet()) {
            if (c.getValue().getCommandSpec().mixins().values().stream()
                    .anyMatch(m -> m.userObject() instanceof NameLookupOptions)) {
                with.add(c.getKey());
            }
            if (c.getValue().getCommandSpec().mixins().values().stream()
                    .anyMatch(m -> m.userObject() instanceof BoundLimits)) {
                binding.add(c.getKey());
            }
        }
        Set<String> expected = new TreeSet<>(CONNECTING);
        expected.addAll(BINDING_ONLY);
        assertEquals(expected, with);
        assertTrue(with.containsAll(binding), "every command that binds: " + binding);
        Set<String> without = new TreeSet<>(ZmtpCli.commandLine().getSubcommands().keySet());
        without.removeAll(with);
        assertEquals(Set.of("help", "keygen", "tripping"), without, "no endpoint of the user's");
    }

    /**
     * A queue bound by a name only the test's name server knows is found through
     * {@code --name-server}; given addresses and no option, a command starts no resolver thread,
     * and given an option it does (the option reaches the context only when given).
     */
    @Test
    void aBindByNameIsLookedUpWithTheOptionsAndAddressesStartNoResolver() {
        dns.set("queue.zmtp.test", "127.0.0.1");
        String nameServer = "127.0.0.1:" + dns.address().getPort();
        Set<Long> before = resolverThreads();
        CommandRun plain = new CommandRun(runs, "spqueue", "--frontend", "tcp://127.0.0.1:0", "--backend",
                "tcp://127.0.0.1:0");
        plain.awaitLine("queue ready");
        assertEquals(Set.of(), minus(resolverThreads(), before), "addresses only: no resolver thread");
        assertEquals(0, plain.stop());

        int front = FreePorts.next();
        int back = FreePorts.next();
        CommandRun byName = new CommandRun(runs, "spqueue", "--frontend", "tcp://queue.zmtp.test:" + front,
                "--backend", "tcp://queue.zmtp.test:" + back, "--name-server", nameServer, "--lookup-timeout", "2s");
        String ready = byName.awaitLine("queue ready");
        assertTrue(ready.contains("tcp://queue.zmtp.test:" + front), ready);
        assertFalse(dns.questionsA("queue.zmtp.test").isEmpty(), () -> "the server given was asked (once: the"
                + " second bind takes the cached answer): " + dns.questions());
        assertTrue(!minus(resolverThreads(), before).isEmpty(), "the options given: a resolver");
        assertEquals(0, byName.stop());
    }

    private static Set<Long> resolverThreads() {
        Set<Long> ids = new TreeSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("zmtp-dns") && t.isAlive()) {
                ids.add(t.getId());
            }
        }
        return ids;
    }

    private static Set<Long> minus(Set<Long> a, Set<Long> b) {
        Set<Long> d = new TreeSet<>(a);
        d.removeAll(b);
        return d;
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
