package io.zmtp.interop;

import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.freelance.BruteForceClient;
import io.zmtp.patterns.freelance.FailoverClient;
import io.zmtp.patterns.freelance.FreelanceClient;
import io.zmtp.patterns.freelance.FreelanceEvent;
import io.zmtp.patterns.kit.NoReplyException;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Freelance, models 1 to 3, across processes: libzmq servers and clients (peers/flserver.py,
 * peers/flclient.py) against ours in both directions, and our servers as real processes
 * ({@code java -jar zmtp-cli/target/zmtp.jar flserver}) killed with SIGKILL, restarted, and (model
 * 3) frozen with SIGSTOP, under the load of an in-process client.
 */
class FreelanceInteropTest {
    static final Path JAR = PeerScript.ZMTP_JAR;
    static final SocketOptions FAST_RECONNECT = SocketOptions.builder()
            .reconnectInterval(Duration.ofMillis(10)).reconnectIntervalMax(Duration.ofMillis(50)).build();

    final List<PeerScript> processes = new ArrayList<>();
    ZmtpContext ctx;
    LoopComponent client;

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(1);
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        for (PeerScript p : processes) {
            p.close();
        }
        ctx.close(Duration.ofSeconds(5));
    }

    PeerScript zmtp(String... args) {
        PeerScript p = PeerScript.zmtp(args);
        processes.add(p);
        return p;
    }

    PeerScript python(String script, String... args) {
        PeerScript p = PeerScript.start(script, args);
        processes.add(p);
        return p;
    }

    /** One of our servers as a process, bound and ready. */
    PeerScript ourServer(int model, String endpoint) {
        return ourServers(model, List.of(endpoint)).get(0);
    }

    /**
     * Our servers as processes, one per endpoint, each bound and ready: all are started before
     * any is awaited, so their JVMs start side by side rather than one after the other.
     */
    List<PeerScript> ourServers(int model, List<String> endpoints) {
        List<PeerScript> started = new ArrayList<>();
        for (String endpoint : endpoints) {
            started.add(zmtp("flserver", "--model", Integer.toString(model), endpoint));
        }
        for (PeerScript p : started) {
            p.awaitLine("I: model " + model + " server listening on");
        }
        return started;
    }

    static String freeEndpoint() throws IOException {
        return io.zmtp.testing.FreePorts.loopbackEndpoint();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void libzmqServersServeOurClient(int model) throws Exception {
        String a = freeEndpoint();
        String b = freeEndpoint();
        python("flserver.py", Integer.toString(model), a).awaitLine("listening");
        python("flserver.py", Integer.toString(model), b).awaitLine("listening");
        PeerScript ours = zmtp("flclient", "--model", Integer.toString(model), "-n", "100", "-t", "5s", a, b);
        // A JVM's start and 100 round trips: seconds when the machine is busy (a bound, not a timing).
        assertEquals(0, ours.awaitExit(30_000), () -> ours.lines().toString());
        assertTrue(ours.count(l -> l.startsWith("Average round trip cost:")) == 1, () -> ours.lines().toString());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void ourServersServeTheLibzmqClient(int model) throws Exception {
        String a = freeEndpoint();
        String b = freeEndpoint();
        ourServers(model, List.of(a, b));
        // A generous timeout: our servers are JVMs just started (cold) on a busy machine.
        PeerScript theirs = python("flclient.py", "--timeout", "5000", Integer.toString(model), "100", a, b);
        assertEquals(0, theirs.awaitExit(), () -> theirs.lines().toString());
        theirs.awaitLine("ok 100");
    }

    /**
     * An in-process client of the model; its blocking request. Each timeout is waited out in full
     * whenever a server is dead (model 1: each request after a kill, first to the dead server;
     * every model: the last request, to no server), so they are no longer than a warm server's
     * answer needs on a busy machine, many times over: model 1's 1000 ms per server (the guide's;
     * 500 ms failed in a CI run on an idle machine, the first requests of two servers started side
     * by side answered by neither in time), models 2 and 3's 2500 ms (model 2's default; four
     * times model 3's time to live, so a request sent to a server that died still reaches the
     * other in time). A restarted server,
     * a cold JVM, is awaited on its own before it must answer within them (awaitServing).
     */
    Function<ZmtpMessage, ZmtpMessage> client(int model, List<String> eps, List<FreelanceEvent> events) {
        Function<ZmtpMessage, ZmtpMessage> request;
        switch (model) {
            case 1 -> {
                FailoverClient c = new FailoverClient(ctx, FailoverClient.Settings.builder().endpoints(eps)
                        .timeout(Duration.ofMillis(1000)).socketOptions(FAST_RECONNECT).build(), events::add);
                client = c;
                request = c::request;
            }
            case 2 -> {
                BruteForceClient c = new BruteForceClient(ctx, BruteForceClient.Settings.builder().endpoints(eps)
                        .globalTimeout(Duration.ofMillis(2500)).socketOptions(FAST_RECONNECT).build(), events::add);
                client = c;
                request = c::request;
            }
            default -> {
                FreelanceClient c = new FreelanceClient(ctx, FreelanceClient.Settings.builder().endpoints(eps)
                        .pingInterval(Duration.ofMillis(200)).serverTtl(Duration.ofMillis(600))
                        .globalTimeout(Duration.ofMillis(2500)).socketOptions(FAST_RECONNECT).build(), events::add);
                client = c;
                request = c::request;
            }
        }
        client.start().toCompletableFuture().join();
        return request;
    }

    static void load(Function<ZmtpMessage, ZmtpMessage> request, int model, int n) {
        for (int i = 0; i < n; i++) {
            ZmtpMessage reply = request.apply(ZmtpMessage.ofStrings("r" + i));
            try {
                assertEquals(model == 1 ? "r" + i : "OK", reply.frameString(0));
            } finally {
                reply.release();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void serverProcessesKilledAndRestartedUnderLoad(int model) throws Exception {
        List<String> eps = List.of(freeEndpoint(), freeEndpoint());
        List<PeerScript> servers = ourServers(model, eps);
        PeerScript a = servers.get(0);
        PeerScript b = servers.get(1);
        List<FreelanceEvent> events = new CopyOnWriteArrayList<>();
        Function<ZmtpMessage, ZmtpMessage> request = client(model, eps, events);
        if (model == 3) {
            awaitEvent(events, "both servers alive", () -> events.stream()
                    .filter(e -> e instanceof FreelanceEvent.ServerAlive).count() >= 2);
        } else {
            // both JVMs started side by side and are cold: their first answers, not the client's
            // timeouts, wait for them (a CI run saw both miss 500 ms)
            for (String endpoint : eps) {
                probe(model, endpoint, Duration.ofSeconds(30));
            }
        }
        load(request, model, 20);
        a.kill(); // kill -9
        load(request, model, 10);
        a = ourServer(model, eps.get(0));
        awaitServing(model, eps.get(0), request, events);
        b.kill();
        load(request, model, 10);
        a.kill();
        long start = System.nanoTime();
        ExecutionException e = assertThrows(ExecutionException.class, () -> CompletableFuture.supplyAsync(
                () -> request.apply(ZmtpMessage.ofStrings("nobody"))).get(10, TimeUnit.SECONDS));
        assertInstanceOf(NoReplyException.class, e.getCause());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(9), "a clear failure in bounded time");
    }

    /**
     * Waits until the restarted server at {@code endpoint}, a cold JVM, serves this client: it
     * has bound its endpoint, but its first handshakes may take seconds on a busy machine, and
     * the test must not kill the other server before then. Model 1: a request of this client
     * answered by it (the client asks it first); model 2: an answer to a probe of our own (this
     * client does not say which server answered); model 3: this client's pings answered twice.
     */
    void awaitServing(int model, String endpoint, Function<ZmtpMessage, ZmtpMessage> request,
            List<FreelanceEvent> events) {
        Duration deadline = Duration.ofSeconds(30); // a JVM's start and first handshakes under load
        switch (model) {
            case 1 -> {
                long before = repliesFrom(events, endpoint);
                io.zmtp.testing.Await.until(deadline, () -> "a reply from " + endpoint + " (events: " + events + ")",
                        () -> {
                            load(request, model, 1); // the other server answers until this one does
                            return repliesFrom(events, endpoint) > before;
                        });
            }
            case 2 -> probe(model, endpoint, deadline);
            default -> awaitEvent(events, "the restarted server alive", () -> events.stream()
                    .filter(e -> e instanceof FreelanceEvent.ServerAlive s && s.server().equals(endpoint))
                    .count() >= 2);
        }
    }

    /**
     * A request of our own to the server at {@code endpoint}, answered within {@code deadline}:
     * model 1's servers echo it, model 2's answer its sequence number and OK.
     */
    void probe(int model, String endpoint, Duration deadline) {
        try (BlockingSocket probe = ctx.blocking(SocketType.REQ, FAST_RECONNECT)) {
            probe.connect(endpoint);
            List<String> request = model == 1 ? List.of("probe") : List.of("1", "probe");
            probe.send(io.zmtp.wire.Frames.ofStrings(request.toArray(String[]::new)));
            io.zmtp.wire.Frames reply = probe.receiveFrames(deadline);
            assertEquals(model == 1 ? request : List.of("1", "OK"), reply == null ? null : reply.toStrings(),
                    "the answer of " + endpoint + " to a probe");
        }
    }

    static long repliesFrom(List<FreelanceEvent> events, String endpoint) {
        return events.stream().filter(e -> e instanceof FreelanceEvent.Replied r && r.server().equals(endpoint)).count();
    }

    /** {@code flclient -n 0} sends until it is stopped, as every client command does. */
    @Test
    void flclientWithMinusNZeroSendsUntilStopped() throws Exception {
        String ep = freeEndpoint();
        ourServer(3, ep);
        PeerScript client = zmtp("flclient", "--model", "3", "-n", "0", "-v", ep);
        client.awaitCount("I: request ", 50, 30_000);
        client.signal("TERM");
        assertEquals(143, client.awaitExit(), "stopped by SIGTERM");
    }

    /** Model 3: a frozen server process (SIGSTOP) is dead after its time to live; thawed, it is used again. */
    @Test
    void aFrozenServerProcessIsTreatedAsDead() throws Exception {
        List<String> eps = List.of(freeEndpoint(), freeEndpoint());
        PeerScript a = ourServers(3, eps).get(0);
        List<FreelanceEvent> events = new CopyOnWriteArrayList<>();
        Function<ZmtpMessage, ZmtpMessage> request = client(3, eps, events);
        awaitEvent(events, "both alive", () -> events.stream()
                .filter(e -> e instanceof FreelanceEvent.ServerAlive).count() >= 2);
        load(request, 3, 10);
        a.signal("STOP");
        try {
            load(request, 3, 20); // a request sent to the frozen server goes to the other after 600 ms
            awaitEvent(events, "the frozen server dead", () -> events.stream()
                    .anyMatch(e -> e instanceof FreelanceEvent.ServerDead d && d.server().equals(eps.get(0))));
            assertTrue(events.stream().noneMatch(e -> e instanceof FreelanceEvent.Failed), events.toString());
        } finally {
            a.signal("CONT");
        }
        awaitEvent(events, "the thawed server alive again", () -> events.stream()
                .filter(e -> e instanceof FreelanceEvent.ServerAlive s && s.server().equals(eps.get(0))).count() >= 2);
        load(request, 3, 10);
    }

    static void awaitEvent(List<FreelanceEvent> events, String what, java.util.function.BooleanSupplier ok) {
        io.zmtp.testing.Await.until(Duration.ofSeconds(10), () -> what + " (events: " + events + ")", ok);
    }
}
