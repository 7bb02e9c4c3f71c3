package io.zmtp.patterns.lazypirate;

import io.zmtp.patterns.kit.FailureSimulation;
import io.zmtp.testing.Recorder;
import io.zmtp.patterns.kit.WorkerEvent;
import io.zmtp.patterns.kit.NoReplyException;
import io.zmtp.patterns.kit.RequestEvent;
import io.zmtp.patterns.kit.ManualClock;
import io.zmtp.patterns.kit.PatternClock;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.zmtp.patterns.PatternTesting.eventually;
import static io.zmtp.patterns.PatternTesting.get;
import static io.zmtp.patterns.PatternTesting.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The Lazy Pirate server: echo, and the guide's simulated crash and overload (on the manual clock). */
class LazyPirateServerTest {
    ZmtpContext ctx;
    final ManualClock clock = new ManualClock();

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() {
        ctx.close(Duration.ofSeconds(5));
    }

    LazyPirateServer server(FailureSimulation simulation, PatternClock c, Recorder<WorkerEvent> events) {
        LazyPirateServer server = new LazyPirateServer(ctx, LazyPirateServer.settings()
                .endpoint("tcp://127.0.0.1:0").simulation(simulation).clock(c).build(), events);
        get(server.start().toCompletableFuture());
        return server;
    }

    LazyPirateClient client(String ep, Duration timeout, int retries, PatternClock c, Recorder<RequestEvent> events) {
        LazyPirateClient client = new LazyPirateClient(ctx, LazyPirateClient.Settings.builder().endpoint(ep)
                .timeout(timeout).retries(retries).socketOptions(LazyPirateClientTest.FAST_RECONNECT).clock(c).build(),
                events);
        get(client.start().toCompletableFuture());
        return client;
    }

    static Throwable failure(CompletableFuture<ZmtpMessage> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        return e.getCause();
    }

    @Test
    void noFaultsUnlessAskedForOnRealTime() {
        Recorder<WorkerEvent> events = new Recorder<>();
        LazyPirateServer server = server(FailureSimulation.NONE, PatternClock.system(), events);
        try (LazyPirateClient client = client(server.endpoint(), Duration.ofSeconds(5), 1, PatternClock.system(), null)) {
            for (int i = 1; i <= 30; i++) {
                assertEquals(List.of(Integer.toString(i)), client.request(Integer.toString(i)));
            }
        }
        assertEquals(30, events.count(e -> e instanceof WorkerEvent.Request));
        assertFalse(server.terminated().toCompletableFuture().isDone());
        server.close();
    }

    @Test
    void aSimulatedCrashClosesTheServerAndTheClientGivesUpAfterItsTries() {
        Recorder<WorkerEvent> events = new Recorder<>();
        LazyPirateServer server = server(FailureSimulation.builder().healthyRequests(2).crashChance(1).build(), clock,
                events);
        Recorder<RequestEvent> clientEvents = new Recorder<>();
        LazyPirateClient client = client(server.endpoint(), Duration.ofMillis(100), 2, clock, clientEvents);
        assertEquals(List.of("1"), client.request("1"));
        assertEquals(List.of("2"), client.request("2"));
        CompletableFuture<ZmtpMessage> three = client.requestAsync(ZmtpMessage.ofStrings("3"));
        get(server.terminated().toCompletableFuture());
        WorkerEvent.Crashing crash = (WorkerEvent.Crashing) events.await("the crash", e -> e instanceof WorkerEvent.Crashing);
        assertEquals(3, crash.request());
        clock.advance(Duration.ofMillis(100));
        assertFalse(three.isDone(), "one try of two");
        clock.advance(Duration.ofMillis(100));
        assertEquals(2, assertInstanceOf(NoReplyException.class, failure(three)).tries());
        client.close();
    }

    @Test
    void aSimulatedOverloadAnswersLateAndAnImpatientClientRetries() {
        Recorder<WorkerEvent> serverEvents = new Recorder<>();
        // Every request after the first is overloaded for 300 ms; the client waits 100 ms per try.
        LazyPirateServer server = server(FailureSimulation.builder().healthyRequests(1).overloadChance(1)
                .overloadTime(Duration.ofMillis(300)).build(), clock, serverEvents);
        Recorder<RequestEvent> events = new Recorder<>();
        LazyPirateClient client = client(server.endpoint(), Duration.ofMillis(100), 2, clock, events);
        assertEquals(List.of("1"), client.request("1"));
        CompletableFuture<ZmtpMessage> two = client.requestAsync(ZmtpMessage.ofStrings("2"));
        serverEvents.await("overloaded", e -> e instanceof WorkerEvent.Overloaded);
        clock.advance(Duration.ofMillis(100));
        events.await("the retry", e -> e instanceof RequestEvent.Sent s && s.attempt() == 2);
        clock.advance(Duration.ofMillis(100));
        assertInstanceOf(NoReplyException.class, failure(two));
        assertEquals(1, events.count(e -> e instanceof RequestEvent.Retrying));
        // A patient client gets its answer from the overloaded server, once the overloads before it are over
        // (the retry of "2" may be dropped with the impatient client's closed connection, or answered first).
        LazyPirateClient patient = client(server.endpoint(), Duration.ofSeconds(5), 1, PatternClock.system(), null);
        CompletableFuture<ZmtpMessage> three = patient.requestAsync(ZmtpMessage.ofStrings("3"));
        for (int overloads = 1; overloads <= 3 && !three.isDone(); overloads++) {
            int n = overloads;
            eventually("overload " + n + " or the answer",
                    () -> three.isDone() || serverEvents.count(e -> e instanceof WorkerEvent.Overloaded) >= n);
            clock.advance(Duration.ofMillis(300));
        }
        assertEquals(List.of("3"), strings(get(three)));
        client.close();
        patient.close();
        server.close();
    }
}
