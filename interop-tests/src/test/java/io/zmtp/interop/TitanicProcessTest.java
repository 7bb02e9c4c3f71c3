package io.zmtp.interop;

import io.zmtp.patterns.titanic.sqlite.TitanicStoreSettings;

import io.zmtp.patterns.titanic.sqlite.SqliteTitanicStore;

import io.zmtp.patterns.majordomo.MajordomoClientSettings;
import io.zmtp.patterns.titanic.TitanicClient;
import io.zmtp.patterns.titanic.TitanicClientSettings;
import io.zmtp.patterns.titanic.TitanicException;
import io.zmtp.patterns.titanic.TitanicStatus;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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

        Map<String, byte[]> acknowledged = new ConcurrentHashMap<>();
        AtomicBoolean submitting = new AtomicBoolean(true);
        AtomicInteger failures = new AtomicInteger();
        // what ended a client thread early: an assertion there does not fail the test by itself
        List<Throwable> clientErrors = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int id = c;
            Thread t = new Thread(() -> {
                try (TitanicClient client = client(endpoint)) {
                    for (int n = 0; submitting.get(); n++) {
                        byte[] body = ("client " + id + " request " + n).getBytes(StandardCharsets.UTF_8);
                        try {
                            acknowledged.put(client.submit("echo", Frames.of(body)), body);
                        } catch (TitanicException e) {
                            assertTrue(e.retryable(), e.getMessage());
                            failures.incrementAndGet(); // not acknowledged: the client may submit again
                        }
                    }
                } catch (Throwable e) {
                    clientErrors.add(e);
                }
            }, "titanic-client-" + c);
            t.start();
            clients.add(t);
        }
        for (int k = 0; k < KILLS; k++) {
            int before = acknowledged.size();
            awaitCondition(() -> acknowledged.size() >= before + 20, "20 more requests acknowledged");
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
        int before = acknowledged.size();
        awaitCondition(() -> acknowledged.size() >= before + 20, "20 more requests acknowledged after the last restart");
        submitting.set(false);
        for (Thread t : clients) {
            t.join(30_000);
            assertTrue(!t.isAlive(), "client thread ended");
        }
        if (!clientErrors.isEmpty()) {
            AssertionError e = new AssertionError(clientErrors.size() + " client thread(s) failed (seed " + seed + "): "
                    + clientErrors.get(0), clientErrors.get(0));
            clientErrors.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }

        // every acknowledged request: its own reply, idempotent until closed, then 400
        int total = acknowledged.size();
        try (TitanicClient client = client(endpoint)) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
            Map<String, byte[]> waiting = new ConcurrentHashMap<>(acknowledged);
            while (!waiting.isEmpty()) {
                assertTrue(System.nanoTime() < deadline, () -> waiting.size() + " of " + total
                        + " acknowledged requests got no reply (seed " + seed + ")");
                for (Iterator<Map.Entry<String, byte[]>> it = waiting.entrySet().iterator(); it.hasNext(); ) {
                    Map.Entry<String, byte[]> e = it.next();
                    Optional<Frames> reply;
                    try {
                        reply = client.poll(e.getKey());
                    } catch (TitanicException slow) {
                        assertTrue(slow.retryable(), slow.getMessage());
                        continue; // no answer in time: the next round
                    }
                    if (reply.isEmpty()) {
                        continue;
                    }
                    assertEquals(1, reply.get().size(), "one frame");
                    if (!java.util.Arrays.equals(e.getValue(), reply.get().frame(0))) {
                        // what the store holds tells whether the submission or the dispatch went wrong
                        currentTitanic[0].kill();
                        String stored;
                        try (var st = io.zmtp.patterns.titanic.sqlite.SqliteTitanicStore.open(
                                io.zmtp.patterns.titanic.sqlite.TitanicStoreSettings.in(dir.resolve("store")))) {
                            stored = "; the store holds the request " + st.request(e.getKey()).join()
                                    .map(r -> r.service() + " " + new String(r.body().frame(0), StandardCharsets.UTF_8))
                                    .orElse("(none)");
                        }
                        String other = acknowledged.entrySet().stream()
                                .filter(x -> java.util.Arrays.equals(x.getValue(), reply.get().frame(0)))
                                .map(Map.Entry::getKey).findFirst().orElse("none");
                        throw new AssertionError("uuid " + e.getKey() + " acknowledged for '"
                                + new String(e.getValue(), StandardCharsets.UTF_8) + "' has the reply '"
                                + new String(reply.get().frame(0), StandardCharsets.UTF_8) + "', acknowledged under " + other
                                + " (seed " + seed + ")" + stored);
                    }
                    assertArrayEquals(e.getValue(), client.poll(e.getKey()).orElseThrow().frame(0), "the same again");
                    client.close(e.getKey());
                    TitanicException gone = org.junit.jupiter.api.Assertions.assertThrows(TitanicException.class,
                            () -> client.poll(e.getKey()));
                    assertEquals(TitanicStatus.UNKNOWN, gone.status());
                    it.remove();
                }
                if (!waiting.isEmpty()) {
                    Thread.sleep(100);
                }
            }
        }
        System.out.println("titanic process test, " + victim + " killed " + KILLS + " times: " + total
                + " requests acknowledged, every one answered; " + failures.get()
                + " submissions not acknowledged (retried); seed " + seed);
        assertTrue(total >= 20 * (KILLS + 1));
    }

    TitanicClient client(String endpoint) {
        TitanicClient c = new TitanicClient(ctx, endpoint, TitanicClientSettings.builder()
                .majordomo(MajordomoClientSettings.builder().timeout(Duration.ofMillis(1000)).retries(1).build())
                .build());
        c.start();
        return c;
    }

    static void awaitCondition(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 60 s: " + what);
            Thread.sleep(10);
        }
    }
}
