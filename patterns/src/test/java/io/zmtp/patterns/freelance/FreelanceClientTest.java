package io.zmtp.patterns.freelance;

import io.zmtp.patterns.kit.Futures;
import io.zmtp.testing.Recorder;
import io.zmtp.patterns.kit.NoReplyException;
import io.zmtp.patterns.kit.ManualClock;
import io.zmtp.patterns.kit.PatternClock;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.zmtp.patterns.PatternTesting.eventually;
import static io.zmtp.patterns.PatternTesting.get;
import static io.zmtp.patterns.PatternTesting.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Freelance model 3: the agent, its pings, server time to live and global timeout. */
class FreelanceClientTest extends FreelanceFixture {

    FreelanceClient client(List<String> endpoints, FreelanceClient.Settings.Builder b, Recorder<FreelanceEvent> events) {
        FreelanceClient c = closing(new FreelanceClient(ctx, b.endpoints(endpoints).socketOptions(FAST_RECONNECT)
                .build(), events));
        get(c.start().toCompletableFuture());
        return c;
    }

    static boolean alive(FreelanceEvent e, String server) {
        return e instanceof FreelanceEvent.ServerAlive a && a.server().equals(server);
    }

    static boolean dead(FreelanceEvent e, String server) {
        return e instanceof FreelanceEvent.ServerDead d && d.server().equals(server);
    }

    static boolean repliedBy(FreelanceEvent e, long request, String server) {
        return e instanceof FreelanceEvent.Replied r && r.request() == request && r.server().equals(server);
    }

    /** A model 3 server made by hand: PONGs while not frozen, never answers requests. */
    String freezableServer(AtomicBoolean frozen, AtomicInteger requests) throws Exception {
        String ep = freeEndpoint();
        ZmtpSocket s = closing(ctx.socket(SocketType.ROUTER, SocketOptions.builder().identity(ep).build()));
        s.onMessage(m -> {
            if (!frozen.get() && m.size() == 2 && m.frameString(1).equals("PING")) {
                s.send(ZmtpMessage.of(m.frame(0).retainedSlice()).add("PONG"));
            } else if (m.size() > 2) {
                requests.incrementAndGet();
            }
            m.release();
        });
        get(Futures.of(s.bind(ep)));
        return ep;
    }

    @Test
    void defaultsThatLetARequestOutliveAFrozenServer() {
        FreelanceClient.Settings s = FreelanceClient.Settings.builder().build();
        assertEquals(Duration.ofMillis(1000), s.pingInterval());
        assertEquals(Duration.ofMillis(3000), s.serverTtl());
        assertEquals(Duration.ofMillis(5000), s.globalTimeout());
        assertTrue(s.serverTtl().plus(s.pingInterval()).compareTo(s.globalTimeout()) < 0,
                "a request outlives the time to live of the server it went to");
        assertThrows(IllegalArgumentException.class, () -> FreelanceClient.Settings.builder()
                .pingInterval(Duration.ofSeconds(2)).serverTtl(Duration.ofSeconds(1)).build());
        assertThrows(IllegalArgumentException.class, () -> FreelanceServer.Settings.builder()
                .endpoint("tcp://127.0.0.1:0").build(), "a model 3 server needs its port to be known");
        assertEquals("tcp://localhost:5555", FreelanceServer.Settings.builder().build().identity());
    }

