package io.zmtp.patterns.titanic;

import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.ManualClock;
import io.zmtp.patterns.majordomo.MajordomoBroker;
import io.zmtp.patterns.majordomo.MajordomoBrokerSettings;
import io.zmtp.patterns.majordomo.MajordomoClientSettings;
import io.zmtp.patterns.majordomo.MajordomoHandler;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.testing.Await;
import io.zmtp.wire.Frames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link TitanicClient#call} against a titanic.request that answers 500 every time (a Titanic
 * whose store is down), on the manual clock: the pause between tries doubles from retryDelay and
 * stays at retryDelayMax, and a try goes out exactly when its pause ends.
 */
class TitanicClientBackoffTest {
    final ZmtpContext ctx = ZmtpContext.create(2);
    MajordomoBroker broker;
    MajordomoWorker failing;
    TitanicClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (failing != null) {
            failing.close();
        }
        if (broker != null) {
            broker.close();
        }
        ctx.close(Duration.ofSeconds(5));
    }

    @Test
    void aFailingCallIsTriedAgainAfterPausesThatDoubleUpToTheMaximum() throws Exception {
        broker = new MajordomoBroker(ctx, MajordomoBrokerSettings.builder().endpoints("tcp://127.0.0.1:0").build());
        Futures.await(broker.start(), Duration.ofSeconds(10));
        AtomicInteger tries = new AtomicInteger();
        failing = new MajordomoWorker(ctx, broker.endpoint(), TitanicServer.REQUEST,
                MajordomoHandler.replying(request -> {
                    tries.incrementAndGet();
                    return Frames.of(TitanicStatus.ERROR.frame());
                }));
        Futures.await(failing.start(), Duration.ofSeconds(10));
        Await.until("the failing worker registered", () -> broker.workerCount(TitanicServer.REQUEST) == 1);

        ManualClock clock = new ManualClock();
        client = new TitanicClient(ctx, broker.endpoint(), TitanicClientSettings.builder().clock(clock)
                .majordomo(MajordomoClientSettings.builder().timeout(Duration.ofSeconds(600)).build())
                .retryDelay(Duration.ofSeconds(1)).retryDelayMax(Duration.ofSeconds(10)).build());
        Futures.await(client.start(), Duration.ofSeconds(10));
        CompletableFuture<Frames> call = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                call.complete(client.call("echo", Frames.ofStrings("hi"), Duration.ofSeconds(120)));
            } catch (RuntimeException e) {
                call.completeExceptionally(e);
            }
        }, "titanic-caller");
        caller.setDaemon(true);
        caller.start();

        Await.until(() -> "the first try: " + tries.get(), () -> tries.get() == 1);
        for (long pause : List.of(1L, 2L, 4L, 8L, 10L, 10L, 10L)) {
            int before = tries.get();
            // the client is pausing (its 500 came): its pause timer is set
            Await.until(() -> "a pause of " + pause + " s after try " + before + " (" + clock + ")",
                    () -> clock.hasTimerIn(Duration.ofSeconds(pause)));
            clock.advance(Duration.ofSeconds(pause).minusMillis(1));
            assertEquals(before, tries.get(), "no try before the " + pause + " s pause ends");
            clock.advance(Duration.ofMillis(1));
            Await.until(() -> "a try " + pause + " s after try " + before + ": " + tries.get(),
                    () -> tries.get() == before + 1);
        }
        caller.interrupt();                     // the pause of a user thread ends with an interrupt
        Exception e = assertThrows(Exception.class, () -> call.get(10, java.util.concurrent.TimeUnit.SECONDS));
        assertInstanceOf(TitanicException.class, e.getCause(), String.valueOf(e.getCause()));
    }
}
