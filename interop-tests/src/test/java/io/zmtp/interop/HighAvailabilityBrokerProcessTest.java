package io.zmtp.interop;

import io.zmtp.patterns.majordomo.MajordomoClientSettings;
import io.zmtp.patterns.majordomo.MajordomoHandler;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.patterns.majordomo.MajordomoWorkerSettings;
import io.zmtp.patterns.majordomo.MdpLoad;
import io.zmtp.patterns.majordomo.MdpVersion;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The highly available Majordomo broker as processes: {@code zmtp mdbroker --bstar primary} and
 * {@code --bstar backup} ({@code zmtp.jar}), MDP echo workers and clients (synchronous, and an
 * asynchronous one with a window of requests outstanding) in this JVM given both endpoints,
 * under steady load. The primary is killed with SIGKILL: every request is answered (none fails),
 * each with its own body (no request answered twice or with another's answer), and the backup
 * becomes active and serves within a bound derived from the settings.
 */
class HighAvailabilityBrokerProcessTest {
    /** State heartbeat 100 ms (peer gone after 200 ms), MDP heartbeat 100 ms x 3, client timeout 500 ms, settle 300 ms. */
    static final Duration STATE_HB = Duration.ofMillis(100);
    static final Duration MDP_HB = Duration.ofMillis(100);
    static final Duration TIMEOUT = Duration.ofMillis(500);
    static final Duration SETTLE = Duration.ofMillis(300);
    static final int RETRIES = 6;
    /** How long the two broker JVMs may take to start and pair up. */
    static final long STARTUP_MS = 30_000;

    /** How many times the kill is repeated (1; more to measure: {@code -Dha.failover.runs=5}). */
    static final int RUNS = Integer.getInteger("ha.failover.runs", 1);

    final List<PeerScript> processes = new ArrayList<>();
    final List<AutoCloseable> opened = new ArrayList<>();
    ZmtpContext ctx;

    @AfterEach
    void stop() throws Exception {
        cleanUp();
    }

    void cleanUp() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        opened.clear();
        if (ctx != null) {
            ctx.close(Duration.ofSeconds(5));
            ctx = null;
        }
        for (PeerScript p : processes) {
            p.close();
        }
        processes.clear();
    }

    PeerScript broker(boolean primary, int frontend, int statePub, int statePeer) {
        Path jar = PeerScript.ZMTP_JAR;
        assertTrue(Files.isRegularFile(jar), jar + " is missing: build it with mvn package (or verify)");
        List<String> cmd = PeerScript.zmtpJava();
        cmd.addAll(List.of("mdbroker", "--bstar", primary ? "primary" : "backup",
                "-e", "tcp://127.0.0.1:" + frontend, "--interval", MDP_HB.toMillis() + "ms",
                "--state-pub", "tcp://127.0.0.1:" + statePub, "--state-peer", "tcp://127.0.0.1:" + statePeer,
                "--state-heartbeat", STATE_HB.toMillis() + "ms"));
        PeerScript p = PeerScript.startProgram("mdbroker --bstar " + (primary ? "primary" : "backup"), cmd);
        processes.add(p);
        return p;
    }

    void worker(List<String> brokers, String service) {
        MajordomoWorker w = new MajordomoWorker(ctx, brokers, service, MajordomoHandler.echo(),
                MajordomoWorkerSettings.builder().version(MdpVersion.V0_2).heartbeatInterval(MDP_HB)
                        .heartbeatLiveness(3).reconnectDelay(MDP_HB).reconnectDelayMax(MDP_HB)
                        .socketOptions(SocketOptions.builder().linger(Duration.ZERO)
                                .reconnectInterval(Duration.ofMillis(20)).reconnectIntervalMax(Duration.ofMillis(100))
                                .build())
                        .executor(Runnable::run).build());
        opened.add(w);
        w.start();
    }

    @Test
    void thePrimaryKilledUnderLoadLosesNoRequestAndAnswersNoneTwice() throws Exception {
        List<Long> active = new ArrayList<>();
        List<Long> answer = new ArrayList<>();
        for (int run = 0; run < RUNS; run++) {
            long[] figures = killThePrimaryUnderLoad();
            active.add(figures[0]);
            answer.add(figures[1]);
            cleanUp();
        }
        if (RUNS > 1) {
            java.util.Collections.sort(active);
            java.util.Collections.sort(answer);
            System.out.println("HA Majordomo failover over " + RUNS + " runs: kill -9 to backup active median "
                    + active.get(RUNS / 2) + " ms, worst " + active.get(RUNS - 1) + " ms; to first answer from the"
                    + " backup median " + answer.get(RUNS / 2) + " ms, worst " + answer.get(RUNS - 1) + " ms");
        }
    }

    /** One run; returns the milliseconds from the kill to the backup active and to its first answer. */
    long[] killThePrimaryUnderLoad() throws Exception {
        ctx = ZmtpContext.create(2);
        int fp = BinaryStarProcessTest.freePort();
        int fb = BinaryStarProcessTest.freePort();
        int sp = BinaryStarProcessTest.freePort();
        int sb = BinaryStarProcessTest.freePort();
        PeerScript primary = broker(true, fp, sp, sb);
        PeerScript backup = broker(false, fb, sb, sp);
        // two JVMs start: on a loaded machine that alone can take more than the usual 10 s
        primary.awaitCount("I: connected to backup (passive), ready as active", 1, STARTUP_MS);
        backup.awaitCount("I: connected to primary (active), ready as passive", 1, STARTUP_MS);
        List<String> brokers = List.of("tcp://127.0.0.1:" + fp, "tcp://127.0.0.1:" + fb);
        worker(brokers, "echo");
        worker(brokers, "echo");
        worker(brokers, "echo-async"); // one worker: the async client's replies come in order
        primary.awaitCount("I: WORKER_READY", 3);

        MajordomoClientSettings clients = MajordomoClientSettings.builder().version(MdpVersion.V0_2)
                .timeout(TIMEOUT).retries(RETRIES).failoverSettle(SETTLE).build();
        MdpLoad load = new MdpLoad(ctx, brokers, clients, 2, "echo", 8, "echo-async");
        opened.add(load);
        load.start();
        Await.until(() -> "load under way: " + load, () -> load.answered() >= 300);

        long killed = System.nanoTime();
        primary.kill();
        long activeAt = backup.awaitLineAfter("I: failover successful, ready as active", killed);
        load.mark(); // the primary is dead and the backup active: every answer from here is the backup's
        Await.until(() -> "answers from the backup: " + load, () -> load.firstAnswerAfterMark() != 0);
        long firstAnswer = load.firstAnswerAfterMark();
        long after = load.answered();
        Await.until(() -> "the backup keeps serving: " + load, () -> load.answered() >= after + 300);
        load.stopAndSettle(Duration.ofSeconds(20));

        assertEquals(List.of(), load.mismatches(), "each request answered once, with its own answer");
        assertEquals(List.of(), load.failures(), "every request answered");
        assertEquals(load.sent(), load.answered(), load.toString());
        assertEquals(0, backup.count(l -> l.startsWith("E: ")), () -> backup.lines().toString());
        // the longest path: a request sent just before the kill waits its timeout and the settle;
        // by then (settle >= two state heartbeats) the backup has lost its peer and takes the vote.
        // Slack for JVM processes on a busy machine.
        Duration bound = TIMEOUT.plus(SETTLE).plus(STATE_HB.multipliedBy(2)).plusSeconds(3);
        long toActive = TimeUnit.NANOSECONDS.toMillis(activeAt - killed);
        long toAnswer = TimeUnit.NANOSECONDS.toMillis(firstAnswer - killed);
        assertTrue(toActive < bound.toMillis(), "backup active " + toActive + " ms after the kill");
        assertTrue(toAnswer < bound.toMillis(), "first answer from the backup " + toAnswer + " ms after the kill");
        System.out.println("HA Majordomo failover (kill -9 to backup active / to first answer from the backup): "
                + toActive + " ms / " + toAnswer + " ms; " + load);
        return new long[] {toActive, toAnswer};
    }
}
