package io.zmtp.patterns.binarystar;

import io.zmtp.testing.Recorder;
import io.zmtp.patterns.kit.NoReplyException;
import io.zmtp.patterns.kit.RequestEvent;
import io.zmtp.patterns.kit.ManualClock;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.zmtp.patterns.PatternTesting.get;
import static io.zmtp.patterns.PatternTesting.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The Binary Star client: timeout, settle delay, the other server, and failover under steady
 * load between two real servers, there and back (servers on real time with short heartbeats);
 * the client's timeouts always on a manual clock.
 */
class BinaryStarClientTest {
    static final SocketOptions FAST_RECONNECT = SocketOptions.builder()
            .reconnectInterval(Duration.ofMillis(10)).reconnectIntervalMax(Duration.ofMillis(50)).build();
    static int seq;

    ZmtpContext ctx;
    String name;

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
        name = "bstarcli-" + (++seq) + "-";
    }

    @AfterEach
    void stop() {
        ctx.close(Duration.ofSeconds(5));
    }

    ZmtpSocket echo(String endpoint) {
        ZmtpSocket rep = ctx.socket(SocketType.REP, SocketOptions.builder().linger(Duration.ZERO).build());
        rep.onMessage(rep::send);
        get(io.zmtp.patterns.kit.Futures.of(rep.bind(endpoint)));
        return rep;
    }

    @Test
    void aTimeoutFailsOverToTheOtherServerAfterTheSettleDelay() {
        ManualClock clock = new ManualClock();
        String dead = "inproc://" + name + "nobody";
        String backup = "inproc://" + name + "backup";
        ZmtpSocket server = echo(backup);
        Recorder<RequestEvent> events = new Recorder<>();
        try (BinaryStarClient client = new BinaryStarClient(ctx, BinaryStarClient.Settings.builder().primary(dead)
                .backup(backup).clock(clock).build(), events)) {
            get(client.start().toCompletableFuture());
            CompletableFuture<ZmtpMessage> f = client.requestAsync(ZmtpMessage.ofStrings("1"));
            events.await("sent", e -> e instanceof RequestEvent.Sent);
            clock.advance(Duration.ofMillis(999));
            assertEquals(0, events.count(e -> e instanceof RequestEvent.FailingOver));
            clock.advance(Duration.ofMillis(1));
            RequestEvent.FailingOver fo = (RequestEvent.FailingOver) events.await("failing over",
                    e -> e instanceof RequestEvent.FailingOver);
            assertEquals(backup, fo.endpoint());
            assertEquals(Duration.ofMillis(2000), fo.settle());
            clock.advance(Duration.ofMillis(1999));
            assertEquals(1, events.count(e -> e instanceof RequestEvent.Sent), "nothing sent during the settle delay");
            clock.advance(Duration.ofMillis(1));
            assertEquals(List.of("1"), strings(get(f)));
            BinaryStarClient.Stats s = client.stats();
            assertEquals(1, s.replies());
            assertEquals(1, s.timeouts());
            assertEquals(1, s.failedOver());
            assertEquals(Duration.ofMillis(3000), s.longestFailover());
            // the server that answered stays the current one
            assertEquals(List.of("2"), strings(get(client.requestAsync(ZmtpMessage.ofStrings("2")))));
            assertEquals(1, client.stats().timeouts());
        }
        server.close(Duration.ZERO);
    }

    @Test
    void aRequestFailsAfterItsTries() throws Exception {
        ManualClock clock = new ManualClock();
        Recorder<RequestEvent> events = new Recorder<>();
        try (BinaryStarClient client = new BinaryStarClient(ctx, BinaryStarClient.Settings.builder()
                .primary("inproc://" + name + "a").backup("inproc://" + name + "b").retries(3)
                .timeout(Duration.ofMillis(100)).settle(Duration.ofMillis(50)).clock(clock).build(), events)) {
            get(client.start().toCompletableFuture());
            CompletableFuture<ZmtpMessage> f = client.requestAsync(ZmtpMessage.ofStrings("x"));
            for (int sent = 1; sent <= 3; sent++) {
                int n = sent;
                events.awaitCount("sent " + n, e -> e instanceof RequestEvent.Sent, n);
                clock.advance(Duration.ofMillis(100));
                if (n < 3) {
                    events.awaitCount("failing over " + n, e -> e instanceof RequestEvent.FailingOver, n);
                    clock.advance(Duration.ofMillis(50));
                }
            }
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
            assertInstanceOf(NoReplyException.class, e.getCause());
            assertEquals(3, client.stats().timeouts());
        }
    }

    /**
     * Failover under steady load between two real servers, there and back. The servers run on
     * real time with short heartbeats; the client's tries time out only when the test moves its
     * clock, and it does so only for the one request sent to a killed server, once the survivor
     * has counted its peer gone: that request fails over once and is served by the survivor, the
     * others are answered on their first try, however slow the machine.
     */
    @Test
    void failsOverUnderSteadyLoadAndBack() throws Exception {
        Duration hb = Duration.ofMillis(100);
        String p = "inproc://" + name + "p-state";
        String b = "inproc://" + name + "b-state";
        BinaryStarServer primary = new BinaryStarServer(ctx, BinaryStarServer.Settings.primary()
                .frontend("tcp://127.0.0.1:0").statePublisher(p).statePeer(b).stateHeartbeat(hb).build(), null);
        Recorder<BinaryStarEvent> backupEvents = new Recorder<>();
        BinaryStarServer backup = new BinaryStarServer(ctx, BinaryStarServer.Settings.backup()
                .frontend("tcp://127.0.0.1:0").statePublisher(b).statePeer(p).stateHeartbeat(hb).build(), backupEvents);
        get(primary.start().toCompletableFuture());
        get(backup.start().toCompletableFuture());
        io.zmtp.patterns.PatternTesting.eventually("pair up", () -> primary.state() == BinaryStarState.ACTIVE
                && backup.state() == BinaryStarState.PASSIVE);
        String primaryFe = primary.frontendEndpoint();
        String backupFe = backup.frontendEndpoint();
        ManualClock clock = new ManualClock();
        Duration timeout = Duration.ofMillis(500);
        Duration settle = Duration.ofMillis(300);
        Recorder<RequestEvent> events = new Recorder<>();
        try (BinaryStarClient client = new BinaryStarClient(ctx, BinaryStarClient.Settings.builder()
                .primary(primaryFe).backup(backupFe).timeout(timeout).settle(settle).clock(clock)
                .socketOptions(FAST_RECONNECT).build(), events)) {
            get(client.start().toCompletableFuture());
            int n = 0;
            for (; n < 20; n++) {
                assertEquals(List.of(Integer.toString(n)), client.request(Integer.toString(n)));
            }
            long lost = backupEvents.count(e -> e instanceof BinaryStarEvent.PeerLost);
            primary.close();
            backupEvents.awaitCount("the backup counts the primary gone", e -> e instanceof BinaryStarEvent.PeerLost,
                    Math.toIntExact(lost + 1));
            assertEquals(List.of(Integer.toString(n)), failOver(client, events, clock, timeout, settle, n));
            for (n++; n < 40; n++) {
                assertEquals(List.of(Integer.toString(n)), client.request(Integer.toString(n)));
            }
            assertEquals(BinaryStarState.ACTIVE, backup.state());
            assertEquals(new BinaryStarClient.Stats(40, 1, 1, timeout.plus(settle)), client.stats(),
                    events.all().toString());

            // the old primary restarted comes back passive; killing the backup fails over back
            Recorder<BinaryStarEvent> restartedEvents = new Recorder<>();
            BinaryStarServer restarted = new BinaryStarServer(ctx, BinaryStarServer.Settings.primary()
                    .frontend(primaryFe).statePublisher(p).statePeer(b).stateHeartbeat(hb).build(), restartedEvents);
            get(restarted.start().toCompletableFuture());
            io.zmtp.patterns.PatternTesting.eventually("restarted primary passive",
                    () -> restarted.state() == BinaryStarState.PASSIVE);
            lost = restartedEvents.count(e -> e instanceof BinaryStarEvent.PeerLost);
            backup.close();
            restartedEvents.awaitCount("the restarted primary counts the backup gone",
                    e -> e instanceof BinaryStarEvent.PeerLost, Math.toIntExact(lost + 1));
            assertEquals(List.of(Integer.toString(n)), failOver(client, events, clock, timeout, settle, n));
            for (n++; n < 60; n++) {
                assertEquals(List.of(Integer.toString(n)), client.request(Integer.toString(n)));
            }
            assertEquals(BinaryStarState.ACTIVE, restarted.state());
            assertEquals(new BinaryStarClient.Stats(60, 2, 2, timeout.plus(settle)), client.stats(),
                    events.all().toString());
            restarted.close();
        }
    }

    /**
     * Request {@code n} (the client's n-th, from 0) to a killed server: the test runs its try's
     * timeout out, then the settle delay, and the other server answers it.
     */
    static List<String> failOver(BinaryStarClient client, Recorder<RequestEvent> events, ManualClock clock,
            Duration timeout, Duration settle, int n) {
        long request = n + 1;
        CompletableFuture<ZmtpMessage> f = client.requestAsync(ZmtpMessage.ofStrings(Integer.toString(n)));
        events.await("request " + request + " sent (its timer set)",
                e -> e instanceof RequestEvent.Sent s && s.request() == request);
        clock.advance(timeout);
        events.await("request " + request + " failing over",
                e -> e instanceof RequestEvent.FailingOver fo && fo.request() == request);
        clock.advance(settle);
        return strings(get(f));
    }
}
