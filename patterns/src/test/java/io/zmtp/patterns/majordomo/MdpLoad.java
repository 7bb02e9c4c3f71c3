package io.zmtp.patterns.majordomo;

import io.zmtp.socket.ZmtpContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Steady Majordomo load for failover tests: synchronous clients sending one request after
 * another, and an asynchronous client keeping a window of requests outstanding, each request
 * with a body of its own that the echo workers send back. Every answer is checked against its
 * request: a reply with another request's body (an answer given twice, or to the wrong request)
 * is a mismatch; a request that fails is a failure with the client's message. The time of the
 * first answer after {@link #mark()} measures a failover.
 */
public final class MdpLoad implements AutoCloseable {
    private final List<MajordomoClient> syncClients = new ArrayList<>();
    private final MajordomoAsyncClient asyncClient;
    private final String syncService;
    private final String asyncService;
    private final int window;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong answered = new AtomicLong();
    private final List<String> mismatches = new CopyOnWriteArrayList<>();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final Semaphore asyncWindow;
    private final AtomicLong firstAfterMark = new AtomicLong();
    private volatile long mark = Long.MAX_VALUE;
    private volatile boolean running = true;

    /**
     * @param syncClients how many synchronous clients (service {@code syncService})
     * @param window how many requests the asynchronous client keeps outstanding (service
     *        {@code asyncService}, served by one worker so replies come in order); 0: none
     */
    public MdpLoad(ZmtpContext ctx, List<String> brokers, MajordomoClientSettings settings, int syncClients,
            String syncService, int window, String asyncService) {
        for (int i = 0; i < syncClients; i++) {
            this.syncClients.add(new MajordomoClient(ctx, brokers, settings));
        }
        this.asyncClient = window > 0 ? new MajordomoAsyncClient(ctx, brokers, settings) : null;
        this.syncService = syncService;
        this.asyncService = asyncService;
        this.window = window;
        this.asyncWindow = new Semaphore(Math.max(window, 1));
    }

    public MdpLoad start() {
        for (int i = 0; i < syncClients.size(); i++) {
            MajordomoClient c = syncClients.get(i);
            c.start();
            int k = i;
            threads.add(thread("mdp-load-sync-" + k, () -> {
                for (long n = 0; running; n++) {
                    String body = "sync-" + k + "-" + n;
                    sent.incrementAndGet();
                    try {
                        answer(body, c.request(syncService, body));
                    } catch (MajordomoException e) {
                        failures.add(body + ": " + e.getMessage());
                    }
                }
            }));
        }
        if (asyncClient != null) {
            asyncClient.start();
            threads.add(thread("mdp-load-async", () -> {
                for (long n = 0; running; n++) {
                    try {
                        if (!asyncWindow.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                            n--;
                            continue;
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                    String body = "async-" + n;
                    sent.incrementAndGet();
                    asyncClient.request(asyncService, body).whenComplete((r, e) -> {
                        if (e == null) {
                            answer(body, r);
                        } else {
                            failures.add(body + ": " + e.getMessage());
                        }
                        asyncWindow.release();
                    });
                }
            }));
        }
        return this;
    }

    private static Thread thread(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void answer(String body, MajordomoReply r) {
        if (!r.bodyStrings().equals(List.of(body))) {
            mismatches.add("request " + body + " answered with " + r.bodyStrings());
        }
        long now = System.nanoTime();
        if (now - mark >= 0) {
            firstAfterMark.compareAndSet(0, now);
        }
        answered.incrementAndGet();
    }

    /** Marks now: {@link #firstAnswerAfterMark()} is the first answer from here on. */
    public void mark() {
        firstAfterMark.set(0);
        mark = System.nanoTime();
    }

    /** When ({@link System#nanoTime()}) the first answer after the mark came; 0 if none yet. */
    public long firstAnswerAfterMark() {
        return firstAfterMark.get();
    }

    public long sent() {
        return sent.get();
    }

    public long answered() {
        return answered.get();
    }

    public List<String> mismatches() {
        return List.copyOf(mismatches);
    }

    public List<String> failures() {
        return List.copyOf(failures);
    }

    /**
     * Stops sending and waits (up to {@code deadline}) until every request sent has its answer or
     * its failure; an {@link AssertionError} if some had neither by then.
     */
    public void stopAndSettle(Duration deadline) throws InterruptedException {
        running = false;
        long end = System.nanoTime() + deadline.toNanos();
        for (Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())));
        }
        Duration left = Duration.ofNanos(Math.max(1, end - System.nanoTime()));
        io.zmtp.testing.Await.until(left, () -> "every request answered or failed: " + this,
                () -> answered.get() + failures.size() == sent.get());
    }

    @Override
    public void close() {
        running = false;
        for (MajordomoClient c : syncClients) {
            c.close();
        }
        if (asyncClient != null) {
            asyncClient.close();
        }
    }

    @Override
    public String toString() {
        return sent() + " sent, " + answered() + " answered, " + failures.size() + " failed, " + mismatches.size()
                + " mismatched (window " + window + ")";
    }
}
