package io.zmtp.interop;

import io.zmtp.socket.ZmtpContext;
import io.zmtp.testing.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two {@code zmtp titanic} servers on one PostgreSQL database behind one {@code zmtp mdbroker}:
 * clients submit and fetch through both (the broker spreads their calls), one server at a time is
 * killed (SIGKILL) under load and restarted, and the database server itself is stopped with
 * {@code pg_ctl stop -m immediate} and started again. Every request answered 200 gets exactly its
 * own reply; after a kill, the survivor takes over the requests the dead server held once its
 * lease lapses.
 */
class TitanicPostgresProcessTest {
    static final int CLIENTS = 4;
    static final int KILLS = 3;
    /** How long the check after the kills may take: under the test's own timeout, so that a lost reply is named. */
    static final long DEADLINE_MS = 30_000;
    static final Duration LEASE = Duration.ofSeconds(2);
    /** Each client's pause between submissions: about 60 acknowledged a second, hundreds in a run. */
    static final Duration PACE = Duration.ofMillis(50);
    static PostgresServer db;
    static int databases;

    final TitanicProcesses processes = new TitanicProcesses();

    @BeforeAll
    static void startDatabase() {
        db = PostgresServer.start();
    }

    @AfterAll
    static void stopDatabase() {
        db.close();
    }

    @AfterEach
    void stop() {
        processes.close();
    }

    /** A titanic server on {@code store} (a postgresql:// URL), once it serves. */
    PeerScript titanic(String endpoint, String store) throws InterruptedException {
        return processes.titanic(endpoint, store, "--claim-lease", LEASE.toSeconds() + "s");
    }

    /** Two titanic servers on {@code store}, started side by side, once both serve. */
    PeerScript[] twoTitanics(String endpoint, String store) throws InterruptedException {
        return processes.titanics(2, endpoint, store, "--claim-lease", LEASE.toSeconds() + "s")
                .toArray(new PeerScript[0]);
    }

    String newStore() {
        databases++;
        db.newDatabase("p" + databases);
        return "postgresql://titanic@127.0.0.1:" + db.port() + "/p" + databases;
    }

    @Test
    void killingEitherServerLosesNothingAndTheSurvivorTakesOverWithinTheLease() throws Exception {
        long seed = System.nanoTime();
        long start = System.nanoTime();
        String endpoint = "tcp://127.0.0.1:" + io.zmtp.testing.FreePorts.next();
        String store = newStore();
        processes.broker(endpoint);
        PeerScript worker = processes.worker(endpoint);
        PeerScript[] servers = twoTitanics(endpoint, store);
        ZmtpContext ctx = processes.context();
        List<Long> takeovers = new ArrayList<>();
        long started = System.nanoTime();
        try (TitanicLoad load = new TitanicLoad(ctx, endpoint, CLIENTS, PACE)) {
            for (int k = 0; k < KILLS; k++) {
                load.awaitMore(20, "before kill " + (k + 1));
                // no echo worker for a while: both servers hold pending requests when one dies
                worker.kill();
                load.awaitMore(20, "with the worker gone");
                int victim = k % 2;
                PeerScript survivor = servers[1 - victim];
                long killed = System.nanoTime();
                servers[victim].kill();
                long claimed = survivor.awaitLineAfter("I: claimed ", killed);
                long ms = TimeUnit.NANOSECONDS.toMillis(claimed - killed);
                takeovers.add(ms);
                // the lease, the third of it between two rounds, and a JVM's pause on a busy machine
                assertTrue(ms < LEASE.toMillis() + LEASE.toMillis() / 3 + 2_000,
                        "the survivor took over after " + ms + " ms (lease " + LEASE.toMillis() + " ms)");
                worker = processes.worker(endpoint);
                servers[victim] = titanic(endpoint, store);
            }
            load.awaitMore(20, "after the last restart");
            load.stopSubmitting(seed);
            long killed = System.nanoTime();
            load.verifyEveryReply(DEADLINE_MS, seed, uuid -> "");
            System.out.println("titanic on PostgreSQL, two servers, one killed " + KILLS + " times: "
                    + load.acknowledged.size() + " requests acknowledged, every one answered with its own reply; "
                    + load.failures.get() + " submissions not acknowledged (retried); takeovers after " + takeovers
                    + " ms (lease " + LEASE.toMillis() + " ms); processes started in " + ms(started - start)
                    + " ms, the kills took " + ms(killed - started) + " ms, the check " + ms(System.nanoTime() - killed)
                    + " ms; seed " + seed);
        }
    }

    @Test
    void theDatabaseStoppedImmediatelyLosesNothingAcknowledged() throws Exception {
        long seed = System.nanoTime();
        String endpoint = "tcp://127.0.0.1:" + io.zmtp.testing.FreePorts.next();
        String store = newStore();
        processes.broker(endpoint);
        processes.worker(endpoint);
        twoTitanics(endpoint, store);
        ZmtpContext ctx = processes.context();
        try (TitanicLoad load = new TitanicLoad(ctx, endpoint, CLIENTS)) {
            load.awaitMore(40, "before stopping the database");
            int refusedBefore = load.answered500.get();
            db.stopImmediately();
            try {
                TitanicLoad.awaitCondition(() -> load.answered500.get() >= refusedBefore + 5,
                        "submissions answered 500 while the database is down");
            } finally {
                db.startAgain();
            }
            load.awaitMore(40, "after the database came back");
            load.stopSubmitting(seed);
            load.verifyEveryReply(DEADLINE_MS, seed, uuid -> "");
            System.out.println("titanic on PostgreSQL, database stopped (immediate) and started: "
                    + load.acknowledged.size() + " requests acknowledged, every one answered with its own reply; "
                    + load.answered500.get() + " submissions answered 500 and " + (load.failures.get()
                    - load.answered500.get()) + " unanswered in time (retried); seed " + seed);
        }
    }

    static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
