package io.zmtp.interop;

import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.testing.Recorder;
import io.zmtp.patterns.simplepirate.QueueEvent;
import io.zmtp.patterns.kit.WorkerEvent;
import io.zmtp.patterns.kit.Heartbeat;
import io.zmtp.patterns.kit.RequestEvent;
import io.zmtp.patterns.lazypirate.LazyPirateClient;
import io.zmtp.patterns.lazypirate.LazyPirateServer;
import io.zmtp.patterns.paranoidpirate.ParanoidPirateQueue;
import io.zmtp.patterns.paranoidpirate.ParanoidPirateWorker;
import io.zmtp.patterns.simplepirate.SimplePirateQueue;
import io.zmtp.patterns.simplepirate.SimplePirateWorker;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.zmtp.testing.Await.get;
import static io.zmtp.testing.FreePorts.port;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The Pirate patterns against libzmq 4.3 programs of our own (peers/lpclient.py, lpserver.py,
 * ppworker.py, ppqueue.py), each its own process: theirs with our server and queues, ours with
 * their server and queue, with processes killed as crashes are.
 */
class PiratesInteropTest {
    /**
     * Heartbeats of 100 ms; a peer is dead after 4 silent intervals (400 ms, long beside the
     * stalls of a busy machine).
     */
    static final Heartbeat HEARTBEAT = Heartbeat.of(Duration.ofMillis(100), 4);
    static final SocketOptions FAST_RECONNECT = SocketOptions.builder()
            .reconnectInterval(Duration.ofMillis(10)).reconnectIntervalMax(Duration.ofMillis(50)).build();

