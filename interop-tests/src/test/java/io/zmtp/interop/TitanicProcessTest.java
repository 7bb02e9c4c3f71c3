package io.zmtp.interop;

import io.zmtp.socket.ZmtpContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Titanic's promise with {@code zmtp.jar} processes: {@code zmtp mdbroker}, {@code zmtp mdworker}
 * (echo) and {@code zmtp titanic --store DIR}. Client threads of this test submit requests
 * without pause while one of the three processes is killed (SIGKILL) at random moments, three
 * times, and restarted (Titanic on the same store, the broker on the same port). Then every
 * request that was answered 200 is polled: each gets its reply, which is its own body (never
 * another request's), the same on every poll until closed, and 400 after the close.
 */
class TitanicProcessTest {
    static final int CLIENTS = 8;
    static final int KILLS = 3;
    static final long DEADLINE_MS = 90_000;
    /** MDP heartbeats of every process: a silent peer is gone after 5 of them (1 s). */
    static final String HEARTBEAT = "200ms";

    enum Victim { TITANIC, BROKER, WORKER }

    final List<PeerScript> processes = new ArrayList<>();
    @TempDir
    Path dir;
    ZmtpContext ctx;

    @AfterEach
    void stop() {
        for (PeerScript p : processes) {
            p.close();
        }
        if (ctx != null) {
            ctx.close(Duration.ofSeconds(5));
        }
    }

    static int freePort() throws IOException {
        return io.zmtp.testing.FreePorts.next();
    }

    PeerScript zmtp(String... args) {
        PeerScript p = PeerScript.zmtp(args);
        processes.add(p);
        return p;
    }

    PeerScript broker(String endpoint) {
        return zmtp("mdbroker", "--endpoint", endpoint, "--interval", HEARTBEAT, "--liveness", "5", "-q");
    }

    PeerScript titanic(String endpoint) {
        PeerScript t = zmtp("titanic", "-e", endpoint, "--store", dir.resolve("store").toString(),
                "--interval", HEARTBEAT, "--liveness", "5", "--retry-interval", "200ms", "--dispatch-timeout", "2s",
                "--request-workers", "8");
        // a JVM starting while three others run on two cores: a generous deadline
        try {
            awaitCondition(() -> t.lines().stream().anyMatch(l -> l.startsWith("I: titanic serving through")),
                    "titanic started");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        return t;
    }

    PeerScript worker(String endpoint) {
        return zmtp("mdworker", "-e", endpoint, "--workers", "2", "--interval", HEARTBEAT, "--liveness", "5",
                "--reconnect", "100ms", "-q");
    }

    @ParameterizedTest
    @EnumSource(Victim.class)
    void everyAcknowledgedRequestGetsItsOwnReplyThroughKills(Victim victim) throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String endpoint = "tcp://127.0.0.1:" + freePort();
        PeerScript broker = broker(endpoint);
        PeerScript worker = worker(endpoint);
        PeerScript titanic = titanic(endpoint);
        PeerScript[] currentTitanic = {titanic};
        ctx = ZmtpContext.create(2);

        TitanicLoad load = new TitanicLoad(ctx, endpoint, CLIENTS);
        for (int k = 0; k < KILLS; k++) {
            load.awaitMore(20, "before kill " + (k + 1));
            Thread.sleep(random.nextInt(500)); // a random moment of the load
            switch (victim) {
                case TITANIC -> {
                    titanic.kill();
                    titanic = titanic(endpoint);
                    currentTitanic[0] = titanic;
                }
                case BROKER -> {
                    broker.kill();
                    broker = broker(endpoint);
                }
                case WORKER -> {
                    worker.kill();
                    worker = worker(endpoint);
                }
            }
        }
        load.awaitMore(20, "after the last restart");
        load.stopSubmitting(seed);
        load.verifyEveryReply(DEADLINE_MS, seed, uuid -> {
            // what the store holds tells whether the submission or the dispatch went wrong
            currentTitanic[0].kill();
            try (var st = io.zmtp.patterns.titanic.sqlite.SqliteTitanicStore.open(
                    io.zmtp.patterns.titanic.sqlite.TitanicStoreSettings.in(dir.resolve("store")))) {
                return "; the store holds the request " + st.request(uuid).join()
                        .map(r -> r.service() + " " + new String(r.body().frame(0), StandardCharsets.UTF_8))
                        .orElse("(none)");
            }
        });
        int total = load.acknowledged.size();
        System.out.println("titanic process test, " + victim + " killed " + KILLS + " times: " + total
                + " requests acknowledged, every one answered; " + load.failures.get()
                + " submissions not acknowledged (retried); seed " + seed);
        assertTrue(total >= 20 * (KILLS + 1));
    }

    static void awaitCondition(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 60 s: " + what);
            Thread.sleep(10);
        }
    }
}
