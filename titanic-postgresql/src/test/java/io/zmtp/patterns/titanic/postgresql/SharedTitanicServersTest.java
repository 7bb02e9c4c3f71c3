package io.zmtp.patterns.titanic.postgresql;

import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.majordomo.MajordomoBroker;
import io.zmtp.patterns.majordomo.MajordomoBrokerSettings;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.patterns.majordomo.MajordomoWorkerSettings;
import io.zmtp.patterns.titanic.TitanicClient;
import io.zmtp.patterns.titanic.TitanicEvent;
import io.zmtp.patterns.titanic.TitanicServer;
import io.zmtp.patterns.titanic.TitanicSettings;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.testing.Await;
import io.zmtp.testing.PostgresServer;
import io.zmtp.wire.Frames;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two Titanic servers on one PostgreSQL database behind one broker, in-process, in real time:
 * submissions go to either, replies come through either, and when one stops the other takes
 * over the requests it held, after the claim lease.
 */
class SharedTitanicServersTest {
    static final Duration T = Duration.ofSeconds(30);
    static PostgresServer db;

    @BeforeAll
    static void startDatabase() {
        db = PostgresServer.start();
    }

    @AfterAll
    static void stopDatabase() {
        db.close();
    }

    @Test
    void theSurvivorDispatchesTheStoppedServersRequests() throws Exception {
        PostgresStoreSettings settings = PostgresStoreSettings.builder().url(db.newDatabase("shared"))
                .claimLease(Duration.ofSeconds(1)).build();
        try (ZmtpContext ctx = ZmtpContext.create(2);
             PostgresTitanicStore storeA = PostgresTitanicStore.open(settings);
             PostgresTitanicStore storeB = PostgresTitanicStore.open(settings)) {
            MajordomoBroker broker = new MajordomoBroker(ctx, MajordomoBrokerSettings.builder()
                    .endpoints("tcp://127.0.0.1:0").build());
            Futures.await(broker.start(), T);
            List<TitanicEvent> eventsB = new CopyOnWriteArrayList<>();
            TitanicServer a = server(ctx, broker, storeA, e -> { });
            TitanicServer b = server(ctx, broker, storeB, eventsB::add);
            Await.until(T, () -> "both servers' workers registered",
                    () -> broker.workerCount(TitanicServer.REQUEST) == 4);
            TitanicClient client = new TitanicClient(ctx, broker.endpoint());
            Futures.await(client.start(), T);

            // no echo worker yet: every request waits with the server that stored it
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                ids.add(client.submit("echo", "request " + i));
            }
            long heldByA = Futures.await(a.pendingCount(), T);
            long heldByB = Futures.await(b.pendingCount(), T);
            assertEquals(20, heldByA + heldByB);
            assertTrue(heldByA > 0 && heldByB > 0, "the broker spread the submissions: " + heldByA + "/" + heldByB);

            a.close();                   // a stops: its requests stay stored, claimed until the lease lapses
            storeA.close();
            MajordomoWorker echo = new MajordomoWorker(ctx, broker.endpoint(), "echo",
                    io.zmtp.patterns.majordomo.MajordomoHandler.replying(request -> request),
                    MajordomoWorkerSettings.builder().executor(Runnable::run).build());
            Futures.await(echo.start(), T);

            Map<String, Frames> replies = new HashMap<>();
            Await.until(T, () -> replies.size() + " of 20 replies", () -> {
                for (String id : ids) {
                    if (!replies.containsKey(id)) {
                        Optional<Frames> r = client.poll(id);
                        r.ifPresent(f -> replies.put(id, f));
                    }
                }
                return replies.size() == ids.size();
            });
            for (int i = 0; i < ids.size(); i++) {
                assertEquals("request " + i, replies.get(ids.get(i)).frameString(0), "each request its own reply");
            }
            assertTrue(eventsB.stream().filter(e -> e instanceof TitanicEvent.Claimed)
                    .mapToInt(e -> ((TitanicEvent.Claimed) e).count()).sum() >= heldByA,
                    "b claimed a's requests: " + eventsB);
            echo.close();
            client.close();
            b.close();
            broker.close();
        }
    }

    static TitanicServer server(ZmtpContext ctx, MajordomoBroker broker, PostgresTitanicStore store,
                                java.util.function.Consumer<TitanicEvent> events) {
        TitanicServer t = new TitanicServer(ctx, store, TitanicSettings.builder().broker(broker.endpoint())
                .requestWorkers(2).replyWorkers(1).closeWorkers(1).retryInterval(Duration.ofMillis(200))
                .listener(events).build());
        Futures.await(t.start(), T);
        return t;
    }
}