    @Test
    void aRequestGoesToTheFirstLiveServerAndOverToTheNextWhenItDies() throws Exception {
        String epA = freeEndpoint();
        String epB = freeEndpoint();
        FreelanceServer a = server(3, epA);
        server(3, epB);
        Recorder<FreelanceEvent> events = new Recorder<>();
        FreelanceClient client = client(List.of(epA), FreelanceClient.Settings.builder(), events);
        events.await("A alive", e -> alive(e, epA));
        get(client.connect(epB).toCompletableFuture()); // at any time
        events.await("B alive", e -> alive(e, epB));
        assertEquals(List.of(epA, epB), get(client.liveServers()));

        assertEquals(List.of("OK"), strings(client.request(ZmtpMessage.ofStrings("one"))));
        events.await("request 1 answered by A", e -> repliedBy(e, 1, epA));

        a.close(); // killed: its connection closes
        events.await("A dead", e -> dead(e, epA));
        assertEquals(List.of("OK"), strings(client.request(ZmtpMessage.ofStrings("two"))));
        events.await("request 2 answered by B", e -> repliedBy(e, 2, epB));

        server(3, epA); // back on its port
        events.awaitCount("A alive again", e -> alive(e, epA), 2);
        assertEquals(List.of(epB, epA), get(client.liveServers()), "live in the order they came alive");
    }

    /**
     * With the default settings, a request sent to a server that froze is answered by another
     * before the request's timeout: the frozen server is dead after its time to live (3 s) and the
     * request goes to the live one, within the 5 s timeout. With the guide's settings (6 s to
     * live, 3 s timeout) it failed.
     */
    @Test
    void withTheDefaultsARequestToAFrozenServerIsAnsweredByAnother() throws Exception {
        AtomicBoolean frozen = new AtomicBoolean();
        AtomicInteger swallowed = new AtomicInteger();
        String frozenEp = freezableServer(frozen, swallowed);
        String liveEp = freeEndpoint();
        Recorder<FreelanceEvent> served = new Recorder<>();
        server(3, liveEp, served);
        ManualClock clock = new ManualClock();
        Recorder<FreelanceEvent> events = new Recorder<>();
        FreelanceClient client = client(List.of(frozenEp), FreelanceClient.Settings.builder().clock(clock), events);
        events.await("the freezable server alive", e -> alive(e, frozenEp));
        client.connect(liveEp);
        events.await("the live server alive", e -> alive(e, liveEp));

        frozen.set(true);
        CompletableFuture<ZmtpMessage> f = client.requestAsync(ZmtpMessage.ofStrings("work"));
        eventually("the frozen server got the request", () -> swallowed.get() == 1);
        Duration interval = FreelanceClient.Settings.builder().build().pingInterval();
        for (int i = 1; i <= 3 && !f.isDone(); i++) {
            clock.advance(interval); // pings: the live server answers, the frozen one does not
            int pings = i;
            eventually("the live server answered ping " + i + " or the request",
                    () -> f.isDone() || served.count(e -> e instanceof FreelanceEvent.Answered) >= pings + 1);
        }
        events.await("the frozen server dead", e -> dead(e, frozenEp));
        assertEquals(List.of("OK"), strings(get(f)), "answered within the timeout, by the live server");
        events.await("answered by the live server", e -> repliedBy(e, 1, liveEp));
        assertEquals(0, events.count(e -> e instanceof FreelanceEvent.Failed));
    }

