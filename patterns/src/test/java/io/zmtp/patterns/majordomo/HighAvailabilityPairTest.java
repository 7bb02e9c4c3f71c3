package io.zmtp.patterns.majordomo;

import io.zmtp.testing.Recorder;
import io.zmtp.patterns.binarystar.BinaryStarEvent;
import io.zmtp.patterns.binarystar.BinaryStarState;
import io.zmtp.socket.ZmtpContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.zmtp.patterns.majordomo.MdpTesting.T;
import static io.zmtp.patterns.majordomo.MdpTesting.eventually;
import static io.zmtp.patterns.majordomo.MdpTesting.started;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A highly available broker pair in one JVM on real time, each broker in a context of its own so
 * the primary can die as a process does (its sockets close; it says DISCONNECT to no one):
 * synchronous and asynchronous clients and echo workers given both endpoints, under steady
 * load. Every request is answered, each with its own body (never another request's answer), and
 * the backup serves within a bound derived from the settings.
 */
class HighAvailabilityPairTest {
    /** State heartbeat 100 ms (peer gone after 200 ms); MDP heartbeat 100 ms x 3; client timeout 500 ms, settle 300 ms. */
    static final Duration STATE_HB = Duration.ofMillis(100);
    static final Duration MDP_HB = Duration.ofMillis(100);
    static final Duration TIMEOUT = Duration.ofMillis(500);
    static final Duration SETTLE = Duration.ofMillis(300);
    static final int RETRIES = 6;

    final List<AutoCloseable> opened = new ArrayList<>();
    final List<ZmtpContext> contexts = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        for (ZmtpContext c : contexts) {
            c.close(Duration.ofSeconds(5));
        }
    }

    ZmtpContext context() {
        ZmtpContext c = ZmtpContext.create(1);
        contexts.add(c);
        return c;
    }

    static int freePort() throws IOException {
        return io.zmtp.testing.FreePorts.next();
    }

    HighAvailabilityBroker broker(ZmtpContext ctx, boolean primary, int statePub, int statePeer,
            Recorder<BinaryStarEvent> events) {
        return broker(ctx, primary, statePub, statePeer, events, "tcp://127.0.0.1:0");
    }

    HighAvailabilityBroker broker(ZmtpContext ctx, boolean primary, int statePub, int statePeer,
            Recorder<BinaryStarEvent> events, String endpoint) {
        HighAvailabilityBroker.Settings.Builder s = primary ? HighAvailabilityBroker.Settings.primary()
                : HighAvailabilityBroker.Settings.backup();
        s.statePublisher("tcp://127.0.0.1:" + statePub).statePeer("tcp://127.0.0.1:" + statePeer)
                .stateHeartbeat(STATE_HB).pairListener(events)
                .broker(MajordomoBrokerSettings.builder().endpoints(endpoint).heartbeatInterval(MDP_HB)
                        .heartbeatLiveness(3).build());
        HighAvailabilityBroker b = new HighAvailabilityBroker(ctx, s.build());
        opened.add(b);
        return started(b);
    }

    MajordomoWorker worker(List<String> brokers, String service) {
        MajordomoWorker w = new MajordomoWorker(context(), brokers, service, MajordomoHandler.echo(),
                MajordomoWorkerSettings.builder().heartbeatInterval(MDP_HB).heartbeatLiveness(3)
                        .reconnectDelay(MDP_HB).reconnectDelayMax(MDP_HB).socketOptions(MdpTesting.FAST_RECONNECT)
                        .executor(Runnable::run).build());
        opened.add(w);
        w.start();
        return w;
    }

    @Test
    void thePrimaryDiesUnderLoadAndTheBackupServesEveryRequestOnce() throws Exception {
        int statePrimary = freePort();
        int stateBackup = freePort();
        ZmtpContext primaryCtx = context();
        Recorder<BinaryStarEvent> primaryEvents = new Recorder<>();
        Recorder<BinaryStarEvent> backupEvents = new Recorder<>();
        HighAvailabilityBroker primary = broker(primaryCtx, true, statePrimary, stateBackup, primaryEvents);
        HighAvailabilityBroker backup = broker(context(), false, stateBackup, statePrimary, backupEvents);
        eventually("primary active, backup passive", () -> primary.state() == BinaryStarState.ACTIVE
                && backup.state() == BinaryStarState.PASSIVE);
        List<String> brokers = List.of(primary.endpoint().replace("0.0.0.0", "127.0.0.1"),
                backup.endpoint().replace("0.0.0.0", "127.0.0.1"));
        worker(brokers, "echo");
        worker(brokers, "echo");
        worker(brokers, "echo-async"); // one worker: the async client's replies come in order
        eventually("three workers at the primary", () -> primary.broker().workerCount() == 3);

        MajordomoClientSettings clients = MajordomoClientSettings.builder().version(MdpVersion.V0_2)
                .timeout(TIMEOUT).retries(RETRIES).failoverSettle(SETTLE).build();
        MdpLoad load = new MdpLoad(context(), brokers, clients, 2, "echo", 8, "echo-async");
        opened.add(load);
        load.start();
        eventually("load under way", () -> load.answered() >= 200);

        long died = System.nanoTime();
        primaryCtx.close(Duration.ZERO); // the primary dies
        backupEvents.await("the backup active", e -> e instanceof BinaryStarEvent.StateChanged s
                && s.to() == BinaryStarState.ACTIVE);
        load.mark(); // from here on every answer comes from the backup
        eventually(() -> "answers from the backup: " + load, () -> load.firstAnswerAfterMark() != 0);
        Duration failover = Duration.ofNanos(load.firstAnswerAfterMark() - died);
        long after = load.answered();
        eventually(() -> "the backup keeps serving: " + load, () -> load.answered() >= after + 200);
        load.stopAndSettle(T);

        assertEquals(BinaryStarState.ACTIVE, backup.state());
        assertEquals(List.of(), load.mismatches(), "each request answered once, with its own answer");
        assertEquals(List.of(), load.failures(), "every request answered");
        assertEquals(load.sent(), load.answered(), load.toString());
        // the longest path: a request sent just before the death waits its timeout, the settle,
        // and the backup has lost its peer by then (settle >= two state heartbeats); slack for a busy machine
        Duration bound = TIMEOUT.plus(SETTLE).plus(STATE_HB.multipliedBy(2)).plusSeconds(3);
        assertTrue(failover.compareTo(bound) < 0, "failover took " + failover.toMillis() + " ms");
        System.out.println("HA Majordomo failover in-process (death to first answer from the backup): "
                + failover.toMillis() + " ms; " + load);
    }

    @Test
    void theRestartedPrimaryComesBackPassiveAndTakesOverWhenTheBackupDies() throws Exception {
        int statePrimary = freePort();
        int stateBackup = freePort();
        int mdpPrimary = freePort();
        Recorder<BinaryStarEvent> primaryEvents = new Recorder<>();
        Recorder<BinaryStarEvent> backupEvents = new Recorder<>();
        ZmtpContext firstPrimaryCtx = context();
        HighAvailabilityBroker first = broker(firstPrimaryCtx, true, statePrimary, stateBackup, primaryEvents,
                "tcp://127.0.0.1:" + mdpPrimary);
        ZmtpContext backupCtx = context();
        HighAvailabilityBroker backup = broker(backupCtx, false, stateBackup, statePrimary, backupEvents,
                "tcp://127.0.0.1:0");
        eventually("primary active, backup passive", () -> first.state() == BinaryStarState.ACTIVE
                && backup.state() == BinaryStarState.PASSIVE);
        List<String> brokers = List.of("tcp://127.0.0.1:" + mdpPrimary, backup.endpoint());
        worker(brokers, "echo");
        worker(brokers, "echo-async");
        eventually("two workers at the primary", () -> first.broker().workerCount() == 2);
        MajordomoClientSettings clients = MajordomoClientSettings.builder().version(MdpVersion.V0_2)
                .timeout(TIMEOUT).retries(RETRIES).failoverSettle(SETTLE).build();
        MdpLoad load = new MdpLoad(context(), brokers, clients, 1, "echo", 4, "echo-async");
        opened.add(load);
        load.start();
        eventually("load under way", () -> load.answered() >= 50);

        firstPrimaryCtx.close(Duration.ZERO); // the primary dies: the backup takes over
        eventually(() -> "the backup active: " + backupEvents.all(), () -> backup.state() == BinaryStarState.ACTIVE);
        eventually("the workers at the backup", () -> backup.broker().workerCount() == 2);
        long served = load.answered();
        eventually(() -> "the backup serves: " + load, () -> load.answered() >= served + 50);

        // the primary restarts on its ports: it finds the backup active and stays passive, without workers
        Recorder<BinaryStarEvent> restartedEvents = new Recorder<>();
        ZmtpContext restartedCtx = context();
        HighAvailabilityBroker restarted = broker(restartedCtx, true, statePrimary, stateBackup, restartedEvents,
                "tcp://127.0.0.1:" + mdpPrimary);
        eventually(() -> "the restarted primary passive: " + restartedEvents.all(),
                () -> restarted.state() == BinaryStarState.PASSIVE);
        long before = load.answered();
        eventually(() -> "the backup still serves: " + load, () -> load.answered() >= before + 50);
        assertEquals(BinaryStarState.ACTIVE, backup.state(), "never two active");
        assertEquals(0, restarted.broker().workerCount(), "the workers stay with the active backup");

        backupCtx.close(Duration.ZERO); // now the backup dies: back to the primary
        eventually(() -> "the restarted primary active: " + restartedEvents.all(),
                () -> restarted.state() == BinaryStarState.ACTIVE);
        long back = load.answered();
        eventually(() -> "the primary serves again: " + load, () -> load.answered() >= back + 50);
        load.stopAndSettle(T);
        assertEquals(List.of(), load.mismatches(), "each request answered once, with its own answer");
        assertEquals(List.of(), load.failures(), "every request answered");
    }
}
