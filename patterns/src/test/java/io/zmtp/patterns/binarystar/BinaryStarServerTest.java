package io.zmtp.patterns.binarystar;

import io.zmtp.testing.Recorder;
import io.zmtp.patterns.binarystar.BinaryStarEvent.StateChanged;
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
import java.util.concurrent.atomic.AtomicInteger;

import static io.zmtp.patterns.PatternTesting.eventually;
import static io.zmtp.patterns.PatternTesting.get;
import static io.zmtp.patterns.PatternTesting.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Binary Star reactor on the manual clock: the pair's state exchange, gating of client
 * requests, takeover only on a lost peer plus a client request, the restarted primary coming back
 * passive, and fatal pairs. The state channel and frontends are inproc (sockets stay on real time).
 */
class BinaryStarServerTest {
    static final Duration HB = Duration.ofSeconds(1);
    static int seq;

    ZmtpContext ctx;
    final ManualClock clock = new ManualClock();
    String name;

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
        name = "bstar-" + (++seq) + "-";
    }

    @AfterEach
    void stop() {
        ctx.close(Duration.ofSeconds(5));
    }

    BinaryStarServer server(boolean primary, Recorder<BinaryStarEvent> events) {
        String p = "inproc://" + name + "primary-";
        String b = "inproc://" + name + "backup-";
        BinaryStarServer.Settings.Builder s = primary
                ? BinaryStarServer.Settings.primary().frontend(p + "fe").statePublisher(p + "state").statePeer(b + "state")
                : BinaryStarServer.Settings.backup().frontend(b + "fe").statePublisher(b + "state").statePeer(p + "state");
        BinaryStarServer server = new BinaryStarServer(ctx, s.stateHeartbeat(HB).clock(clock).build(), events);
        return server;
    }

    /** Heartbeats until {@code condition} holds (the state channel's subscriptions settle on real time). */
    void beatUntil(String what, java.util.function.BooleanSupplier condition) {
        eventually(what, () -> {
            if (condition.getAsBoolean()) {
                return true;
            }
            clock.advance(HB);
            return condition.getAsBoolean();
        });
    }

    /** Sends one request to {@code frontend} on a fresh REQ; the future has the reply's frames. */
    CompletableFuture<List<String>> request(String frontend, String body) {
        ZmtpSocket req = ctx.socket(SocketType.REQ, SocketOptions.builder().linger(Duration.ZERO).build());
        CompletableFuture<List<String>> reply = new CompletableFuture<>();
        req.onMessage(m -> reply.complete(strings(m)));
        req.connect(frontend);
        req.send(ZmtpMessage.ofStrings(body));
        reply.whenComplete((r, e) -> req.close(Duration.ZERO));
        return reply;
    }

    @Test
    void thePairComesUpPrimaryActiveAndBackupPassiveAndOnlyTheActiveServes() {
        Recorder<BinaryStarEvent> pe = new Recorder<>();
        Recorder<BinaryStarEvent> be = new Recorder<>();
        AtomicInteger primaryActive = new AtomicInteger();
        AtomicInteger backupPassive = new AtomicInteger();
        BinaryStarServer primary = server(true, pe).onActive(primaryActive::incrementAndGet);
        BinaryStarServer backup = server(false, be).onPassive(backupPassive::incrementAndGet);
        get(primary.start().toCompletableFuture());
        get(backup.start().toCompletableFuture());
        assertEquals(BinaryStarState.PRIMARY, primary.state());
        assertEquals(BinaryStarState.BACKUP, backup.state());
        beatUntil("primary active, backup passive", () -> primary.state() == BinaryStarState.ACTIVE
                && backup.state() == BinaryStarState.PASSIVE);
        assertEquals(1, primaryActive.get());
        assertEquals(1, backupPassive.get());
        assertEquals("connected to backup (passive), ready as active",
                ((StateChanged) pe.await("primary active", e -> e instanceof StateChanged)).reason());

        assertEquals(List.of("hello"), get(request(primary.frontendEndpoint(), "hello")));
        // the passive backup has heard its peer within the expiry: the request is dropped
        CompletableFuture<List<String>> refused = request(backup.frontendEndpoint(), "to backup");
        be.await("refused", e -> e instanceof BinaryStarEvent.RequestRefused);
        assertFalse(refused.isDone());
        assertEquals(BinaryStarState.PASSIVE, backup.state());
        refused.cancel(false);
        primary.close();
        backup.close();
    }

    @Test
    void aBackupWithoutItsPrimaryRefusesClients() {
        Recorder<BinaryStarEvent> be = new Recorder<>();
        BinaryStarServer backup = server(false, be);
        get(backup.start().toCompletableFuture());
        CompletableFuture<List<String>> refused = request(backup.frontendEndpoint(), "x");
        BinaryStarEvent.RequestRefused r = (BinaryStarEvent.RequestRefused) be.await("refused",
                e -> e instanceof BinaryStarEvent.RequestRefused);
        assertEquals(BinaryStarState.BACKUP, r.state());
        assertFalse(refused.isDone());
        refused.cancel(false);
        backup.close();
    }

    @Test
    void thePassiveTakesOverOnlyWhenItsPeerIsGoneAndAClientAsksAndTheRestartedPrimaryComesBackPassive() {
        Recorder<BinaryStarEvent> pe = new Recorder<>();
        Recorder<BinaryStarEvent> be = new Recorder<>();
        AtomicInteger backupActive = new AtomicInteger();
        BinaryStarServer primary = server(true, pe);
        BinaryStarServer backup = server(false, be).onActive(backupActive::incrementAndGet);
        get(primary.start().toCompletableFuture());
        get(backup.start().toCompletableFuture());
        beatUntil("pair up", () -> primary.state() == BinaryStarState.ACTIVE
                && backup.state() == BinaryStarState.PASSIVE);

        primary.close(); // as a crash: the state stops
        beatUntil("backup lost its peer", () -> be.count(e -> e instanceof BinaryStarEvent.PeerLost) > 0);
        // losing the peer alone changes nothing (split-brain rule): still passive, for as long as no client asks
        clock.advance(HB.multipliedBy(5));
        assertEquals(BinaryStarState.PASSIVE, backup.state());
        assertEquals(0, backupActive.get());

        assertEquals(List.of("after failover"), get(request(backup.frontendEndpoint(), "after failover")));
        assertEquals(BinaryStarState.ACTIVE, backup.state());
        assertEquals(1, backupActive.get());
        assertEquals("failover successful, ready as active", ((StateChanged) be.await("takeover",
                e -> e instanceof StateChanged c && c.to() == BinaryStarState.ACTIVE)).reason());

        Recorder<BinaryStarEvent> re = new Recorder<>();
        AtomicInteger restartedPassive = new AtomicInteger();
        BinaryStarServer restarted = server(true, re).onPassive(restartedPassive::incrementAndGet);
        get(restarted.start().toCompletableFuture());
        beatUntil("restarted primary passive", () -> restarted.state() == BinaryStarState.PASSIVE);
        assertEquals(1, restartedPassive.get());
        assertEquals(BinaryStarState.ACTIVE, backup.state());
        assertEquals(List.of("still backup"), get(request(backup.frontendEndpoint(), "still backup")));
        restarted.close();
        backup.close();
    }

    @Test
    void twoPrimariesAreFatal() {
        Recorder<BinaryStarEvent> events = new Recorder<>();
        String ep = "inproc://" + name;
        BinaryStarServer a = new BinaryStarServer(ctx, BinaryStarServer.Settings.primary().frontend(ep + "a")
                .statePublisher(ep + "a-state").statePeer(ep + "b-state").clock(clock).build(), events);
        BinaryStarServer b = new BinaryStarServer(ctx, BinaryStarServer.Settings.primary().frontend(ep + "b")
                .statePublisher(ep + "b-state").statePeer(ep + "a-state").clock(clock).build(), events);
        get(a.start().toCompletableFuture());
        get(b.start().toCompletableFuture());
        beatUntil("fatal", () -> events.count(e -> e instanceof BinaryStarEvent.Fatal) > 0);
        BinaryStarEvent.Fatal f = (BinaryStarEvent.Fatal) events.await("fatal", e -> e instanceof BinaryStarEvent.Fatal);
        assertEquals(BinaryStarState.PRIMARY, f.peer());
        assertTrue(f.toString().contains("both servers are primary"), f.toString());
        eventually("a fatal server closes", () -> a.terminated().toCompletableFuture().isDone()
                || b.terminated().toCompletableFuture().isDone());
        a.close();
        b.close();
    }

    @Test
    void dualActivesAreFatal() {
        // a primary with a stand-in peer that publishes ACTIVE while the primary is active
        Recorder<BinaryStarEvent> events = new Recorder<>();
        String ep = "inproc://" + name;
        BinaryStarServer primary = new BinaryStarServer(ctx, BinaryStarServer.Settings.primary().frontend(ep + "fe")
                .statePublisher(ep + "p-state").statePeer(ep + "peer-state").clock(clock).build(), events);
        ZmtpSocket peer = ctx.socket(SocketType.PUB, SocketOptions.builder().linger(Duration.ZERO).build());
        get(io.zmtp.patterns.kit.Futures.of(peer.bind(ep + "peer-state")));
        get(primary.start().toCompletableFuture());
        eventually("primary active", () -> {
            peer.send("2");
            return primary.state() == BinaryStarState.ACTIVE;
        });
        peer.send("3");
        BinaryStarEvent.Fatal f = (BinaryStarEvent.Fatal) events.await("fatal", e -> e instanceof BinaryStarEvent.Fatal);
        assertTrue(f.toString().contains("dual actives"), f.toString());
        get(primary.terminated().toCompletableFuture());
        peer.close(Duration.ZERO);
    }

    @Test
    void invalidStateMessagesAreDroppedAndTheServerGoesOn() {
        Recorder<BinaryStarEvent> events = new Recorder<>();
        String ep = "inproc://" + name;
        BinaryStarServer primary = new BinaryStarServer(ctx, BinaryStarServer.Settings.primary().frontend(ep + "fe")
                .statePublisher(ep + "p-state").statePeer(ep + "peer-state").clock(clock).build(), events);
        ZmtpSocket peer = ctx.socket(SocketType.PUB, SocketOptions.builder().linger(Duration.ZERO).build());
        get(io.zmtp.patterns.kit.Futures.of(peer.bind(ep + "peer-state")));
        get(primary.start().toCompletableFuture());
        eventually("an invalid state reported", () -> {
            peer.send("7");
            return events.count(e -> e instanceof BinaryStarEvent.InvalidState) > 0;
        });
        peer.send("\u0001\nforged");
        peer.send("1", "2");
        BinaryStarEvent forged = events.await("the forged state", e -> e instanceof BinaryStarEvent.InvalidState
                && e.toString().contains("forged"));
        assertFalse(forged.toString().contains("\n") || forged.toString().contains("\u0001"), "escaped: " + forged);
        events.await("the two-frame state", e -> e instanceof BinaryStarEvent.InvalidState
                && e.toString().contains("2 frame(s)"));
        assertEquals(BinaryStarState.PRIMARY, primary.state());
        peer.send("2");
        eventually("primary active", () -> primary.state() == BinaryStarState.ACTIVE);
        assertFalse(primary.terminated().toCompletableFuture().isDone());
        primary.close();
        peer.close(Duration.ZERO);
    }
}