    /** A frozen server (SIGSTOP: connection open, nothing said) is dead after its time to live. */
    @Test
    void aFrozenServerIsDeadAfterTheServerTimeToLiveAndItsRequestGoesElsewhere() throws Exception {
        AtomicBoolean frozen = new AtomicBoolean();
        AtomicInteger swallowed = new AtomicInteger();
        String frozenEp = freezableServer(frozen, swallowed);
        String liveEp = freeEndpoint();
        Recorder<FreelanceEvent> served = new Recorder<>();
        server(3, liveEp, served);
        ManualClock clock = new ManualClock();
        Recorder<FreelanceEvent> events = new Recorder<>();
        FreelanceClient client = client(List.of(frozenEp), FreelanceClient.Settings.builder().clock(clock)
                .pingInterval(Duration.ofMillis(1000)).serverTtl(Duration.ofMillis(6000))
                .globalTimeout(Duration.ofSeconds(60)), events);
        events.await("the freezable server alive", e -> alive(e, frozenEp));
        client.connect(liveEp);
        events.await("the live server alive", e -> alive(e, liveEp));

        frozen.set(true);
        CompletableFuture<ZmtpMessage> f = client.requestAsync(ZmtpMessage.ofStrings("work"));
        eventually("the frozen server got the request", () -> swallowed.get() == 1);
        for (int i = 1; i <= 5; i++) {
            clock.advance(Duration.ofMillis(1000));
            int pings = i;
            eventually("the live server answered ping " + i,
                    () -> served.count(e -> e instanceof FreelanceEvent.Answered) >= pings + 1);
        }
        clock.advance(Duration.ofMillis(999));
        assertFalse(f.isDone());
        assertEquals(0, events.count(e -> dead(e, frozenEp)), "alive until its time to live runs out");
        clock.advance(Duration.ofMillis(1));
        events.await("the frozen server dead", e -> dead(e, frozenEp));
        assertEquals(List.of("OK"), strings(get(f)));
        events.await("answered by the live server", e -> repliedBy(e, 1, liveEp));
        assertEquals(List.of(liveEp), get(client.liveServers()));

        frozen.set(false); // thawed: it answers the next PING and is used again
        clock.advance(Duration.ofMillis(1000));
        events.awaitCount("the thawed server alive again", e -> alive(e, frozenEp), 2);
    }

    @Test
    void requestsFailAfterTheGlobalTimeoutWhenNoServerIsKnownOrAlive() throws Exception {
        ManualClock clock = new ManualClock();
        Recorder<FreelanceEvent> events = new Recorder<>();
        FreelanceClient client = client(List.of(), FreelanceClient.Settings.builder().clock(clock), events);
        CompletableFuture<ZmtpMessage> none = client.requestAsync(ZmtpMessage.ofStrings("anyone?"));
        CompletableFuture<ZmtpMessage> shortOne = client.requestAsync(ZmtpMessage.ofStrings("quick"),
                Duration.ofMillis(500));
        eventually("both timers set", () -> clock.pendingTimers() >= 3); // the ticker's and two timeouts
        clock.advance(Duration.ofMillis(500));
        assertTrue(assertInstanceOf(NoReplyException.class, failure(shortOne)).getMessage()
                .contains("no server known"));
        Duration timeout = FreelanceClient.Settings.builder().build().globalTimeout();
        clock.advance(timeout.minusMillis(501));
        assertFalse(none.isDone(), "the default timeout, " + timeout.toMillis() + " ms");
        clock.advance(Duration.ofMillis(1));
        assertInstanceOf(NoReplyException.class, failure(none));

        get(client.connect(freeEndpoint()).toCompletableFuture()); // nobody listens there
        CompletableFuture<ZmtpMessage> unknown = client.requestAsync(ZmtpMessage.ofStrings("x"));
        eventually("its timer set", () -> clock.pendingTimers() >= 2);
        clock.advance(timeout);
        assertTrue(assertInstanceOf(NoReplyException.class, failure(unknown)).getMessage()
                .contains("no server alive"));
        assertEquals(3, events.count(e -> e instanceof FreelanceEvent.Failed));
    }

    /** The agent holds at most maxPending requests; the next is refused at once, the others unharmed. */
    @Test
    void requestsPastMaxPendingAreRefused() throws Exception {
        ManualClock clock = new ManualClock();
        FreelanceClient client = client(List.of(freeEndpoint()), FreelanceClient.Settings.builder().clock(clock)
                .maxPending(2), null);
        CompletableFuture<ZmtpMessage> one = client.requestAsync(ZmtpMessage.ofStrings("1"));
        CompletableFuture<ZmtpMessage> two = client.requestAsync(ZmtpMessage.ofStrings("2"));
        CompletableFuture<ZmtpMessage> three = client.requestAsync(ZmtpMessage.ofStrings("3"));
        assertInstanceOf(java.util.concurrent.RejectedExecutionException.class, failure(three));
        assertFalse(one.isDone() || two.isDone());
        Duration timeout = FreelanceClient.Settings.builder().build().globalTimeout();
        clock.advance(timeout);
        assertInstanceOf(NoReplyException.class, failure(one));
        assertInstanceOf(NoReplyException.class, failure(two));
        CompletableFuture<ZmtpMessage> four = client.requestAsync(ZmtpMessage.ofStrings("4"));
        eventually("request 4 taken (its timer set)", () -> clock.pendingTimers() >= 2 || four.isDone());
        assertFalse(four.isDone(), "room again: request 4 waits for a server");
        clock.advance(timeout);
        assertInstanceOf(NoReplyException.class, failure(four));
    }

