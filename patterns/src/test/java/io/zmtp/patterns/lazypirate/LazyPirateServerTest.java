package io.zmtp.patterns.lazypirate;

import io.zmtp.patterns.FailureSimulation;
import io.zmtp.patterns.PatternTesting.Recorder;
import io.zmtp.socket.ZmtpContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.zmtp.patterns.PatternTesting.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Lazy Pirate server: echo, and the guide's simulated crash and overload. */
class LazyPirateServerTest {
    ZmtpContext ctx;

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() {
        ctx.close(Duration.ofSeconds(5));
    }

    LazyPirateClient client(String ep, Duration timeout, int retries, Recorder<LazyPirateClient.Event> events) {
        return new LazyPirateClient(ctx, LazyPirateClient.Settings.builder().endpoint(ep).timeout(timeout)
                .retries(retries).socketOptions(LazyPirateClientTest.FAST_RECONNECT).build(), events).start();
    }

    @Test
    void noFaultsUnlessAskedFor() {
        Recorder<LazyPirateServer.Event> events = new Recorder<>();
        LazyPirateServer server = new LazyPirateServer(ctx, LazyPirateServer.Settings.builder()
                .endpoint("tcp://127.0.0.1:0").build(), events);
        server.start();
        try (LazyPirateClient client = client(server.endpoint(), Duration.ofSeconds(5), 1, null)) {
            for (int i = 1; i <= 30; i++) {
                assertEquals(List.of(Integer.toString(i)), client.request(Integer.toString(i)));
            }
        }
        assertEquals(30, events.count(e -> e.type() == LazyPirateServer.Event.Type.REQUEST));
        assertFalse(server.terminated().isDone());
        server.close();
    }

    @Test
    void aSimulatedCrashClosesTheServerAndTheClientGivesUp() {
        Recorder<LazyPirateServer.Event> events = new Recorder<>();
        LazyPirateServer server = new LazyPirateServer(ctx, LazyPirateServer.Settings.builder()
                .endpoint("tcp://127.0.0.1:0")
                .simulation(FailureSimulation.builder().healthyRequests(2).crashChance(1).build()).build(), events);
        server.start();
        LazyPirateClient client = client(server.endpoint(), Duration.ofMillis(100), 2, null);
        assertEquals(List.of("1"), client.request("1"));
        assertEquals(List.of("2"), client.request("2"));
        assertThrows(NoReplyException.class, () -> client.request("3"));
        get(server.terminated());
        LazyPirateServer.Event crash = events.await("the crash", e -> e.type() == LazyPirateServer.Event.Type.CRASHING);
        assertEquals(3, crash.request());
        client.close();
    }

    @Test
    void aSimulatedOverloadAnswersLateAndAnImpatientClientRetries() {
        Recorder<LazyPirateServer.Event> serverEvents = new Recorder<>();
        // Every request after the first is overloaded for 300 ms; the client waits 100 ms per try.
        LazyPirateServer server = new LazyPirateServer(ctx, LazyPirateServer.Settings.builder()
                .endpoint("tcp://127.0.0.1:0").simulation(FailureSimulation.builder().healthyRequests(1)
                        .overloadChance(1).overloadTime(Duration.ofMillis(300)).build()).build(), serverEvents);
        server.start();
        Recorder<LazyPirateClient.Event> events = new Recorder<>();
        LazyPirateClient client = client(server.endpoint(), Duration.ofMillis(100), 2, events);
        assertEquals(List.of("1"), client.request("1"));
        assertThrows(NoReplyException.class, () -> client.request("2"));
        assertTrue(serverEvents.count(e -> e.type() == LazyPirateServer.Event.Type.OVERLOADED) >= 1);
        assertEquals(1, events.count(e -> e.type() == LazyPirateClient.Event.Type.RETRYING));
        // A patient client gets its answer from the overloaded server.
        LazyPirateClient patient = client(server.endpoint(), Duration.ofSeconds(5), 1, null);
        assertEquals(List.of("3"), patient.request("3"));
        client.close();
        patient.close();
        server.close();
    }
}
