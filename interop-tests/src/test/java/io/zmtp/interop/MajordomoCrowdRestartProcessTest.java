package io.zmtp.interop;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

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
 * <p>All 2,000 are READY at the broker before the kill; after it, the time from the new broker's
 * exec to its bound line and to its 2,000th {@code WORKER_READY} is printed and bounded (see
 * {@link #BACK_WITHIN_MS}); the brokers' logs (stdout and stderr) must have no connection refused
 * or evicted, and no worker may have left, expired or been disconnected, so the 2,000 READY lines
 * are 2,000 live registrations. Then 2,000 requests are served: the broker hands each to the
 * worker idle longest, and a worker that replied is idle for less time than those not yet asked,
 * so each of the 2,000 serves exactly one, each process 1,000.
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
     * From bound to all 2,000 READY. Each worker's socket redials a lost broker every 100 ms
     * without doubling (MajordomoWorkerSettings' own socket options: reconnect interval and its
     * maximum both 100 ms, not ComponentSettings.SOCKET_OPTIONS' 200 ms), and the worker sends
     * READY as soon as the handshake completes: its heartbeat liveness (3 x 2,500 ms) counts only
     * while connected and its reconnect delay (2,500 ms) follows only a silent broker or a
     * DISCONNECT, neither of which a restart is. So each is back 100 ms after the bind plus the
     * time the broker (one event loop, its JIT cold) and the worker processes (one event loop
     * each) take to accept, handshake and register 2,000 connections: measured 1.1 to 9.4 s on
     * that loaded machine. Allowed: 100 ms + 7.5 ms a worker, 15.1 s.
     */
    static final long REGISTER_MS = 100 + WORKERS * 15 / 2;
    /**
     * Exec to all back: 30.1 s (the 1,024 took 2.0 s). A worker refused at every attempt,
     * as in the issue, would never be back: the wait for the 2,000th READY fails then.
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

    @Test
    void twoThousandWorkersAreBackAfterTheBrokerIsKilledAndRestarted() {
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
            broker.awaitCount("I: WORKER_READY", i * WORKERS_EACH, 60_000);
        }
        long registered = broker.arrivalOf("I: WORKER_READY", WORKERS - 1);
        registrations(broker, "the first broker");

        broker.kill();
        long exec = System.nanoTime();
        PeerScript restarted = broker(port);
        long bound = restarted.awaitLineAfter("I: MDP broker", exec);
        restarted.awaitCount("I: WORKER_READY", WORKERS, STARTUP_MS + REGISTER_MS + 30_000);
        long allBack = restarted.arrivalOf("I: WORKER_READY", WORKERS - 1);
        registrations(restarted, "the restarted broker");

        long requestsStart = System.nanoTime();
        assertEquals(0, mdRequests(port, WORKERS).awaitExit(60_000), "2,000 requests served after the restart");
        long requestsEnd = System.nanoTime();
        registrations(restarted, "the restarted broker, after the requests");
        List<Long> served = new ArrayList<>();
        for (PeerScript w : workers) {
            served.add(w.count(l -> l.startsWith("I: echo request ")));
        }

        System.out.println("mdbroker restart under " + WORKERS + " workers (" + PROCESSES + " mdworker --workers "
                + WORKERS_EACH + "): first registration " + ms(registered - workersExec)
                + " ms after the first worker process's exec (the second started after the first's 1,000)"
                + "; after kill -9, the new broker bound " + ms(bound - exec)
                + " ms after its exec; workers READY again: 1,000th " + ms(restarted.arrivalOf("I: WORKER_READY", 999) - exec)
                + " ms, 1,024th " + ms(restarted.arrivalOf("I: WORKER_READY", 1023) - exec)
                + " ms, 2,000th " + ms(allBack - exec) + " ms after exec (" + ms(allBack - bound)
                + " ms after bound); " + WORKERS + " requests (mdclient --async) in " + ms(requestsEnd - requestsStart)
                + " ms (a new JVM included), served per process " + served
                + "; bound asserted " + BACK_WITHIN_MS + " ms");

        assertTrue(ms(bound - exec) < STARTUP_MS, "the restarted broker bound only " + ms(bound - exec) + " ms after exec");
        assertTrue(ms(allBack - bound) < REGISTER_MS, "the " + WORKERS + " workers were back only "
                + ms(allBack - bound) + " ms after the restarted broker bound");
        assertTrue(ms(allBack - exec) < BACK_WITHIN_MS, "the " + WORKERS + " workers were back only "
                + ms(allBack - exec) + " ms after the broker's exec (bound after " + ms(bound - exec) + " ms)");
        for (int i = 0; i < PROCESSES; i++) {
            assertEquals(WORKERS_EACH, served.get(i), "each worker serves one of the " + WORKERS
                    + " requests (the broker hands each to the worker idle longest), so each process "
                    + WORKERS_EACH + ": " + served);
        }
    }

    /**
     * Every READY line is a live registration of its own: no connection refused or evicted (the
     * library's WARN lines), no worker left, expired or disconnected, every routing id once.
     */
    static void registrations(PeerScript broker, String which) {
        List<String> lines = broker.lines();
        List<String> trouble = lines.stream().filter(l -> l.contains("refused a connection")
                || l.contains("evicted the connection") || l.startsWith("I: WORKER_LEFT")
                || l.startsWith("I: WORKER_EXPIRED") || l.startsWith("I: WORKER_DISCONNECTED")).toList();
        assertTrue(trouble.isEmpty(), which + ": " + trouble.size() + " refused, evicted or lost: "
                + trouble.subList(0, Math.min(20, trouble.size())));
        Set<String> ids = new HashSet<>();
        long ready = 0;
        for (String l : lines) {
            if (l.startsWith("I: WORKER_READY ")) {
                ready++;
                ids.add(l.split(" ")[2]);
            }
        }
        assertEquals(ready, ids.size(), which + ": a routing id registered twice");
        assertEquals(WORKERS, ready, which + ": READY lines");
    }

    /**
     * {@code n} Majordomo echo requests, all sent first ({@code --async}), one try of 20 s each (a
     * cold JVM on a busy machine), through mdclient.
     */
    PeerScript mdRequests(int port, int n) {
        PeerScript c = PeerScript.zmtp("mdclient", "-e", "tcp://127.0.0.1:" + port, "-n", Integer.toString(n),
                "--async", "-t", "20s", "-r", "1");
        processes.add(c);
        return c;
    }

    static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