    /** Real time: servers killed and restarted under the load of several clients. */
    @Test
    void keepsSucceedingWhileOneServerLivesAndFailsInBoundedTimeWhenNoneDoes() throws Exception {
        List<String> eps = List.of(freeEndpoint(), freeEndpoint(), freeEndpoint());
        List<FreelanceServer> servers = new ArrayList<>();
        for (String ep : eps) {
            servers.add(server(3, ep));
        }
        FreelanceClient.Settings.Builder b = FreelanceClient.Settings.builder().pingInterval(Duration.ofMillis(100))
                .serverTtl(Duration.ofMillis(300)).globalTimeout(Duration.ofMillis(2000));
        List<FreelanceClient> clients = new ArrayList<>();
        List<Recorder<FreelanceEvent>> recorders = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Recorder<FreelanceEvent> r = new Recorder<>();
            recorders.add(r);
            clients.add(client(eps, b, r));
        }
        for (Recorder<FreelanceEvent> r : recorders) {
            for (String ep : eps) {
                r.await("alive: " + ep, e -> alive(e, ep));
            }
        }
        for (int round = 0; round < 3; round++) {
            for (int killed = 0; killed < eps.size(); killed++) {
                servers.get(killed).close();
                load(clients, 10);
                servers.set(killed, restart(eps.get(killed), recorders));
            }
        }
        // Only the last server left (restarted last, alive again for every client): still served.
        servers.get(0).close();
        servers.get(1).close();
        load(clients, 10);
        servers.get(2).close();
        long start = System.nanoTime();
        List<CompletableFuture<ZmtpMessage>> fs = new ArrayList<>();
        for (FreelanceClient c : clients) {
            fs.add(c.requestAsync(ZmtpMessage.ofStrings("nobody")));
        }
        for (CompletableFuture<ZmtpMessage> f : fs) {
            assertInstanceOf(NoReplyException.class, failure(f));
        }
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(6).toNanos(), "failed after the global timeout");
    }

    /**
     * Restarts the server of {@code endpoint} (killed before) and waits until every client has
     * heard it alive again: a restarted server serves once it is bound, connected to, and has
     * answered a PING, and the test kills another server only then.
     */
    private FreelanceServer restart(String endpoint, List<Recorder<FreelanceEvent>> recorders) {
        List<Long> before = new ArrayList<>();
        for (Recorder<FreelanceEvent> r : recorders) {
            before.add(r.count(e -> alive(e, endpoint)));
        }
        FreelanceServer s = server(3, endpoint);
        for (int i = 0; i < recorders.size(); i++) {
            recorders.get(i).awaitCount("client " + i + " hears the restarted " + endpoint + " alive",
                    e -> alive(e, endpoint), Math.toIntExact(before.get(i) + 1));
        }
        return s;
    }

    private static void load(List<FreelanceClient> clients, int perClient) {
        List<CompletableFuture<ZmtpMessage>> fs = new ArrayList<>();
        for (int i = 0; i < perClient; i++) {
            for (FreelanceClient c : clients) {
                fs.add(c.requestAsync(ZmtpMessage.ofStrings("r" + i)));
            }
        }
        for (CompletableFuture<ZmtpMessage> f : fs) {
            assertEquals(List.of("OK"), strings(get(f)));
        }
    }
}
