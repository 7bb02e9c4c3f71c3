package io.zmtp.patterns.majordomo;

import static io.zmtp.patterns.majordomo.MdpTesting.started;

import io.zmtp.patterns.majordomo.MdpTesting.Events;
import io.zmtp.patterns.majordomo.MdpTesting.RawWorker;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static io.zmtp.patterns.majordomo.MdpTesting.T;
import static io.zmtp.patterns.majordomo.MdpTesting.eventually;
import static io.zmtp.patterns.majordomo.MdpTesting.render;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The broker's limits: a client flooding past each one gets refusals (and nothing else breaks)
 * while a good client on another service is still served within the deadline; queued requests of
 * a client that disconnects are dropped; expiry runs in batches. Leaks are checked after each
 * test ({@code LeakCheck}).
 */
class MajordomoBrokerLimitsTest {
    ZmtpContext ctx;
    MajordomoBroker broker;
    String endpoint;
    Events events;
    final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    void startBroker(MajordomoBrokerSettings.Builder b) {
        events = new Events();
        broker = started(new MajordomoBroker(ctx, b.listener(events).requestExpiry(Duration.ofMinutes(1)).endpoints("tcp://127.0.0.1:0").build()));
        endpoint = broker.endpoint();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
        if (broker != null) {
            broker.close();
        }
        ctx.close(Duration.ofSeconds(5));
    }

    BlockingSocket dealer() {
        BlockingSocket s = ctx.blocking(SocketType.DEALER, SocketOptions.builder().linger(Duration.ZERO).build())
                .connect(endpoint);
        opened.add(() -> s.close(Duration.ZERO));
        return s;
    }

    RawWorker worker(String service) {
        RawWorker w = new RawWorker(ctx, endpoint, MdpVersion.V0_2).ready(service);
        opened.add(w);
        return w;
    }

    static ZmtpMessage request(String service, String body) {
        return MdpProtocol.clientRequest(MdpVersion.V0_2, true, service, Frames.of(body.getBytes()));
    }

    /** The good client's round trip on service "good": answered within the deadline. */
    static void served(BlockingSocket good, RawWorker goodWorker, String body) {
        good.send(request("good", body));
        goodWorker.reply(WorkerCommand.FINAL, goodWorker.expectRequest(body), "re " + body);
        List<String> reply = render(good.receive(T));
        assertEquals(List.of("MDPC02", "03", "good", "re " + body), reply, "the good client is served");
    }

    /** Each limit, how to set it low, and the requests of a flood that pass it. */
    enum Cap {
        REQUESTS_PER_SERVICE(b -> b.maxQueuedRequests(5), 5, "service queue full"),
        BYTES_PER_SERVICE(b -> b.maxQueuedBytesPerService(5 * (MajordomoBroker.REQUEST_OVERHEAD + 6)), 5,
                "service queue full"),
        BYTES_IN_ALL(b -> b.maxQueuedBytes(5 * (MajordomoBroker.REQUEST_OVERHEAD + 6)), 5, "broker queue full"),
        REQUESTS_PER_CLIENT(b -> b.maxQueuedRequestsPerClient(5), 5, "client has 5 requests queued"),
        SERVICES(b -> b.maxServices(3), 2, "services, the most it keeps"),
        SERVICE_NAME(b -> b.maxServiceNameBytes(4), 0, "service name longer than 4 bytes");

        final UnaryOperator<MajordomoBrokerSettings.Builder> set;
        final int accepted;
        final String reason;

        Cap(UnaryOperator<MajordomoBrokerSettings.Builder> set, int accepted, String reason) {
            this.set = set;
            this.accepted = accepted;
            this.reason = reason;
        }
    }

    @ParameterizedTest
    @EnumSource(Cap.class)
    void aFloodPastACapIsRefusedWhileAnotherServiceIsServed(Cap cap) {
        startBroker(cap.set.apply(MajordomoBrokerSettings.builder()));
        RawWorker goodWorker = worker("good");
        eventually("the good worker", () -> broker.workerCount("good") == 1);
        BlockingSocket good = dealer();
        BlockingSocket flooder = dealer();
        int flood = 40;
        for (int i = 0; i < flood; i++) {
            // SERVICES: a new service per request (the good one is the first); the others: one slow service
            String service = cap == Cap.SERVICES ? "s" + i : cap == Cap.SERVICE_NAME ? "toolong" : "slow";
            flooder.send(request(service, String.format("r%05d", i)));
        }
        served(good, goodWorker, "during");
        int refused = flood - cap.accepted;
        for (int i = 0; i < refused; i++) {
            ZmtpMessage m = flooder.receive(T);
            assertNotNull(m, "refusal " + i);
            List<String> f = render(m);
            assertEquals("MDPC02", f.get(0));
            assertEquals("03", f.get(1), "a FINAL");
            assertEquals(MdpProtocol.REFUSED, f.get(3));
            assertTrue(f.get(4).contains(cap.reason), f.get(4));
        }
        events.awaitCount(MajordomoEvent.Type.REQUEST_REJECTED, refused);
        assertEquals(cap.accepted, broker.queuedRequests());
        served(good, goodWorker, "after");
        assertEquals(refused, events.count(MajordomoEvent.Type.REQUEST_REJECTED));
    }

