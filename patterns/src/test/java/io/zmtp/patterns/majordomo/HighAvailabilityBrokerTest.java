package io.zmtp.patterns.majordomo;

import io.zmtp.testing.Recorder;
import io.zmtp.patterns.binarystar.BinaryStarEvent;
import io.zmtp.patterns.binarystar.BinaryStarState;
import io.zmtp.patterns.majordomo.MdpTesting.Events;
import io.zmtp.patterns.majordomo.MdpTesting.RawWorker;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
import io.zmtp.patterns.kit.ManualClock;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static io.zmtp.patterns.majordomo.MdpTesting.QUIET;
import static io.zmtp.patterns.majordomo.MdpTesting.T;
import static io.zmtp.patterns.majordomo.MdpTesting.eventually;
import static io.zmtp.patterns.majordomo.MdpTesting.started;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The highly available Majordomo broker on the manual clock: a pair over inproc state channels
 * (the MDP endpoints on tcp), hand-driven clients and workers. A passive broker serves no client
 * while its peer is alive; workers never make it active; a client request after the peer is lost
 * does (the vote), served by the workers already registered there as standby; standby workers
 * are sent on to a live peer after one peer expiry, not before.
 */
class HighAvailabilityBrokerTest {
    static final Duration HB = Duration.ofSeconds(1);
    static int seq;

    final ManualClock clock = new ManualClock();
    final List<AutoCloseable> opened = new ArrayList<>();
    ZmtpContext ctx;
    String name;
    final Recorder<BinaryStarEvent> primaryEvents = new Recorder<>();
    final Recorder<BinaryStarEvent> backupEvents = new Recorder<>();
    final Events backupBrokerEvents = new Events();
    HighAvailabilityBroker primary;
    HighAvailabilityBroker backup;

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
        name = "ha-" + (++seq) + "-";
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        ctx.close(Duration.ofSeconds(5));
    }

    HighAvailabilityBroker broker(boolean isPrimary) {
        String p = "inproc://" + name + "primary-state";
        String b = "inproc://" + name + "backup-state";
        HighAvailabilityBroker.Settings.Builder s = isPrimary
                ? HighAvailabilityBroker.Settings.primary().statePublisher(p).statePeer(b)
                : HighAvailabilityBroker.Settings.backup().statePublisher(b).statePeer(p);
        s.broker(MajordomoBrokerSettings.builder().endpoints("tcp://127.0.0.1:0").clock(clock).heartbeatInterval(HB)
                        .listener(isPrimary ? null : backupBrokerEvents).build())
                .stateHeartbeat(HB).pairListener(isPrimary ? primaryEvents : backupEvents);
        HighAvailabilityBroker broker = new HighAvailabilityBroker(ctx, s.build());
        opened.add(broker);
        return started(broker);
    }

    /** Heartbeats until {@code condition} holds (the state channel's subscriptions settle on real time). */
    void beatUntil(String what, BooleanSupplier condition) {
        eventually(what, () -> {
            if (condition.getAsBoolean()) {
                return true;
            }
            clock.advance(HB);
            return condition.getAsBoolean();
        });
    }

    void pairUp() {
        primary = broker(true);
        backup = broker(false);
        beatUntil("primary active, backup passive", () -> primary.state() == BinaryStarState.ACTIVE
                && backup.state() == BinaryStarState.PASSIVE);
    }

    /** A hand-driven MDP/0.2 client on a DEALER. */
    BlockingSocket client(String endpoint) {
        BlockingSocket s = ctx.blocking(SocketType.DEALER, SocketOptions.builder().linger(Duration.ZERO).build());
        s.connect(endpoint);
        opened.add(() -> s.close(Duration.ZERO));
        return s;
    }

    static void request(BlockingSocket client, String body) {
        client.send(MdpProtocol.clientRequest(MdpVersion.V0_2, true, "echo", Frames.of(body.getBytes())));
    }

    RawWorker worker(String endpoint) {
        RawWorker w = new RawWorker(ctx, endpoint, MdpVersion.V0_2).ready("echo");
        opened.add(w);
        return w;
    }

    @Test
    void aPassiveBrokerServesNoClientWhileItsPeerIsAliveAndWorkersNeverMakeItActive() {
        pairUp();
        RawWorker w = worker(backup.endpoint());
        eventually("a standby registration", () -> backup.broker().workerCount("echo") == 1);
        BlockingSocket c = client(backup.endpoint());
        request(c, "not now");
        backupEvents.await("the request refused", e -> e instanceof BinaryStarEvent.RequestRefused);
        for (int i = 0; i < 3; i++) {
            w.command(WorkerCommand.HEARTBEAT);
            clock.advance(Duration.ofMillis(500)); // less than a peer expiry since READY: it stays
        }
        ZmtpMessage reply = c.receive(QUIET);
        assertNull(reply, "a passive broker with a live peer answers no client");
        assertEquals(BinaryStarState.PASSIVE, backup.state(), "worker commands are no votes");
        assertNull(w.pollNonHeartbeat(QUIET), "the worker got no request");
    }

    @Test
    void aPassiveBrokerWhosePeerIsGoneBecomesActiveOnAClientRequestAndItsStandbyWorkersServe() {
        pairUp();
        primary.close(); // no worker there: to the backup this is a dead primary (no more states)
        beatUntil("the peer lost", () -> backupEvents.count(e -> e instanceof BinaryStarEvent.PeerLost) > 0);
        RawWorker w = worker(backup.endpoint());
        eventually("a standby registration", () -> backup.broker().workerCount("echo") == 1);
        w.command(WorkerCommand.HEARTBEAT);
        clock.advance(HB);
        assertEquals(BinaryStarState.PASSIVE, backup.state(), "READY and HEARTBEAT are no votes, even with the peer gone");
        BlockingSocket c = client(backup.endpoint());
        request(c, "failover");
        byte[] from = w.expectRequest("failover");
        w.reply(WorkerCommand.FINAL, from, "served");
        ZmtpMessage reply = c.receive(T);
        List<String> frames = MdpTesting.render(reply);
        assertEquals(List.of("MDPC02", "03", "echo", "served"), frames);
        assertEquals(BinaryStarState.ACTIVE, backup.state());
        assertEquals(1, backupEvents.count(e -> e instanceof BinaryStarEvent.StateChanged s
                && s.to() == BinaryStarState.ACTIVE), () -> backupEvents.all().toString());
    }

    @Test
    void standbyWorkersAreSentToTheLivePeerAfterOnePeerExpiryNotBefore() {
        pairUp();
        RawWorker w = worker(backup.endpoint());
        eventually("a standby registration", () -> backup.broker().workerCount("echo") == 1);
        w.command(WorkerCommand.HEARTBEAT);
        clock.advance(HB); // one heartbeat: the peer's state arrives, but the grace (two) is not over
        assertNull(w.pollNonHeartbeat(QUIET), "kept within the grace");
        assertEquals(1, backup.broker().workerCount("echo"));
        w.command(WorkerCommand.HEARTBEAT);
        clock.advance(HB);
        clock.advance(HB);
        assertEquals(w.commandFrames(WorkerCommand.DISCONNECT), w.pollNonHeartbeat(T),
                "sent on to the active peer");
        eventually("forgotten", () -> backup.broker().workerCount("echo") == 0);
        backupBrokerEvents.await(MajordomoEvent.Type.WORKER_DISCONNECTED, e -> e.detail().contains("passive"));
        assertEquals(BinaryStarState.PASSIVE, backup.state());
    }
}
