package io.zmtp.patterns;

import io.zmtp.patterns.kit.Heartbeat;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.kit.ManualClock;
import io.zmtp.patterns.kit.ReconnectStoppedException;
import io.zmtp.patterns.majordomo.MajordomoEvent;
import io.zmtp.patterns.majordomo.MajordomoHandler;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.patterns.majordomo.MajordomoWorkerSettings;
import io.zmtp.patterns.paranoidpirate.ParanoidPirateWorker;
import io.zmtp.patterns.simplepirate.SimplePirateWorker;
import io.zmtp.socket.ContextProbe;
import io.zmtp.socket.ReconnectStop;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.testing.FreePorts;
import io.zmtp.testing.Recorder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static io.zmtp.patterns.PatternTesting.T;
import static io.zmtp.patterns.PatternTesting.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker whose socket stops reconnecting (here {@link ReconnectStop#CONNECTION_REFUSED} against
 * a port nothing listens on) closes itself rather than idle for ever: its {@code terminated()}
 * fails with a {@link ReconnectStoppedException} naming the endpoint and the reason, and what it
 * held on its loop is released (no timer left on its clock, no socket open, the Majordomo
 * worker's handler thread gone). A Majordomo worker given two brokers moves to the second when the
 * first stops, and closes only when both have.
 */
class WorkerReconnectStopTest {
    private static final SocketOptions STOP_ON_REFUSAL = SocketOptions.builder().linger(Duration.ZERO)
            .reconnectStop(ReconnectStop.CONNECTION_REFUSED).build();

    private final ZmtpContext ctx = ZmtpContext.create(1);
    private final ManualClock clock = new ManualClock();

    @AfterEach
    void close() {
        ctx.close(Duration.ofSeconds(5));
    }

    @Test
    void aMajordomoWorkerWhoseBrokerRefusesCloses() {
        String closed = "tcp://127.0.0.1:" + FreePorts.next();
        MajordomoWorker w = new MajordomoWorker(ctx, closed, "echo", MajordomoHandler.echo(),
                MajordomoWorkerSettings.builder().clock(clock).socketOptions(STOP_ON_REFUSAL).build());
        w.start();
        assertStoppedAt(w, closed);
        eventually("the handler's thread ended", () -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().equals("mdworker-echo") && t.isAlive()));
    }

    @Test
    void aMajordomoWorkerOfTwoBrokersClosesOnlyWhenBothStopped() {
        String first = "tcp://127.0.0.1:" + FreePorts.next();
        String second = "tcp://127.0.0.1:" + FreePorts.next();
        Recorder<MajordomoEvent> events = new Recorder<>();
        MajordomoWorker w = new MajordomoWorker(ctx, List.of(first, second), "echo", MajordomoHandler.echo(),
                MajordomoWorkerSettings.builder().clock(clock).socketOptions(STOP_ON_REFUSAL).listener(events).build());
        w.start();
        assertStoppedAt(w, second);
        List<String> connecting = events.all().stream().filter(e -> e.type() == MajordomoEvent.Type.CONNECTING)
                .map(MajordomoEvent::peer).toList();
        assertEquals(List.of(first, second), connecting, "the second broker tried once the first stopped");
        assertTrue(events.all().stream().anyMatch(e -> e.type() == MajordomoEvent.Type.BROKER_LOST && first.equals(e.peer())
                && e.detail().contains("refused")), events.all().toString());
    }

    @Test
    void aParanoidPirateWorkerWhoseQueueRefusesCloses() {
        String closed = "tcp://127.0.0.1:" + FreePorts.next();
        ParanoidPirateWorker w = new ParanoidPirateWorker(ctx, ParanoidPirateWorker.Settings.builder().endpoint(closed)
                .clock(clock).heartbeat(Heartbeat.of(Duration.ofMillis(100), 3)).socketOptions(STOP_ON_REFUSAL)
                .build(), e -> { });
        w.start();
        assertStoppedAt(w, closed);
    }

    @Test
    void aSimplePirateWorkerWhoseQueueRefusesCloses() {
        String closed = "tcp://127.0.0.1:" + FreePorts.next();
        SimplePirateWorker w = new SimplePirateWorker(ctx, SimplePirateWorker.settings().endpoint(closed).clock(clock)
                .socketOptions(STOP_ON_REFUSAL).build(), e -> { });
        w.start();
        assertStoppedAt(w, closed);
    }

    /** {@code w}'s terminated() fails with the stop at {@code endpoint}, and nothing of it is left on its loop. */
    private void assertStoppedAt(LoopComponent w, String endpoint) {
        CompletableFuture<Void> terminated = w.terminated().toCompletableFuture();
        CompletionException failed = assertThrows(CompletionException.class,
                () -> terminated.orTimeout(T.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS).join());
        ReconnectStoppedException stop = assertInstanceOf(ReconnectStoppedException.class, failed.getCause());
        assertEquals(endpoint, stop.endpoint());
        assertTrue(stop.reason().contains("refused"), stop.getMessage());
        assertEquals("stopped reconnecting to " + endpoint + ": " + stop.reason(), stop.getMessage());
        assertEquals(0, clock.pendingTimers(), () -> "timers left: " + clock);
        eventually(() -> "the worker's sockets closed: " + ContextProbe.openSockets(ctx) + " open",
                () -> ContextProbe.openSockets(ctx) == 0);
    }
}
