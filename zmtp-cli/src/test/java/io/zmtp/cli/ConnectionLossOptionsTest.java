package io.zmtp.cli;

import io.zmtp.socket.ReconnectStop;
import io.zmtp.socket.SocketOptions;
import io.zmtp.testing.Await;
import io.zmtp.testing.FreePorts;
import io.zmtp.testing.TestDnsServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --reconnect-stop} and {@code --tcp-retransmit-timeout} ({@link ConnectionLossOptions}):
 * every command that connects takes them (but the Binary Star servers, whose connected socket is
 * their peer's state), they reach the options of every socket the command connects with, a
 * worker told to stop after a refused connect stops reconnecting and exits (status 1, one
 * {@code E:} line), while a client's next try connects again. A refused connect to a host name forgets the name, so each attempt asks the
 * test's name server: its questions count the attempts.
 */
class ConnectionLossOptionsTest {
    /** The connecting commands whose connected sockets may give up (not bstarsrv nor mdbroker's --bstar). */
    private static final Set<String> TAKING = Set.of("bstarcli", "cat", "flclient", "lpclient", "mdclient",
            "mdworker", "mmi", "ppworker", "spworker", "ticlient", "titanic");

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
    void theConnectingCommandsTakeTheOptions() {
        Set<String> with = new TreeSet<>();
        for (Map.Entry<String, CommandLine> c : ZmtpCli.commandLine().getSubcommands().entrySet()) {
            if (c.getValue().getCommandSpec().mixins().values().stream()
                    .anyMatch(m -> m.userObject() instanceof ConnectionLossOptions)) {
                with.add(c.getKey());
                assertInstanceOf(ConnectingCommand.class, c.getValue().getCommand(), c.getKey());
            }
        }
        assertEquals(new TreeSet<>(TAKING), with);
        Set<String> connecting = new TreeSet<>(NameLookupOptionsTest.CONNECTING);
        connecting.removeAll(TAKING);
        assertEquals(Set.of("bstarsrv", "mdbroker"), connecting, "the others that connect: the state of a pair");
    }

    @ParameterizedTest
    @ValueSource(strings = {"bstarcli", "cat", "flclient", "lpclient", "mdclient", "mdworker", "mmi", "ppworker",
            "spworker", "ticlient", "titanic"})
    void theOptionsReachEverySocketTheCommandConnects(String command) {
        List<String> args = new ArrayList<>(List.of(command));
        if (command.equals("cat")) {
            args.addAll(List.of("-t", "DEALER", "-c", "tcp://127.0.0.1:5555"));
        } else if (command.equals("flclient")) {
            args.add("tcp://127.0.0.1:5555");
        }
        List<SocketOptions> defaults = parse(args).connectingSocketOptions();
        assertFalse(defaults.isEmpty(), command);
        for (SocketOptions o : defaults) {
            assertEquals(Set.of(), o.reconnectStop(), command + ": none by default");
            assertEquals(Duration.ZERO, o.tcpRetransmitTimeout(), command + ": the system's by default");
        }

        args.addAll(List.of("--reconnect-stop", "CONNECTION_REFUSED,HANDSHAKE_FAILED", "--reconnect-stop",
                "AFTER_DISCONNECT", "--tcp-retransmit-timeout", "1500ms", "--plain-user", "u", "--plain-password", "p"));
        List<SocketOptions> set = parse(args).connectingSocketOptions();
        assertEquals(defaults.size(), set.size(), command);
        for (SocketOptions o : set) {
            assertEquals(Set.of(ReconnectStop.CONNECTION_REFUSED, ReconnectStop.HANDSHAKE_FAILED,
                    ReconnectStop.AFTER_DISCONNECT), o.reconnectStop(), command);
            assertEquals(Duration.ofMillis(1500), o.tcpRetransmitTimeout(), command);
            assertNotEquals(defaults.get(0).mechanism().getClass(), o.mechanism().getClass(),
                    command + ": the security flags still reach the socket too");
        }
    }

    private static ConnectingCommand parse(List<String> args) {
        CommandLine cl = ZmtpCli.commandLine();
        cl.parseArgs(args.toArray(String[]::new));
        return (ConnectingCommand) cl.getSubcommands().get(args.get(0)).getCommand();
    }

    @ParameterizedTest
    @ValueSource(strings = {"ppworker", "lpclient"})
    void aRetransmitTimeoutTheLibraryRefusesIsAUsageError(String command) {
        CommandRun run = new CommandRun(runs, command, "--tcp-retransmit-timeout", "3000000000");
        assertEquals(CommonOptions.USAGE, run.awaitExit());
        assertTrue(run.err.find("tcpRetransmitTimeout") != null, run.err.toString());
    }

    /**
     * A worker whose broker or queue refuses: with the option, its socket stops after the first
     * refusal, and the worker (which keeps its socket, so has nothing left to do) closes: the
     * command exits with status 1 and one {@code E:} line naming the endpoint and the reason,
     * having asked the name once. Without it, the socket goes on reconnecting, at most 200 ms
     * apart.
     */
    @ParameterizedTest
    @ValueSource(strings = {"mdworker", "ppworker", "spworker"})
    void aRefusedWorkerStopsReconnectingAndExitsWhenTold(String worker) {
        int closed = FreePorts.next(); // nothing listens there
        String stopping = "stopping-" + worker + ".zmtp.test";
        String going = "going-" + worker + ".zmtp.test";
        dns.set(stopping, "127.0.0.1");
        dns.set(going, "127.0.0.1");
        String nameServer = "127.0.0.1:" + dns.address().getPort();
        String endpoint = "tcp://" + stopping + ":" + closed;
        CommandRun run = new CommandRun(runs, worker, "-e", endpoint, "--name-server", nameServer,
                "--reconnect-stop", "CONNECTION_REFUSED");
        assertEquals(CommonOptions.FAILED, run.awaitExit(), "exits by itself: " + run.out + run.err);
        List<String> errors = run.err.lines.stream().filter(l -> l.startsWith("E: ")).toList();
        assertEquals(1, errors.size(), run.err.toString());
        assertTrue(errors.get(0).startsWith("E: stopped reconnecting to " + endpoint + ": ")
                && errors.get(0).contains("refused"), errors.get(0));
        assertEquals(1, dns.questionsA(stopping).size(), () -> "no attempt after the refusal: " + dns.questions());

        new CommandRun(runs, worker, "-e", "tcp://" + going + ":" + closed, "--name-server", nameServer);
        Await.until(() -> "attempts go on without the option: " + dns.questions(),
                () -> dns.questionsA(going).size() >= 4);
    }

    /**
     * mdworker given two brokers that both refuse: it moves to the second when the first stops,
     * and exits (status 1, one {@code E:} line for its several workers) once both have.
     */
    @Test
    void aWorkerOfTwoRefusingBrokersExitsWhenBothStopped() {
        String first = "tcp://127.0.0.1:" + FreePorts.next();
        String second = "tcp://127.0.0.1:" + FreePorts.next();
        CommandRun run = new CommandRun(runs, "mdworker", "-e", first, "-e", second, "--workers", "2",
                "--reconnect-stop", "CONNECTION_REFUSED");
        assertEquals(CommonOptions.FAILED, run.awaitExit(), "exits by itself: " + run.out + run.err);
        assertTrue(run.out.count("BROKER_LOST " + first) >= 2, "each worker moved on from the first: " + run.out);
        List<String> errors = run.err.lines.stream().filter(l -> l.startsWith("E: ")).toList();
        assertEquals(1, errors.size(), run.err.toString());
        assertTrue(errors.get(0).startsWith("E: stopped reconnecting to " + second + ": "), errors.get(0));
    }

    /** titanic, whose workers keep their sockets, ends the same way: status 1 and one {@code E:} line. */
    @Test
    void aTitanicServerWhoseBrokerRefusesExitsWhenTold(@TempDir Path dir) {
        String closed = "tcp://127.0.0.1:" + FreePorts.next();
        CommandRun run = new CommandRun(runs, "titanic", "-e", closed, "--store", dir.resolve("store").toString(),
                "--reconnect-stop", "CONNECTION_REFUSED");
        assertEquals(CommonOptions.FAILED, run.awaitExit(), "exits by itself: " + run.out + run.err);
        List<String> errors = run.err.lines.stream().filter(l -> l.startsWith("E: ")).toList();
        assertEquals(List.of(), run.err.lines.stream().filter(l -> !l.startsWith("E: ")).toList(), "nothing else");
        assertEquals(1, errors.size(), run.err.toString());
        assertTrue(errors.get(0).startsWith("E: stopped reconnecting to " + closed + ": "), errors.get(0));
    }

    /**
     * A Lazy Pirate client whose server refuses: each try is a new socket, which asks the name once
     * and, told to stop, stays stopped for the rest of its try; the next try connects again. So
     * three tries ask at most three times (without the option each try would reconnect every 100
     * to 200 ms, several times a try), and the second try did connect again.
     */
    @Test
    void aRefusedClientConnectsAgainAtEachTry() {
        int closed = FreePorts.next();
        dns.set("server.zmtp.test", "127.0.0.1");
        CommandRun run = new CommandRun(runs, "lpclient", "-e", "tcp://server.zmtp.test:" + closed,
                "--name-server", "127.0.0.1:" + dns.address().getPort(), "--reconnect-stop", "CONNECTION_REFUSED",
                "-n", "1", "--timeout", "1s", "--retries", "3");
        assertEquals(1, run.awaitExit(), "the server seemed offline: " + run.out + run.err);
        // at most one per try; a first lookup may still wait for the JVM's resolver warm-up when its try ends
        int asked = dns.questionsA("server.zmtp.test").size();
        assertTrue(asked >= 2 && asked <= 3, "one attempt per try: " + dns.questions() + run.out + run.err);
    }
}
