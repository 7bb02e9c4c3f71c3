package io.zmtp.interop;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packaged command line ({@code java -jar zmtp-cli/target/zmtp.jar}) as separate processes,
 * mixed with the libzmq Pirate programs: a libzmq worker and ours behind {@code zmtp ppqueue}, with
 * a libzmq client and {@code zmtp lpclient} in front.
 */
class PirateCommandsInteropTest {
    static final Path JAR = PeerScript.ZMTP_JAR;

    final List<PeerScript> processes = new ArrayList<>();

    @AfterEach
    void stop() {
        for (PeerScript p : processes) {
            p.close();
        }
    }

    PeerScript zmtp(String... args) {
        PeerScript p = PeerScript.zmtp(args);
        processes.add(p);
        return p;
    }

    PeerScript python(String script, String... args) {
        PeerScript p = PeerScript.start(script, args);
        processes.add(p);
        return p;
    }

    @Test
    void ppqueueServesLibzmqAndOurWorkersAndClients() {
        PeerScript queue = zmtp("ppqueue", "--frontend", "tcp://127.0.0.1:0", "--backend", "tcp://127.0.0.1:0",
                "--interval", "100ms", "--liveness", "5");
        String ready = queue.awaitLine("queue ready");
        String frontend = ready.replaceAll(".*clients on (\\S+), workers on .*", "$1");
        String backend = ready.replaceAll(".*workers on (\\S+),.*", "$1");

        python("ppworker.py", backend, "100", "5", "200", "800", "PY-1");
        zmtp("ppworker", "-e", backend, "--identity", "JAVA-1", "--interval", "100ms", "--liveness", "5",
                "--reconnect", "200ms", "--reconnect-max", "800ms");
        queue.awaitLine("worker PY-1 ready");
        queue.awaitLine("worker JAVA-1 ready");

        PeerScript libzmqClient = python("lpclient.py", frontend, "10", "3000", "3");
        assertEquals(0, libzmqClient.awaitExit(), () -> libzmqClient.lines().toString());
        PeerScript ourClient = zmtp("lpclient", "-e", frontend, "-n", "10", "-t", "3s");
        assertEquals(0, ourClient.awaitExit(), () -> ourClient.lines().toString());
        assertEquals(10, ourClient.count(l -> l.startsWith("server replied OK")));
    }
}
