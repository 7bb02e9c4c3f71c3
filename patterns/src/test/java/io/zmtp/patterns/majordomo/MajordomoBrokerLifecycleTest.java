package io.zmtp.patterns.majordomo;

import io.zmtp.socket.ZmtpContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.zmtp.patterns.majordomo.MdpTesting.T;
import static io.zmtp.patterns.majordomo.MdpTesting.started;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The broker's lifecycle: its endpoints come from its settings, are bound by start() and reported after it. */
class MajordomoBrokerLifecycleTest {
    ZmtpContext ctx;

    @BeforeEach
    void open() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void close() {
        ctx.close(Duration.ofSeconds(5));
    }

    @Test
    void theBrokerBindsItsEndpointsInStartAndReportsThemBound() {
        MajordomoBroker broker = new MajordomoBroker(ctx, MajordomoBrokerSettings.builder()
                .endpoints("tcp://127.0.0.1:0", "tcp://127.0.0.1:0").build());
        try (broker) {
            assertEquals(List.of(), broker.endpoints(), "nothing bound before start");
            assertNull(broker.endpoint());
            started(broker);
            List<String> bound = broker.endpoints();
            assertEquals(2, bound.size());
            assertTrue(bound.get(0).startsWith("tcp://127.0.0.1:") && !bound.get(0).endsWith(":0"), bound.get(0));
            assertNotEquals(bound.get(0), bound.get(1), "each port 0 resolved to its own port");
            assertEquals(bound.get(0), broker.endpoint());
            for (String e : bound) { // both endpoints serve (MMI answers without a worker)
                try (MajordomoClient client = started(new MajordomoClient(ctx, e,
                        MajordomoClientSettings.builder().timeout(T).retries(1).build()))) {
                    assertEquals(List.of(MmiService.MMI_NOT_FOUND),
                            client.request(MmiService.MMI_SERVICE, "echo").bodyStrings(), e);
                }
            }
        }
    }

    @Test
    void startFailsWhenAnEndpointCannotBeBound() throws Exception {
        try (MajordomoBroker first = started(new MajordomoBroker(ctx,
                MajordomoBrokerSettings.builder().endpoints("tcp://127.0.0.1:0").build()))) {
            MajordomoBroker second = new MajordomoBroker(ctx,
                    MajordomoBrokerSettings.builder().endpoints(first.endpoint()).build());
            CompletionStage<Void> start = second.start();
            assertThrows(ExecutionException.class, () -> start.toCompletableFuture().get(T.toMillis(), TimeUnit.MILLISECONDS),
                    "the port is taken");
            second.closeAsync().toCompletableFuture().get(T.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Test
    void aBrokerClosedBeforeItStartedNeverBinds() throws Exception {
        MajordomoBroker broker = new MajordomoBroker(ctx,
                MajordomoBrokerSettings.builder().endpoints("tcp://127.0.0.1:0").build());
        broker.closeAsync().toCompletableFuture().get(T.toMillis(), TimeUnit.MILLISECONDS);
        assertThrows(ExecutionException.class,
                () -> broker.start().toCompletableFuture().get(T.toMillis(), TimeUnit.MILLISECONDS));
        assertEquals(List.of(), broker.endpoints());
    }

    @Test
    void settingsRefuseABrokerWithoutEndpoints() {
        assertThrows(IllegalArgumentException.class, () -> MajordomoBrokerSettings.builder().endpoints(List.of()));
        assertEquals(List.of("tcp://*:5555"), MajordomoBrokerSettings.DEFAULTS.endpoints(), "the guide's endpoint");
    }
}
