package io.zmtp.interop;

import io.zmtp.socket.ZmtpContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code zmtp.jar} processes of a Titanic process test: broker, echo workers and Titanic
 * servers with short MDP heartbeats (a silent peer is gone after 5 of 200 ms), all killed by
 * {@link #close()}, and the context of the test's own clients.
 */
final class TitanicProcesses implements AutoCloseable {
    static final String HEARTBEAT = "200ms";
    private final List<PeerScript> processes = new ArrayList<>();
    private ZmtpContext context;

    /** The test's own sockets' context (two loops), made on first use and closed by {@link #close()}. */
    ZmtpContext context() {
        if (context == null) {
            context = ZmtpContext.create(2);
        }
        return context;
    }

    PeerScript zmtp(String... args) {
        PeerScript p = PeerScript.zmtp(args);
        processes.add(p);
        return p;
    }

    PeerScript broker(String endpoint) {
        return zmtp("mdbroker", "--endpoint", endpoint, "--interval", HEARTBEAT, "--liveness", "5", "-q");
    }

    PeerScript worker(String endpoint) {
        return zmtp("mdworker", "-e", endpoint, "--workers", "2", "--interval", HEARTBEAT, "--liveness", "5",
                "--reconnect", "100ms", "-q");
    }

    /** A titanic server on {@code store} (a directory or a URL), with {@code more} options, once it serves. */
    PeerScript titanic(String endpoint, String store, String... more) throws InterruptedException {
        return titanics(1, endpoint, store, more).get(0);
    }

    /**
     * {@code n} titanic servers on one {@code store}, once each serves: all are started before
     * any is awaited, so their JVMs start side by side rather than one after the other.
     */
    List<PeerScript> titanics(int n, String endpoint, String store, String... more) throws InterruptedException {
        List<String> args = new ArrayList<>(List.of("titanic", "-e", endpoint, "--store", store,
                "--interval", HEARTBEAT, "--liveness", "5", "--retry-interval", "200ms", "--dispatch-timeout", "2s",
                "--request-workers", "8"));
        args.addAll(Arrays.asList(more));
        List<PeerScript> started = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            started.add(zmtp(args.toArray(new String[0])));
        }
        for (PeerScript t : started) {
            // a JVM starting while three others run on two cores: a generous deadline; a server that
            // exits instead (its store would not open) fails the test at once, with what it printed
            TitanicLoad.awaitCondition(() -> {
                if (t.lines().stream().anyMatch(l -> l.startsWith("I: titanic serving through"))) {
                    return true;
                }
                if (!t.isAlive()) {
                    throw new AssertionError("titanic exited before serving (status " + t.awaitExit() + "): "
                            + t.lines());
                }
                return false;
            }, "titanic started");
        }
        return started;
    }

    @Override
    public void close() {
        for (PeerScript p : processes) {
            p.close();
        }
        if (context != null) {
            context.close(Duration.ofSeconds(5));
        }
    }
}
