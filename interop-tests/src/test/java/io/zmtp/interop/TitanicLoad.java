package io.zmtp.interop;

import io.zmtp.patterns.majordomo.MajordomoClientSettings;
import io.zmtp.patterns.titanic.TitanicClient;
import io.zmtp.patterns.titanic.TitanicClientSettings;
import io.zmtp.patterns.titanic.TitanicException;
import io.zmtp.patterns.titanic.TitanicStatus;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Titanic clients that submit without pause or at a pace (each body names its client and number), and the
 * check that follows a test's kills: every request answered 200 gets its reply, which is its own
 * body, the same on every poll until closed, and 400 after the close.
 */
final class TitanicLoad implements AutoCloseable {
    final Map<String, byte[]> acknowledged = new ConcurrentHashMap<>();
    final AtomicInteger failures = new AtomicInteger();
    /** Of the failures, those the server answered with 500 (the others went unanswered in time). */
    final AtomicInteger answered500 = new AtomicInteger();
    private final ZmtpContext ctx;
    private final String endpoint;
    private final AtomicBoolean submitting = new AtomicBoolean(true);
    private final List<Throwable> clientErrors = new CopyOnWriteArrayList<>();
    private final List<Thread> clients = new ArrayList<>();

    /** Starts {@code n} client threads submitting to {@code echo} through the broker at {@code endpoint}. */
    TitanicLoad(ZmtpContext ctx, String endpoint, int n) {
        this(ctx, endpoint, n, Duration.ZERO);
    }

    /**
     * Starts {@code n} client threads, each pausing {@code pace} after each submission. A paced
     * load still has requests held by every server when one is killed (each kill waits for more
     * to be acknowledged), but fewer in all: the check afterwards polls and closes each one, and
     * an unpaced load on a busy machine made that check most of the test's time.
     */
    TitanicLoad(ZmtpContext ctx, String endpoint, int n, Duration pace) {
        this.ctx = ctx;
        this.endpoint = endpoint;
        for (int c = 0; c < n; c++) {
            int id = c;
            Thread t = new Thread(() -> {
                try (TitanicClient client = client()) {
                    for (int k = 0; submitting.get(); k++) {
                        byte[] body = ("client " + id + " request " + k).getBytes(StandardCharsets.UTF_8);
                        try {
                            acknowledged.put(client.submit("echo", Frames.of(body)), body);
                        } catch (TitanicException e) {
                            assertTrue(e.retryable(), e.getMessage());
                            failures.incrementAndGet(); // not acknowledged: the client may submit again
                            if (e.status() == TitanicStatus.ERROR) {
                                answered500.incrementAndGet();
                            }
                        }
                        if (!pace.isZero()) {
                            Thread.sleep(pace.toMillis());
                        }
                    }
                } catch (Throwable e) {
                    clientErrors.add(e);
                }
            }, "titanic-client-" + c);
            t.start();
            clients.add(t);
        }
    }

    TitanicClient client() {
        TitanicClient c = new TitanicClient(ctx, endpoint, TitanicClientSettings.builder()
                .majordomo(MajordomoClientSettings.builder().timeout(Duration.ofMillis(1000)).retries(1).build())
                .build());
        c.start();
        return c;
    }

    /** Waits until {@code n} more requests than now are acknowledged. */
    void awaitMore(int n, String what) throws InterruptedException {
        int before = acknowledged.size();
        awaitCondition(() -> acknowledged.size() >= before + n, n + " more requests acknowledged " + what);
    }

    /** Stops submitting; fails when a client thread failed. */
    void stopSubmitting(long seed) throws InterruptedException {
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
    }

    /**
     * Every acknowledged request: its own reply, the same again, then closed and 400; checked by
     * four clients at once, each over a share of the requests. A wrong reply fails with
     * {@code explain}'s account of it (what the store holds, say).
     */
    void verifyEveryReply(long deadlineMs, long seed, Function<String, String> explain) throws InterruptedException {
        int total = acknowledged.size();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(deadlineMs);
        int checkers = 4;
        List<Map<String, byte[]>> shares = new ArrayList<>();
        for (int i = 0; i < checkers; i++) {
            shares.add(new ConcurrentHashMap<>());
        }
        int n = 0;
        for (Map.Entry<String, byte[]> e : acknowledged.entrySet()) {
            shares.get(n++ % checkers).put(e.getKey(), e.getValue());
        }
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (Map<String, byte[]> share : shares) {
            Thread t = new Thread(() -> {
                try {
                    verify(share, total, deadline, seed, explain);
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "titanic-check");
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join(deadlineMs + 30_000);
        }
        if (!errors.isEmpty()) {
            AssertionError e = new AssertionError(errors.get(0).getMessage(), errors.get(0));
            errors.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
    }

    private void verify(Map<String, byte[]> waiting, int total, long deadline, long seed,
                        Function<String, String> explain) throws InterruptedException {
        // replied and checked, to be closed (and then checked gone)
        Set<String> closed = new LinkedHashSet<>();
        try (TitanicClient client = client()) {
            while (!waiting.isEmpty()) {
                assertTrue(System.nanoTime() < deadline, () -> waiting.size() + " of " + total
                        + " acknowledged requests got no reply (seed " + seed + ")");
                for (Iterator<Map.Entry<String, byte[]>> it = waiting.entrySet().iterator(); it.hasNext(); ) {
                    Map.Entry<String, byte[]> e = it.next();
                    if (closed.contains(e.getKey())) {
                        continue;
                    }
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
                    if (!Arrays.equals(e.getValue(), reply.get().frame(0))) {
                        String other = acknowledged.entrySet().stream()
                                .filter(x -> Arrays.equals(x.getValue(), reply.get().frame(0)))
                                .map(Map.Entry::getKey).findFirst().orElse("none");
                        throw new AssertionError("uuid " + e.getKey() + " acknowledged for '"
                                + new String(e.getValue(), StandardCharsets.UTF_8) + "' has the reply '"
                                + new String(reply.get().frame(0), StandardCharsets.UTF_8) + "', acknowledged under "
                                + other + " (seed " + seed + ")" + explain.apply(e.getKey()));
                    }
                    assertArrayEquals(e.getValue(), client.poll(e.getKey()).orElseThrow().frame(0), "the same again");
                    closed.add(e.getKey());
                }
                for (Iterator<String> it = closed.iterator(); it.hasNext(); ) {
                    String uuid = it.next();
                    try {
                        client.close(uuid); // idempotent: a close whose answer was lost is sent again
                    } catch (TitanicException slow) {
                        assertTrue(slow.retryable(), slow.getMessage());
                        continue; // no answer in time: the next round
                    }
                    TitanicException gone = org.junit.jupiter.api.Assertions.assertThrows(TitanicException.class,
                            () -> client.poll(uuid), "a closed request is gone");
                    if (gone.retryable()) {
                        continue; // no answer in time: close and look again the next round
                    }
                    assertEquals(TitanicStatus.UNKNOWN, gone.status(), gone.getMessage());
                    it.remove();
                    waiting.remove(uuid);
                }
                if (!waiting.isEmpty()) {
                    Thread.sleep(100); // the next round of polls
                }
            }
        }
    }

    static void awaitCondition(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 60 s: " + what);
            Thread.sleep(10);
        }
    }

    @Override
    public void close() throws InterruptedException {
        submitting.set(false);
        for (Thread t : clients) {
            t.join(30_000);
        }
    }
}