    @Test
    void aFloodOfLargeRequestsStopsAtTheByteBudgetAndHoldsNoReadBuffers() {
        startBroker(MajordomoBrokerSettings.builder().maxQueuedBytes(1024 * 1024));
        RawWorker goodWorker = worker("good");
        eventually("the good worker", () -> broker.workerCount("good") == 1);
        BlockingSocket good = dealer();
        BlockingSocket flooder = dealer();
        byte[] big = new byte[64 * 1024];
        int flood = 64; // 4 MiB against a 1 MiB budget
        for (int i = 0; i < flood; i++) {
            flooder.send(MdpProtocol.clientRequest(MdpVersion.V0_2, true, "slow", Frames.of(big)));
        }
        served(good, goodWorker, "during");
        int fit = (int) (1024 * 1024 / (big.length + MajordomoBroker.REQUEST_OVERHEAD));
        events.awaitCount(MajordomoEvent.Type.REQUEST_REJECTED, flood - fit);
        assertEquals(fit, broker.queuedRequests("slow"));
        assertTrue(broker.queuedBytes() <= 1024 * 1024);
        for (int i = 0; i < flood - fit; i++) {
            List<String> f = render(flooder.receive(T));
            assertEquals(MdpProtocol.REFUSED, f.get(3));
        }
        served(good, goodWorker, "after");
    }

    @Test
    void aClientsQueuedRequestsAreDroppedWhenItDisconnects() {
        startBroker(MajordomoBrokerSettings.builder());
        BlockingSocket gone = dealer();
        BlockingSocket stays = dealer();
        for (int i = 0; i < 50; i++) {
            gone.send(request("nobody", "gone" + i));
        }
        for (int i = 0; i < 5; i++) {
            stays.send(request("nobody", "stays" + i));
        }
        eventually("55 requests queued", () -> broker.queuedRequests() == 55);
        assertEquals(2, broker.clientCount());
        long bytes = broker.queuedBytes();
        gone.close(Duration.ZERO);
        MajordomoEvent e = events.await(MajordomoEvent.Type.CLIENT_GONE);
        assertEquals("50 queued request(s) dropped", e.detail());
        assertEquals(5, broker.queuedRequests("nobody"));
        assertEquals(1, broker.clientCount());
        assertTrue(bytes > 5 * (MajordomoBroker.REQUEST_OVERHEAD + 6));
        assertEquals(5 * (MajordomoBroker.REQUEST_OVERHEAD + 6), broker.queuedBytes(), "the bytes of the dropped requests are given back");
        RawWorker w = worker("nobody");
        for (int i = 0; i < 5; i++) {
            w.reply(WorkerCommand.FINAL, w.expectRequest("stays" + i), "ok");
            assertEquals(List.of("MDPC02", "03", "nobody", "ok"), render(stays.receive(T)));
        }
        assertEquals(0, broker.queuedRequests());
        assertEquals(0, broker.queuedBytes());
    }

    @Test
    void requestsExpireInBatches() {
        events = new Events();
        broker = started(new MajordomoBroker(ctx, MajordomoBrokerSettings.builder().listener(events)
                .heartbeatInterval(Duration.ofMillis(20)).requestExpiry(Duration.ofMillis(50)).expiryBatch(7).endpoints("tcp://127.0.0.1:0").build()));
        endpoint = broker.endpoint();
        BlockingSocket client = dealer();
        for (int i = 0; i < 100; i++) {
            client.send(request("nobody", "r" + i));
        }
        events.awaitCount(MajordomoEvent.Type.REQUEST_EXPIRED, 100);
        assertEquals(0, broker.queuedRequests());
        assertEquals(0, broker.clientCount());
        assertEquals(List.of(), broker.services());
    }

    @Test
    void theClientApisRecogniseARefusal() {
        startBroker(MajordomoBrokerSettings.builder().maxServiceNameBytes(4));
        try (MajordomoClient client = started(new MajordomoClient(ctx, endpoint, MajordomoClientSettings.builder()
                .version(MdpVersion.V0_1).timeout(T).build()))) {
            MajordomoReply r = client.request("toolong", "x");
            assertTrue(r.isRefused(), r.toString());
            assertEquals("service name longer than 4 bytes", r.refusalReason());
        }
    }

    @Test
    void aMultiFrameRequestIsQueuedAndForwardedWhole() {
        startBroker(MajordomoBrokerSettings.builder());
        BlockingSocket client = dealer();
        client.send(MdpProtocol.clientRequest(MdpVersion.V0_2, true, "later",
                Frames.of("a".getBytes(), new byte[0], "ccc".getBytes())));
        eventually("queued", () -> broker.queuedRequests("later") == 1);
        RawWorker w = worker("later");
        w.reply(WorkerCommand.FINAL, w.expectRequest("a", "", "ccc"), "done");
        assertEquals(List.of("MDPC02", "03", "later", "done"), render(client.receive(T)));
    }
}
