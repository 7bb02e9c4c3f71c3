package io.zmtp.cli;

import io.zmtp.socket.SocketOptions;
import io.zmtp.testing.FreePorts;
import io.zmtp.testing.RawPeer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The limits of bound endpoints on the command line ({@link BoundLimits}): every command that
 * binds sockets peers connect to takes them, they reach its bound sockets, and a value the
 * library refuses is a usage error.
 */
class BoundLimitsTest {
    /** The commands that bind sockets peers connect to (titanic only connects to its broker). */
    static final Set<String> SERVING = Set.of("mdbroker", "ppqueue", "spqueue", "lpserver", "bstarsrv", "flserver", "cat");

    private static final Pattern TCP = Pattern.compile("tcp://[0-9.]+:\\d+");

    final List<CommandRun> runs = new ArrayList<>();
    final List<RawPeer> peers = new ArrayList<>();

    @AfterEach
    void stopAll() {
        peers.forEach(RawPeer::close);
        for (CommandRun r : runs) {
            r.stop();
        }
    }

    /** Exactly the serving commands carry the limits (a new one that binds must be added here). */
    @Test
    void theServingCommandsAndOnlyThemTakeTheLimits() {
        Set<String> with = new TreeSet<>();
        for (Map.Entry<String, CommandLine> c : ZmtpCli.commandLine().getSubcommands().entrySet()) {
            if (c.getValue().getCommandSpec().mixins().values().stream()
                    .anyMatch(m -> m.userObject() instanceof BoundLimits)) {
                with.add(c.getKey());
            }
        }
        assertEquals(new TreeSet<>(SERVING), with);
    }

    /** Each serving command's --help names the options and shows the library's defaults. */
    @Test
    void helpNamesTheOptionsWithTheLibrarysDefaults() {
        for (String command : SERVING) {
            String text = HelpTextTest.help(command).replaceAll("\\s+", " ");
            for (String option : List.of("--max-connections=N", "--max-handshakes=N", "--max-handshakes-per-address=N",
                    "--max-connections-per-address=N", "--backlog=N", "--listeners=N", "--accept-queue=N",
                    "--handshake-timeout=DURATION")) {
                assertTrue(text.contains(option), command + " names " + option + ": " + text);
            }
            for (Object value : List.of(SocketOptions.DEFAULT_MAX_CONNECTIONS, SocketOptions.DEFAULT_MAX_HANDSHAKES,
                    SocketOptions.DEFAULT_MAX_HANDSHAKES_PER_ADDRESS, SocketOptions.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
                    SocketOptions.DEFAULT_BACKLOG, SocketOptions.DEFAULT_LISTENERS + ", exclusive",
                    SocketOptions.DEFAULT_ACCEPT_QUEUE, "30s")) {
                assertTrue(text.contains("default: the library's, " + value + ")")
                        || text.contains("the system's somaxconn, " + value + ")"), command + " shows " + value + ": " + text);
            }
        }
    }

    /** The values given are the socket options' values; those left out are the library's. */
    @Test
    void theValuesGivenReachTheSocketOptions() {
        CommandLine cl = ZmtpCli.commandLine();
        cl.parseArgs("mdbroker", "--max-connections", "100", "--max-handshakes", "50", "--max-handshakes-per-address", "5",
                "--max-connections-per-address", "20", "--backlog", "64", "--listeners", "3", "--accept-queue", "7",
                "--handshake-timeout", "2.5s");
        SocketOptions given = ((MdbrokerCommand) cl.getSubcommands().get("mdbroker").getCommand()).limits
                .apply(SocketOptions.builder()).build();
        assertEquals(100, given.maxConnections());
        assertEquals(50, given.maxHandshakes());
        assertEquals(5, given.maxHandshakesPerAddress());
        assertEquals(20, given.maxConnectionsPerAddress());
        assertEquals(64, given.backlog());
        assertEquals(3, given.listeners());
        assertEquals(7, given.acceptQueue());
        assertEquals(Duration.ofMillis(2500), given.handshakeTimeout());

        cl.parseArgs("mdbroker");
        SocketOptions none = ((MdbrokerCommand) cl.getSubcommands().get("mdbroker").getCommand()).limits
                .apply(SocketOptions.builder()).build();
        SocketOptions library = SocketOptions.DEFAULTS;
        assertEquals(library.maxConnections(), none.maxConnections());
        assertEquals(library.maxHandshakes(), none.maxHandshakes());
        assertEquals(library.maxHandshakesPerAddress(), none.maxHandshakesPerAddress());
        assertEquals(library.maxConnectionsPerAddress(), none.maxConnectionsPerAddress());
        assertEquals(library.backlog(), none.backlog());
        assertEquals(library.listeners(), none.listeners());
        assertEquals(library.acceptQueue(), none.acceptQueue());
        assertEquals(library.handshakeTimeout(), none.handshakeTimeout());
    }

