package io.zmtp.interop;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 43: {@code zmtp mdbroker} killed (SIGKILL) and restarted on the same port under 2,000
 * Majordomo workers of two {@code zmtp mdworker --workers 1000} processes on the same host (one
 * address, 127.0.0.1), as the issue ran them: every option at its default, the broker's bound
 * endpoint with the library's limits. Before, 1,024 registered (the per-address cap) and the other
 * 976 were refused at every attempt; now every worker must be back.
 *
 * <p>The workers registered are read from the broker's event lines: READY adds a routing id,
 * WORKER_LEFT and WORKER_EXPIRED take it away (WORKER_DISCONNECTED, a protocol fault, must not
 * happen). All 2,000 are registered before the kill; after it, the time from the new broker's exec
 * to its bound line and to the moment 2,000 are registered again is printed and bounded (see
 * {@link #BACK_WITHIN_MS}). Neither broker's log (stdout and stderr) may show a connection refused
 * or evicted. Then 2,000 requests are served: the broker hands each to the worker idle longest,
 * and a worker that replied is idle for less time than those not yet asked, so each of the 2,000
 * serves exactly one, each process 1,000.
 *
 * <p>A worker that takes its broker for silent (3 heartbeats of 2,500 ms missed) leaves and
 * registers again; that is counted and printed, not failed on: a machine loaded to 36 by other
 * jobs once starved four of the first 1,000 that long while the second process started.
 *
 * <p>The second worker process starts once the first one's 1,000 are registered. Two cold JVMs
 * that open 1,000 connections each at the same moment can hold more than 1,024 of them in their
 * handshake at once (the broker accepts faster than they answer), past the default
 * {@code maxHandshakesPerAddress}: the rest are refused, and are in at their redial 100 ms later.
 * That start is not what this test is about, and would make its "nothing refused" a matter of
 * timing; at the restart the workers' JVMs are warm and every one sends its greeting with its
 * connect.
 */
class MajordomoCrowdRestartProcessTest {
    static final int PROCESSES = 2;
    static final int WORKERS_EACH = 1_000;
    static final int WORKERS = PROCESSES * WORKERS_EACH;

    /**
     * The new broker's start, exec to bound: a JVM's start, about a second on an idle machine.
     * Here the 2,000 workers redial every 100 ms while it starts (20,000 refused connects a
     * second, close to one of the two cores), and the machine may be shared: measured 1.3 to
     * 10.5 s on a 2-core machine whose load average other jobs held at 12 to 14. Allowed: 15 s.
     */
    static final long STARTUP_MS = 15_000;
    /**
     * From bound to all 2,000 registered again. Each worker's socket redials a lost broker every 100 ms
     * without doubling (MajordomoWorkerSettings' own socket options: reconnect interval and its
     * maximum both 100 ms, not ComponentSettings.SOCKET_OPTIONS' 200 ms), and the worker sends
     * READY as soon as the handshake completes: its heartbeat liveness (3 x 2,500 ms) counts only
     * while connected and its reconnect delay (2,500 ms) follows only a silent broker or a
     * DISCONNECT, neither of which a restart is. So each is back 100 ms after the bind plus the
     * time the broker (one event loop, its JIT cold) and the worker processes (one event loop
     * each) take to accept, handshake and register 2,000 connections: measured 1.1 to 9.5 s on
     * that loaded machine. Allowed: 100 ms + 7.5 ms a worker, 15.1 s.
     */
    static final long REGISTER_MS = 100 + WORKERS * 15 / 2;
    /**
     * Exec to all back: 30.1 s (the 1,024 took 2.0 s). A worker refused at every attempt,
     * as in the issue, would never be back: the wait for 2,000 registered fails then.
     */
    static final long BACK_WITHIN_MS = STARTUP_MS + REGISTER_MS;

    final List<PeerScript> processes = new ArrayList<>();

    @AfterEach
    void stop() {
        for (PeerScript p : processes) {
            p.close();
        }
    }

    PeerScript broker(int port) {
        PeerScript b = PeerScript.zmtpWithLog("mdbroker", "-e", "tcp://127.0.0.1:" + port);
        processes.add(b);
        return b;
    }

    /**
     * Longer than the project's 60 s a test: three JVM starts and 4,000 registrations took 49 s
     * under a load average of 13 from other jobs, and more beside another test class (two test
     * JVMs run side by side). The waits' own deadlines say what was late first.
     */
    @Test
    @Timeout(180)
    void twoThousandWorkersAreBackAfterTheBrokerIsKilledAndRestarted() throws InterruptedException {
        int port = io.zmtp.testing.FreePorts.next();
        String endpoint = "tcp://127.0.0.1:" + port;
        PeerScript broker = broker(port);
        broker.awaitLine("I: MDP broker");

        long workersExec = System.nanoTime();
        List<PeerScript> workers = new ArrayList<>();
        for (int i = 1; i <= PROCESSES; i++) {
            PeerScript w = PeerScript.zmtpWithLog("mdworker", "-e", endpoint, "--workers", Integer.toString(WORKERS_EACH));
            processes.add(w);
            workers.add(w);
            awaitRegistered(broker, i * WORKERS_EACH, 90_000);
        }
        Registrations first = Registrations.of(broker);
        System.out.println("mdbroker crowd: " + WORKERS + " workers (" + PROCESSES + " mdworker --workers "
                + WORKERS_EACH + ", the second started after the first's) registered "
                + ms(first.reached(WORKERS) - workersExec) + " ms after the first worker process's exec");
        first.check("the first broker");

        broker.kill();
        long exec = System.nanoTime();
        PeerScript restarted = broker(port);
        long bound = restarted.awaitLineAfter("I: MDP broker", exec);
        awaitRegistered(restarted, WORKERS, BACK_WITHIN_MS + 30_000);
        Registrations back = Registrations.of(restarted);
        System.out.println("mdbroker crowd: after kill -9, the new broker bound " + ms(bound - exec)
                + " ms after its exec; registered again: 1,000 " + ms(back.reached(1_000) - exec) + " ms, 1,024 "
                + ms(back.reached(1_024) - exec) + " ms, 2,000 " + ms(back.reached(WORKERS) - exec) + " ms after exec ("
                + ms(back.reached(WORKERS) - bound) + " ms after bound; bound asserted " + BACK_WITHIN_MS + " ms)");
        back.check("the restarted broker");
        assertTrue(ms(bound - exec) < STARTUP_MS, "the restarted broker bound only " + ms(bound - exec) + " ms after exec");
        assertTrue(ms(back.reached(WORKERS) - bound) < REGISTER_MS, "the " + WORKERS + " workers were back only "
                + ms(back.reached(WORKERS) - bound) + " ms after the restarted broker bound");
        assertTrue(ms(back.reached(WORKERS) - exec) < BACK_WITHIN_MS, "the " + WORKERS + " workers were back only "
                + ms(back.reached(WORKERS) - exec) + " ms after the broker's exec (bound after " + ms(bound - exec) + " ms)");

        long requestsStart = System.nanoTime();
        int exit = mdRequests(port, WORKERS).awaitExit(90_000);
        long requestsEnd = System.nanoTime();
        Registrations after = Registrations.of(restarted);
        after.check("the restarted broker, after the requests");
        // each worker prints its line after its reply went out: the last ones may still be on their way
        io.zmtp.testing.Await.until(java.time.Duration.ofSeconds(10), () -> WORKERS + " requests printed by the workers",
                () -> exit != 0 || workers.stream().mapToLong(w -> w.count(l -> l.startsWith("I: echo request "))).sum()
                        >= WORKERS);
        List<Long> served = new ArrayList<>();
        long silent = 0;
        for (PeerScript w : workers) {
            served.add(w.count(l -> l.startsWith("I: echo request ")));
            silent += w.count(l -> l.startsWith("I: BROKER_LOST ") && l.contains("silent"));
        }

        System.out.println("mdbroker crowd: " + WORKERS + " requests (mdclient --async) in "
                + ms(requestsEnd - requestsStart) + " ms, a new JVM included, served per process " + served
                + "; workers that left or expired and came again: " + first.churn() + " at the first broker, "
                + after.churn() + " at the restarted one (" + silent + " took a broker for silent)");

        assertEquals(0, exit, "2,000 requests served after the restart");
        assertEquals(WORKERS, after.live(), "registered after the requests");
        for (int i = 0; i < PROCESSES; i++) {
            assertEquals(WORKERS_EACH, served.get(i), "each worker serves one of the " + WORKERS
                    + " requests (the broker hands each to the worker idle longest), so each process "
                    + WORKERS_EACH + ": " + served);
        }
    }

    /**
     * Waits until {@code n} workers are registered at {@code broker}, looking every 20 ms (each
     * look reads every line: the CPU is the processes' under test); the times come from the lines.
     */
    static void awaitRegistered(PeerScript broker, int n, long deadlineMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(deadlineMs);
        Registrations r;
        while ((r = Registrations.of(broker)).live() < n) {
            assertTrue(System.nanoTime() < deadline, "not " + n + " workers registered within " + deadlineMs
                    + " ms: " + r);
            Thread.sleep(20);
        }
    }

    /**
     * What a broker's lines say of its workers: the READY, WORKER_LEFT, WORKER_EXPIRED and
     * WORKER_DISCONNECTED lines, the routing ids registered now, when (System.nanoTime) their
     * number first reached each count, and the lines of connections refused or evicted (the
     * library's WARN lines, rate-limited: a lower bound, and none means none).
     */
    record Registrations(int ready, int left, int expired, int disconnected, int twice, int live, long[] reached,
            List<String> refusedOrEvicted) {
        static Registrations of(PeerScript broker) {
            List<String> lines = broker.lines();
            List<Long> at = broker.arrivals();
            Set<String> live = new HashSet<>();
            long[] reached = new long[WORKERS + 1];
            java.util.Arrays.fill(reached, -1);
            int ready = 0, left = 0, expired = 0, disconnected = 0, twice = 0;
            List<String> refusedOrEvicted = new ArrayList<>();
            for (int i = 0; i < lines.size(); i++) {
                String l = lines.get(i);
                String[] words = l.split(" ");
                if (l.startsWith("I: WORKER_READY ")) {
                    ready++;
                    if (!live.add(words[2])) {
                        twice++;
                    }
                } else if (l.startsWith("I: WORKER_LEFT ")) {
                    left++;
                    live.remove(words[2]);
                } else if (l.startsWith("I: WORKER_EXPIRED ")) {
                    expired++;
                    live.remove(words[2]);
                } else if (l.startsWith("I: WORKER_DISCONNECTED ")) {
                    disconnected++;
                    live.remove(words[2]);
                } else if (l.contains("refused a connection") || l.contains("evicted the connection")) {
                    refusedOrEvicted.add(l);
                }
                if (live.size() <= WORKERS && reached[live.size()] < 0) {
                    reached[live.size()] = at.get(i);
                }
            }
            return new Registrations(ready, left, expired, disconnected, twice, live.size(), reached, refusedOrEvicted);
        }

        /** When the number registered first reached {@code n}; it must have. */
        long reached(int n) {
            assertTrue(reached[n] >= 0, "never " + n + " workers registered: " + this);
            return reached[n];
        }

        int churn() {
            return left + expired;
        }

        /** No connection refused or evicted, no protocol fault, no routing id registered twice. */
        void check(String which) {
            assertTrue(refusedOrEvicted.isEmpty(), which + ": " + refusedOrEvicted.size() + " lines of connections"
                    + " refused or evicted: " + refusedOrEvicted.subList(0, Math.min(20, refusedOrEvicted.size())));
            assertEquals(0, disconnected, which + ": workers disconnected: " + this);
            assertEquals(0, twice, which + ": a routing id registered twice: " + this);
        }

        @Override
        public String toString() {
            return ready + " READY, " + left + " left, " + expired + " expired, " + disconnected + " disconnected, "
                    + live + " registered, " + refusedOrEvicted.size() + " lines of connections refused or evicted";
        }
    }

    /**
     * {@code n} Majordomo echo requests, all sent first ({@code --async}), one try of 30 s each (on a
     * machine other jobs loaded to 16, all 2,000 took up to 22 s, the client's JVM start included),
     * through mdclient.
     */
    PeerScript mdRequests(int port, int n) {
        PeerScript c = PeerScript.zmtp("mdclient", "-e", "tcp://127.0.0.1:" + port, "-n", Integer.toString(n),
                "--async", "-t", "30s", "-r", "1");
        processes.add(c);
        return c;
    }

    static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
