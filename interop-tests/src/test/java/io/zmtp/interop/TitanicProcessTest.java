package io.zmtp.interop;

import io.zmtp.socket.ZmtpContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;

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

    enum Victim { TITANIC, BROKER, WORKER }

    final TitanicProcesses processes = new TitanicProcesses();
    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        processes.close();
    }

    PeerScript titanic(String endpoint) throws InterruptedException {
        return processes.titanic(endpoint, dir.resolve("store").toString());
    }

    @ParameterizedTest
    @EnumSource(Victim.class)
    void everyAcknowledgedRequestGetsItsOwnReplyThroughKills(Victim victim) throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String endpoint = "tcp://127.0.0.1:" + io.zmtp.testing.FreePorts.next();
        PeerScript broker = processes.broker(endpoint);
        PeerScript worker = processes.worker(endpoint);
        PeerScript titanic = titanic(endpoint);
        PeerScript[] currentTitanic = {titanic};
        ZmtpContext ctx = processes.context();

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
                    broker = processes.broker(endpoint);
                }
                case WORKER -> {
                    worker.kill();
                    worker = processes.worker(endpoint);
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
}