    /** A value the library refuses ends every serving command with status 2 and the library's message. */
    @Test
    void aValueTheLibraryRefusesIsAUsageError() {
        String[][] bad = {
            {"--max-handshakes", "0", "--max-handshakes: maxHandshakes must be at least 1"},
            {"--max-connections-per-address", "-1", "--max-connections-per-address: maxConnectionsPerAddress must be 0"},
            {"--handshake-timeout", "0", "--handshake-timeout: handshakeTimeout must be positive"},
            {"--listeners", "0", "--listeners: listeners must be 1-64"},
            {"--accept-queue", "0", "--accept-queue: acceptQueue must be at least 1"},
        };
        for (String command : SERVING) {
            for (String[] b : bad) {
                CommandRun run = new CommandRun(runs, args(command, b[0], b[1]));
                assertEquals(2, run.awaitExit(), command + " " + b[0] + " " + b[1] + ": " + run.out + " " + run.err);
                assertTrue(run.err.find(b[2]) != null, command + ": " + run.err);
            }
            CommandRun notANumber = new CommandRun(runs, args(command, "--backlog", "many"));
            assertEquals(2, notANumber.awaitExit(), command + ": " + notANumber.err);
        }
    }

    /**
     * With {@code --max-handshakes-per-address 1}, every endpoint a serving command binds for
     * peers refuses a second connection in its handshake from one address at once, while the
     * first stays (by default the second would wait for its 30 s handshake timeout).
     */
    @ParameterizedTest
    @ValueSource(strings = {"mdbroker", "ppqueue", "spqueue", "lpserver", "bstarsrv", "flserver"})
    void eachBoundEndpointRefusesASecondStalledHandshakeFromOneAddress(String command) throws IOException {
        CommandRun run = new CommandRun(runs, args(command, "--max-handshakes-per-address", "1"));
        String ready = run.awaitLine(switch (command) {
            case "mdbroker" -> "is active at ";
            case "ppqueue", "spqueue" -> "queue ready: ";
            case "bstarsrv" -> "serving clients on ";
            default -> "listening on ";
        });
        Matcher m = TCP.matcher(ready);
        int endpoints = command.endsWith("queue") ? 2 : 1; // a queue's frontend and backend; bstarsrv's clients'
        for (int i = 0; i < endpoints; i++) {
            assertTrue(m.find(), ready);
            assertSecondStalledHandshakeRefused(m.group());
        }
    }

    /** {@code zmtp cat -b} too. */
    @Test
    void catRefusesASecondStalledHandshakeFromOneAddressWhereItBinds() throws IOException {
        try (CatRun cat = CatRun.start("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--max-handshakes-per-address", "1")) {
            assertSecondStalledHandshakeRefused(cat.bound());
            cat.endInput();
            assertEquals(0, cat.exitCode());
        }
    }

    /**
     * The case: a broker started with {@code --max-handshakes-per-address 2} holds two
     * connections from one address that never greet, refuses a third from it at once, and serves
     * a worker and a client from another address meanwhile.
     */
    @Test
    void theBrokerRefusesAThirdStalledConnectionFromOneAddressWhileAGoodPeerIsServed() throws IOException {
        String endpoint = "tcp://127.0.0.1:" + FreePorts.next();
        CommandRun broker = new CommandRun(runs, "mdbroker", "-e", endpoint, "--max-handshakes-per-address", "2");
        broker.awaitLine("is active at " + endpoint);
        RawPeer first = stalled(endpoint);
        RawPeer second = stalled(endpoint);
        assertTrue(RawPeer.refusedWithin(endpoint, "127.0.0.2", CatRun.T), "the third from 127.0.0.2 is refused");

        new CommandRun(runs, "mdworker", "-e", endpoint, "-q");
        CommandRun client = new CommandRun(runs, "mdclient", "-e", endpoint, "-n", "3", "-q");
        assertEquals(0, client.awaitExit(), "a client from 127.0.0.1 is served: " + client.err);
        // a negative window, short: the two in their handshake are still held
        assertFalse(first.closedWithin(20), "the first stays");
        assertFalse(second.closedWithin(20), "the second stays");
    }

    private void assertSecondStalledHandshakeRefused(String endpoint) throws IOException {
        RawPeer first = stalled(endpoint);
        assertTrue(RawPeer.refusedWithin(endpoint, "127.0.0.2", CatRun.T), endpoint + ": the second from 127.0.0.2 is refused");
        assertFalse(first.closedWithin(20), endpoint + ": the first stays"); // a negative window, short
    }

    /** A connection from 127.0.0.2 that never sends its greeting. */
    private RawPeer stalled(String endpoint) throws IOException {
        RawPeer p = RawPeer.connect(endpoint, "127.0.0.2");
        peers.add(p);
        return p;
    }

    /** The command line of {@code command} on ephemeral loopback ports, with {@code more} options. */
    private static String[] args(String command, String... more) {
        List<String> a = new ArrayList<>(switch (command) {
            case "mdbroker", "lpserver" -> List.of(command, "-e", "tcp://127.0.0.1:0");
            case "ppqueue", "spqueue" -> List.of(command, "--frontend", "tcp://127.0.0.1:0", "--backend", "tcp://127.0.0.1:0");
            case "bstarsrv" -> List.of(command, "-p", "--frontend", "tcp://127.0.0.1:0", "--state-pub", "tcp://127.0.0.1:0",
                    "--state-peer", "tcp://127.0.0.1:" + FreePorts.next());
            case "flserver" -> List.of(command, "--model", "1", "tcp://127.0.0.1:0");
            case "cat" -> List.of(command, "-t", "ROUTER", "-b", "tcp://127.0.0.1:0");
            default -> throw new IllegalArgumentException(command);
        });
        a.addAll(List.of(more));
        return a.toArray(String[]::new);
    }
}