    ZmtpContext ctx;
    final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        ctx.close(Duration.ofSeconds(5));
    }

    <T extends AutoCloseable> T closing(T t) {
        toClose.add(t);
        return t;
    }

    /** Started (bound or connected), and closed at the end. */
    <T extends LoopComponent> T started(T t) {
        closing(t);
        get(t.start().toCompletableFuture());
        return t;
    }

    LazyPirateClient client(String endpoint, Duration timeout, int retries, Recorder<RequestEvent> events) {
        return started(new LazyPirateClient(ctx, LazyPirateClient.Settings.builder().endpoint(endpoint)
                .timeout(timeout).retries(retries).socketOptions(FAST_RECONNECT).build(), events));
    }

    PeerScript lpserver(String endpoint) {
        return closing(PeerScript.start("lpserver.py", endpoint));
    }

    @Test
    void libzmqLazyPirateClientWithOurServer() {
        LazyPirateServer server = closing(new LazyPirateServer(ctx, LazyPirateServer.settings()
                .endpoint("tcp://127.0.0.1:0").build(), null));
        get(server.start().toCompletableFuture());
        PeerScript client = closing(PeerScript.start("lpclient.py", server.endpoint(), "5", "2000", "3"));
        assertEquals(0, client.awaitExit(), () -> client.lines().toString());
        assertEquals(5, client.count(l -> l.startsWith("reply ")));
    }

    @Test
    void ourLazyPirateClientWithALibzmqServerKilledAndRestarted() {
        PeerScript first = lpserver("tcp://127.0.0.1:*");
        String endpoint = first.awaitLine("listening ").substring("listening ".length());
        Recorder<RequestEvent> events = new Recorder<>();
        LazyPirateClient client = client(endpoint, Duration.ofMillis(200), 25, events);
        assertEquals(List.of("1"), client.request("1"));

        first.kill(); // SIGKILL: the server process crashes
        CompletableFuture<ZmtpMessage> second = client.requestAsync(ZmtpMessage.ofStrings("2"));
        events.await("a retry while the server is down",
                e -> e instanceof RequestEvent.Retrying && e.request() == 2);
        PeerScript restarted = lpserver("tcp://127.0.0.1:" + port(endpoint));
        restarted.awaitLine("listening ");

        assertEquals(List.of("2"), strings(get(second)));
        assertEquals(List.of("3"), client.request("3"));
        restarted.awaitLine("request 3");
    }

    @Test
    void libzmqParanoidPirateWorkerAndClientWithOurQueue() {
        Recorder<QueueEvent> queueEvents = new Recorder<>();
        ParanoidPirateQueue queue = started(new ParanoidPirateQueue(ctx, ParanoidPirateQueue.Settings.builder()
                .frontend("tcp://127.0.0.1:0").backend("tcp://127.0.0.1:0").heartbeat(HEARTBEAT)
                .linger(Duration.ZERO).build(), queueEvents));
        PeerScript worker = closing(PeerScript.start("ppworker.py", queue.backendEndpoint(), "100", "4", "100",
                "400", "PY-WORKER"));
        queueEvents.await("the libzmq worker ready", e -> e instanceof QueueEvent.WorkerReady
                && e.worker().toString().equals("PY-WORKER"));

        // Heartbeats both ways for many expiry times: neither side gives up on the other.
        worker.awaitCount("queue-heartbeat", 3 * HEARTBEAT.liveness());
        assertEquals(0, worker.count(l -> l.startsWith("heartbeat-lost")), () -> worker.lines().toString());
        assertEquals(0, queueEvents.count(e -> e instanceof QueueEvent.WorkerExpired));

        // Our client, and a libzmq client, through our queue to the libzmq worker.
        LazyPirateClient client = client(queue.frontendEndpoint(), Duration.ofSeconds(2), 3, null);
        for (int i = 1; i <= 5; i++) {
            assertEquals(List.of("ours " + i), client.request("ours " + i));
        }
        PeerScript libzmqClient = closing(PeerScript.start("lpclient.py", queue.frontendEndpoint(), "5", "2000", "3"));
        assertEquals(0, libzmqClient.awaitExit(), () -> libzmqClient.lines().toString());

        worker.kill(); // the worker process crashes: the queue forgets it after liveness x interval
        queueEvents.await("the dead worker expired", e -> e instanceof QueueEvent.WorkerExpired
                && e.worker().toString().equals("PY-WORKER"));
    }

    @Test
    void ourParanoidPirateWorkerWithALibzmqQueueThatRestarts() {
        PeerScript queue = closing(PeerScript.start("ppqueue.py", "tcp://127.0.0.1:*", "tcp://127.0.0.1:*", "100", "4"));
        String[] endpoints = queue.awaitLine("listening ").split(" ");
        String frontend = endpoints[1];
        String backend = endpoints[2];
        Recorder<WorkerEvent> events = new Recorder<>();
        started(new ParanoidPirateWorker(ctx, ParanoidPirateWorker.Settings.builder().endpoint(backend)
                .heartbeat(HEARTBEAT).reconnectInterval(Duration.ofMillis(100)).reconnectIntervalMax(Duration.ofMillis(400))
                .identity("JAVA-WORKER").socketOptions(FAST_RECONNECT).traceMessages(true).build(), events));
        queue.awaitLine("worker-ready JAVA-WORKER");
        events.awaitCount("heartbeats from the libzmq queue",
                e -> e instanceof WorkerEvent.QueueHeartbeat, 3 * HEARTBEAT.liveness());
        assertEquals(0, queue.count(l -> l.startsWith("worker-expired")), () -> queue.lines().toString());

        LazyPirateClient client = client(frontend, Duration.ofMillis(500), 20, null);
        assertEquals(List.of("before"), client.request("before"));

        queue.kill(); // the queue process crashes: its connections drop, and the socket reconnects by itself
        events.await("the worker noticed", e -> e instanceof WorkerEvent.ConnectionLost);

        PeerScript restarted = closing(PeerScript.start("ppqueue.py", frontend, backend, "100", "4"));
        restarted.awaitLine("worker-ready JAVA-WORKER");
        assertEquals(List.of("after"), client.request("after"));
    }

    @Test
    void libzmqLazyPirateClientThroughOurSimplePirateQueue() {
        SimplePirateQueue queue = started(new SimplePirateQueue(ctx, SimplePirateQueue.Settings.builder()
                .frontend("tcp://127.0.0.1:0").backend("tcp://127.0.0.1:0").linger(Duration.ZERO).build(), null));
        started(new SimplePirateWorker(ctx, SimplePirateWorker.settings().endpoint(queue.backendEndpoint())
                .build(), null));
        PeerScript client = closing(PeerScript.start("lpclient.py", queue.frontendEndpoint(), "5", "2000", "3"));
        assertEquals(0, client.awaitExit(), () -> client.lines().toString());
        assertEquals(5, client.count(l -> l.startsWith("reply ")));
    }

    /** The frames as strings; the message is released. */
    static List<String> strings(ZmtpMessage m) {
        try {
            List<String> l = new ArrayList<>();
            for (int i = 0; i < m.size(); i++) {
                l.add(m.frameString(i));
            }
            return l;
        } finally {
            m.release();
        }
    }
}
