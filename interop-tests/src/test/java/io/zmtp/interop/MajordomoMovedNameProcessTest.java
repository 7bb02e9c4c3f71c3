package io.zmtp.interop;

import io.zmtp.testing.FreePorts;
import io.zmtp.testing.TestDnsServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Majordomo worker and client, each a {@code zmtp} process that names its broker by host name
 * ({@code --name-server} points at a {@link TestDnsServer} of this test on a loopback port, TTL
 * 1 s), follow the name when the broker moves (#46): broker A on 127.0.0.1:P is killed (SIGKILL)
 * while the client's request waits in it, broker B is started on 127.0.0.2:P and the record is
 * changed to it; the same worker registers with B and the same client is answered through it,
 * neither restarted.
 *
 * <p>So that the client's request is in A when A dies (and not already answered), the worker is
 * frozen (SIGSTOP) before the client starts, and thawed at the kill: A hands the request to a
 * worker that cannot answer. The client's try times out after 1 s and it asks again, through a
 * socket that looks the name up again. Printed: the time from the kill to B's first line, to the
 * worker's READY at B, and to the client's reply.
 */
class MajordomoMovedNameProcessTest {
    static final String NAME = "broker.zmtp.test";

    final List<PeerScript> processes = new ArrayList<>();
    final TestDnsServer dns = new TestDnsServer();

    @AfterEach
    void stop() {
        for (PeerScript p : processes) {
            p.close();
        }
        dns.close();
    }

    PeerScript zmtp(String... args) {
        PeerScript p = PeerScript.zmtp(args);
        processes.add(p);
        return p;
    }

    /**
     * A broker on {@code host:port}, tracing what it receives. Liveness 40 x 250 ms (10 s): A must
     * not expire the frozen worker while the client's JVM starts (2 s and more on a busy machine).
     */
    PeerScript broker(String host, int port) {
        return zmtp("mdbroker", "-e", "tcp://" + host + ":" + port, "--interval", "250ms", "--liveness", "40", "-v");
    }

    @Test
    void aWorkerAndAClientFollowTheBrokersNameToItsNewAddress() {
        int port = FreePorts.next();
        String byName = "tcp://" + NAME + ":" + port;
        String nameServer = "127.0.0.1:" + dns.address().getPort();
        dns.set(NAME, "127.0.0.1");

        PeerScript a = broker("127.0.0.1", port);
        a.awaitLine("I: MDP broker");
        PeerScript worker = zmtp("mdworker", "-e", byName, "--name-server", nameServer, "--lookup-timeout", "1s",
                "--interval", "250ms", "--liveness", "40", "--reconnect", "100ms", "--reconnect-max", "100ms");
        a.awaitLine("I: WORKER_READY");

        worker.signal("STOP");
        PeerScript client = zmtp("mdclient", "-e", byName, "--name-server", nameServer, "--lookup-timeout", "1s",
                "-n", "1", "-t", "1s", "-r", "30", "-v", "moved");
        client.awaitLine("I: send request");
        a.awaitLine("[006] MDPC01"); // the client reached A by name; its request waits for the frozen worker

        a.kill();
        long killed = System.nanoTime();
        worker.signal("CONT");
        PeerScript b = broker("127.0.0.2", port);
        long up = b.awaitLineAfter("I: MDP broker", killed);
        dns.set(NAME, "127.0.0.2");
        long ready = b.awaitLineAfter("I: WORKER_READY", killed);
        long replied = client.awaitLineAfter("I: received reply", killed);
        assertEquals(0, client.awaitExit(), () -> "the client was answered: " + client.lines());
        assertTrue(client.lines().contains("[005] moved"), () -> "the reply echoes the request: " + client.lines());
        assertTrue(worker.count(l -> l.startsWith("I: echo request")) >= 1,
                () -> "the same worker served it: " + worker.lines());
        long asked = dns.questionsA(NAME).stream().filter(q -> q.nanos() - killed >= 0).count();
        assertTrue(asked >= 2, () -> "the worker and the client asked for the name again after the kill: " + asked);

        System.out.printf("Majordomo processes by name: broker B bound %d ms after A was killed; the worker "
                + "READY at B %d ms and the client's reply %d ms after the kill (%d ms after B bound); "
                + "%d A questions for the name since the kill%n",
                ms(up - killed), ms(ready - killed), ms(replied - killed), ms(replied - up), asked);
    }

    static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
