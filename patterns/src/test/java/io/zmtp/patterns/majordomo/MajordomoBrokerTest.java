package io.zmtp.patterns.majordomo;

import static io.zmtp.patterns.majordomo.MdpTesting.started;

import io.netty.buffer.ByteBufUtil;
import io.zmtp.patterns.majordomo.MdpTesting.Events;
import io.zmtp.patterns.majordomo.MdpTesting.RawWorker;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
import io.zmtp.patterns.kit.ManualClock;
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

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.zmtp.patterns.majordomo.MdpTesting.QUIET;
import static io.zmtp.patterns.majordomo.MdpTesting.T;
import static io.zmtp.patterns.majordomo.MdpTesting.eventually;
import static io.zmtp.patterns.majordomo.MdpTesting.render;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The broker at the wire level: hand-driven clients and workers of both versions, frame by frame,
 * against {@link MajordomoBroker}. Tests about heartbeats and expiry run the broker on a
 * {@link ManualClock} (its timers move only when the test moves them); the sockets stay real.
 */
class MajordomoBrokerTest {
    /** The heartbeat interval of the tests on the manual clock (it takes no real time). */
    static final Duration BEAT = Duration.ofSeconds(1);
    final ManualClock clock = new ManualClock();
    ZmtpContext ctx;
    MajordomoBroker broker;
    String endpoint;
    Events events;
    final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
        startBroker(MajordomoBrokerSettings.builder());
    }

    void startBroker(MajordomoBrokerSettings.Builder b) {
        if (broker != null) {
            broker.close();
        }
        events = new Events();
        broker = started(new MajordomoBroker(ctx, b.listener(events).endpoints("tcp://127.0.0.1:0").build()));
        endpoint = broker.endpoint();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
        broker.close();
        ctx.close(Duration.ofSeconds(5));
    }

    RawWorker worker(MdpVersion v, String service) {
        return raw(v).ready(service);
    }

    RawWorker raw(MdpVersion v) {
        RawWorker w = new RawWorker(ctx, endpoint, v);
        opened.add(w);
        return w;
    }

    void awaitWorkers(String service, int n) {
        eventually(n + " workers for " + service, () -> broker.workerCount(service) == n);
    }

    BlockingSocket reqClient() {
        return track(ctx.blocking(SocketType.REQ, SocketOptions.builder().linger(Duration.ZERO).build()).connect(endpoint));
    }

    BlockingSocket dealerClient() {
        return track(ctx.blocking(SocketType.DEALER, SocketOptions.builder().linger(Duration.ZERO).build()).connect(endpoint));
    }

    BlockingSocket track(BlockingSocket s) {
        opened.add(() -> s.close(Duration.ZERO));
        return s;
    }

    static Frames body(String... frames) {
        return Frames.ofStrings(frames);
    }

    static ZmtpMessage request(MdpVersion v, boolean dealer, String service, String... body) {
        return MdpProtocol.clientRequest(v, dealer, service, body(body));
    }

    // ------------------------------------------------------------------ round trips

    @Test
    void v01ReqClientAndV01WorkerRoundTrip() {
        RawWorker w = worker(MdpVersion.V0_1, "echo");
        awaitWorkers("echo", 1);
        BlockingSocket client = reqClient();
        client.send(request(MdpVersion.V0_1, false, "echo", "hello", "world"));
        byte[] address = w.expectRequest("hello", "world");
        w.reply(WorkerCommand.REPLY, address, "HELLO", "WORLD");
        assertEquals(List.of("MDPC01", "echo", "HELLO", "WORLD"), client.receiveStrings(T));
    }

    @Test
    void v01DealerClientKeepsTheEmptyFrame() {
        RawWorker w = worker(MdpVersion.V0_1, "echo");
        awaitWorkers("echo", 1);
        BlockingSocket client = dealerClient();
        client.send(request(MdpVersion.V0_1, true, "echo", "a"));
        w.reply(WorkerCommand.REPLY, w.expectRequest("a"), "b");
        assertEquals(List.of("", "MDPC01", "echo", "b"), client.receiveStrings(T));
    }

    @Test
    void v02ClientAndWorkerStreamPartialsThenFinal() {
        RawWorker w = worker(MdpVersion.V0_2, "stream");
        awaitWorkers("stream", 1);
        BlockingSocket client = dealerClient();
        client.send(request(MdpVersion.V0_2, true, "stream", "count"));
        byte[] address = w.expectRequest("count");
        w.reply(WorkerCommand.PARTIAL, address, "1");
        w.reply(WorkerCommand.PARTIAL, address, "2", "two");
        w.reply(WorkerCommand.FINAL, address, "3");
        assertEquals(List.of("MDPC02", "02", "stream", "1"), render(client.receive(T)));
        assertEquals(List.of("MDPC02", "02", "stream", "2", "two"), render(client.receive(T)));
        assertEquals(List.of("MDPC02", "03", "stream", "3"), render(client.receive(T)));
    }

    @Test
    void v02ClientServedByV01WorkerGetsAFinal() {
        RawWorker w = worker(MdpVersion.V0_1, "echo");
        awaitWorkers("echo", 1);
        BlockingSocket client = dealerClient();
        client.send(request(MdpVersion.V0_2, true, "echo", "x"));
        w.reply(WorkerCommand.REPLY, w.expectRequest("x"), "y");
        assertEquals(List.of("MDPC02", "03", "echo", "y"), render(client.receive(T)));
    }

    @Test
    void v01ClientOfAStreamingV02WorkerGetsOneReplyOfEveryFrameInOrder() {
        RawWorker w = worker(MdpVersion.V0_2, "stream");
        awaitWorkers("stream", 1);
        BlockingSocket client = reqClient();
        client.send(request(MdpVersion.V0_1, false, "stream", "go"));
        byte[] address = w.expectRequest("go");
        w.reply(WorkerCommand.PARTIAL, address, "a");
        w.reply(WorkerCommand.PARTIAL, address, "b", "c");
        assertNull(client.receive(QUIET), "a 0.1 client sees nothing before the FINAL");
        w.reply(WorkerCommand.FINAL, address, "d");
        assertEquals(List.of("MDPC01", "stream", "a", "b", "c", "d"), client.receiveStrings(T));
        // the worker is idle again: the next request reaches it
        client.send(request(MdpVersion.V0_1, false, "stream", "again"));
        w.reply(WorkerCommand.FINAL, w.expectRequest("again"), "only");
        assertEquals(List.of("MDPC01", "stream", "only"), client.receiveStrings(T));
    }

    @Test
    void aStreamOverTheAggregationLimitIsDroppedWholeForAV01Client() {
        startBroker(MajordomoBrokerSettings.builder().maxAggregatedReplyBytes(10));
        RawWorker w = worker(MdpVersion.V0_2, "stream");
        awaitWorkers("stream", 1);
        BlockingSocket client = dealerClient();
        client.send(request(MdpVersion.V0_1, true, "stream", "big"));
        byte[] address = w.expectRequest("big");
        w.reply(WorkerCommand.PARTIAL, address, "123456");
        w.reply(WorkerCommand.PARTIAL, address, "789012");
        w.reply(WorkerCommand.FINAL, address, "end");
        events.await(MajordomoEvent.Type.REPLY_DROPPED);
        assertNull(client.receive(QUIET), "no truncated reply");
        client.send(request(MdpVersion.V0_1, true, "stream", "small"));
        w.reply(WorkerCommand.FINAL, w.expectRequest("small"), "ok");
        assertEquals(List.of("", "MDPC01", "stream", "ok"), client.receiveStrings(T));
    }

    @Test
    void mixedVersionsShareOneService() {
        RawWorker w1 = worker(MdpVersion.V0_1, "echo");
        awaitWorkers("echo", 1);
        RawWorker w2 = worker(MdpVersion.V0_2, "echo");
        awaitWorkers("echo", 2);
        BlockingSocket c1 = reqClient();
        BlockingSocket c2 = dealerClient();
        c1.send(request(MdpVersion.V0_1, false, "echo", "from 0.1"));
        byte[] a1 = w1.expectRequest("from 0.1");
        c2.send(request(MdpVersion.V0_2, true, "echo", "from 0.2"));
        byte[] a2 = w2.expectRequest("from 0.2");
        w2.reply(WorkerCommand.FINAL, a2, "0.2 worker");
        w1.reply(WorkerCommand.REPLY, a1, "0.1 worker");
        assertEquals(List.of("MDPC01", "echo", "0.1 worker"), c1.receiveStrings(T));
        assertEquals(List.of("MDPC02", "03", "echo", "0.2 worker"), render(c2.receive(T)));
    }

    @Test
    void leastRecentlyUsedWorkerGetsTheNextRequest() {
        RawWorker a = worker(MdpVersion.V0_1, "svc");
        awaitWorkers("svc", 1);
        RawWorker b = worker(MdpVersion.V0_1, "svc");
        awaitWorkers("svc", 2);
        RawWorker c = worker(MdpVersion.V0_1, "svc");
        awaitWorkers("svc", 3);
        BlockingSocket client = dealerClient();
        client.send(request(MdpVersion.V0_1, true, "svc", "1"));
        byte[] r1 = a.expectRequest("1");
        client.send(request(MdpVersion.V0_1, true, "svc", "2"));
        byte[] r2 = b.expectRequest("2");
        // c is now the longest idle; after b and then a finish, the order is c, b, a
        b.reply(WorkerCommand.REPLY, r2, "2");
        assertEquals("2", client.receiveStrings(T).get(3));
        a.reply(WorkerCommand.REPLY, r1, "1");
        assertEquals("1", client.receiveStrings(T).get(3));
        client.send(request(MdpVersion.V0_1, true, "svc", "3"));
        c.expectRequest("3");
        client.send(request(MdpVersion.V0_1, true, "svc", "4"));
        b.expectRequest("4");
        client.send(request(MdpVersion.V0_1, true, "svc", "5"));
        a.expectRequest("5");
    }

    // ------------------------------------------------------------------ MMI

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void mmiServiceAnswers200Or404And501ForOtherNames(MdpVersion v) {
        worker(MdpVersion.V0_1, "echo");
        awaitWorkers("echo", 1);
        BlockingSocket client = dealerClient();
        List<String> prefix = v == MdpVersion.V0_1 ? List.of("", "MDPC01") : List.of("MDPC02", "03");
        client.send(request(v, true, "mmi.service", "echo"));
        assertEquals(concat(prefix, "mmi.service", "200"), render(client.receive(T)));
        client.send(request(v, true, "mmi.service", "nobody"));
        assertEquals(concat(prefix, "mmi.service", "404"), render(client.receive(T)));
        client.send(request(v, true, "mmi.whatever", "echo"));
        assertEquals(concat(prefix, "mmi.whatever", "501"), render(client.receive(T)));
    }

    @Test
    void mmiServiceSays404OnceTheLastWorkerIsGoneEvenWithRequestsQueued() {
        RawWorker w = worker(MdpVersion.V0_2, "echo");
        awaitWorkers("echo", 1);
        BlockingSocket client = dealerClient();
        w.command(WorkerCommand.DISCONNECT);
        events.await(MajordomoEvent.Type.WORKER_LEFT);
        client.send(request(MdpVersion.V0_2, true, "echo", "queued"));
        eventually("request queued", () -> broker.queuedRequests("echo") == 1);
        client.send(request(MdpVersion.V0_2, true, "mmi.service", "echo"));
        assertEquals(List.of("MDPC02", "03", "mmi.service", "404"), render(client.receive(T)));
    }

    static List<String> concat(List<String> prefix, String... rest) {
        List<String> l = new ArrayList<>(prefix);
        l.addAll(List.of(rest));
        return l;
    }

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void aWorkerMayNotRegisterAnMmiService(MdpVersion v) {
        RawWorker w = worker(v, "mmi.service");
        assertEquals(w.commandFrames(WorkerCommand.DISCONNECT), w.next());
        events.await(MajordomoEvent.Type.WORKER_DISCONNECTED);
        assertEquals(0, broker.workerCount());
    }

    // ------------------------------------------------------------------ queues and expiry

    @Test
    void requestsForAServiceWithoutWorkersWaitForOne() {
        BlockingSocket client = dealerClient();
        client.send(request(MdpVersion.V0_2, true, "late", "first"));
        client.send(request(MdpVersion.V0_2, true, "late", "second"));
        eventually("two requests queued", () -> broker.queuedRequests("late") == 2);
        RawWorker w = worker(MdpVersion.V0_2, "late");
        w.reply(WorkerCommand.FINAL, w.expectRequest("first"), "1");
        w.reply(WorkerCommand.FINAL, w.expectRequest("second"), "2");
        assertEquals(List.of("MDPC02", "03", "late", "1"), render(client.receive(T)));
        assertEquals(List.of("MDPC02", "03", "late", "2"), render(client.receive(T)));
    }

    @Test
    void requestsForAServiceWithoutWorkersExpire() {
        startBroker(MajordomoBrokerSettings.builder().clock(clock).heartbeatInterval(BEAT)
                .requestExpiry(BEAT.multipliedBy(4)));
        BlockingSocket client = dealerClient();
        client.send(request(MdpVersion.V0_1, true, "ghost", "boo"));
        eventually("request queued", () -> broker.queuedRequests("ghost") == 1);
        clock.advance(BEAT.multipliedBy(4).minusMillis(1));
        assertEquals(1, broker.queuedRequests("ghost"), "still within its expiry");
        assertFalse(events.has(MajordomoEvent.Type.REQUEST_EXPIRED));
        clock.advance(BEAT); // the tick after the expiry
        MajordomoEvent e = events.await(MajordomoEvent.Type.REQUEST_EXPIRED);
        assertEquals("ghost", e.service());
        assertEquals(0, broker.queuedRequests("ghost"));
        assertFalse(broker.services().contains("ghost"), "the empty service is forgotten");
        RawWorker w = worker(MdpVersion.V0_1, "ghost");
        awaitWorkers("ghost", 1);
        assertNull(w.pollNonHeartbeat(QUIET), "the expired request is not delivered");
    }

    @Test
    void queuedRequestsStartAgingWhenTheLastWorkerLeaves() {
        Duration expiry = BEAT.multipliedBy(4);
        startBroker(MajordomoBrokerSettings.builder().clock(clock).heartbeatInterval(BEAT).heartbeatLiveness(10)
                .requestExpiry(expiry));
        RawWorker w = worker(MdpVersion.V0_2, "busy");
        awaitWorkers("busy", 1);
        BlockingSocket client = dealerClient();
        client.send(request(MdpVersion.V0_2, true, "busy", "one"));
        byte[] clientAddress = w.expectRequest("one"); // the worker holds it: "two" waits in the queue
        client.send(request(MdpVersion.V0_2, true, "busy", "two"));
        eventually("second request queued", () -> broker.queuedRequests("busy") == 1);
        clock.advance(expiry.plus(BEAT)); // older than the expiry, but the service has a worker
        assertFalse(events.has(MajordomoEvent.Type.REQUEST_EXPIRED));
        assertEquals(1, broker.queuedRequests("busy"));
        w.command(WorkerCommand.DISCONNECT);
        events.await(MajordomoEvent.Type.WORKER_LEFT);
        clock.advance(expiry.minus(BEAT)); // its age counts from the worker leaving
        assertFalse(events.has(MajordomoEvent.Type.REQUEST_EXPIRED), "aging starts when the last worker leaves");
        assertEquals(1, broker.queuedRequests("busy"));
        clock.advance(BEAT.multipliedBy(2)); // past the expiry, and the tick after it
        MajordomoEvent expired = events.await(MajordomoEvent.Type.REQUEST_EXPIRED);
        assertEquals(0, broker.queuedRequests("busy"));
        assertEquals("busy", expired.service());
        assertEquals(ByteBufUtil.hexDump(clientAddress), expired.peer(), "the expired request is the same client's");
    }

    @Test
    void aFullServiceQueueRejectsNewRequests() {
        startBroker(MajordomoBrokerSettings.builder().maxQueuedRequests(2));
        BlockingSocket client = dealerClient();
        for (int i = 0; i < 3; i++) {
            client.send(request(MdpVersion.V0_2, true, "slow", "r" + i));
        }
        events.await(MajordomoEvent.Type.REQUEST_REJECTED);
        assertEquals(2, broker.queuedRequests("slow"));
        RawWorker w = worker(MdpVersion.V0_2, "slow");
        w.reply(WorkerCommand.FINAL, w.expectRequest("r0"), "0");
        w.reply(WorkerCommand.FINAL, w.expectRequest("r1"), "1");
        assertNull(w.pollNonHeartbeat(QUIET));
    }

    // ------------------------------------------------------------------ unexpected commands

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void aSecondReadyIsAnsweredWithDisconnect(MdpVersion v) {
        RawWorker w = worker(v, "echo");
        awaitWorkers("echo", 1);
        w.ready("echo");
        assertEquals(w.commandFrames(WorkerCommand.DISCONNECT), w.next());
        assertEquals(0, broker.workerCount("echo"));
    }

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void aReplyBeforeReadyIsAnsweredWithDisconnect(MdpVersion v) {
        RawWorker w = raw(v);
        WorkerCommand reply = v == MdpVersion.V0_1 ? WorkerCommand.REPLY : WorkerCommand.FINAL;
        w.reply(reply, new byte[] {0, 1, 2, 3, 4}, "nobody asked");
        assertEquals(w.commandFrames(WorkerCommand.DISCONNECT), w.next());
        events.await(MajordomoEvent.Type.WORKER_DISCONNECTED, e -> e.detail().contains("before READY"));
    }

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void aHeartbeatBeforeReadyIsAnsweredWithDisconnect(MdpVersion v) {
        RawWorker w = raw(v);
        w.command(WorkerCommand.HEARTBEAT);
        assertEquals(w.commandFrames(WorkerCommand.DISCONNECT), w.next());
    }

    @Test
    void aReplyWithNoRequestInProgressIsAnsweredWithDisconnect() {
        RawWorker w = worker(MdpVersion.V0_2, "echo");
        awaitWorkers("echo", 1);
        w.reply(WorkerCommand.FINAL, new byte[] {0, 9, 9, 9, 9}, "unasked");
        assertEquals(w.commandFrames(WorkerCommand.DISCONNECT), w.next());
        assertEquals(0, broker.workerCount("echo"));
    }

    @Test
    void aReplyToAnotherClientIsAnsweredWithDisconnect() {
        RawWorker w = worker(MdpVersion.V0_1, "echo");
        awaitWorkers("echo", 1);
        BlockingSocket client = dealerClient();
        client.send(request(MdpVersion.V0_1, true, "echo", "q"));
        w.expectRequest("q");
        w.reply(WorkerCommand.REPLY, new byte[] {0, 7, 7, 7, 7}, "wrong client");
        assertEquals(w.commandFrames(WorkerCommand.DISCONNECT), w.next());
        assertNull(client.receive(QUIET));
    }

    @Test
    void aWorkerSwitchingVersionIsDisconnected() {
        RawWorker w = worker(MdpVersion.V0_1, "echo");
        awaitWorkers("echo", 1);
        w.socket.send(MdpProtocol.workerCommand(MdpVersion.V0_2, WorkerCommand.HEARTBEAT));
        assertEquals(w.commandFrames(WorkerCommand.DISCONNECT), w.next());
        assertEquals(0, broker.workerCount());
    }

    @Test
    void aWorkerThatSaysDisconnectIsForgottenSilently() {
        RawWorker w = worker(MdpVersion.V0_1, "echo");
        awaitWorkers("echo", 1);
        w.command(WorkerCommand.DISCONNECT);
        events.await(MajordomoEvent.Type.WORKER_LEFT);
        assertEquals(0, broker.workerCount());
        assertNull(w.pollNonHeartbeat(QUIET), "no DISCONNECT back");
    }

    // ------------------------------------------------------------------ invalid messages

    @Test
    void invalidMessagesAreDroppedAndTheBrokerCarriesOn() {
        BlockingSocket raw = dealerClient();
        raw.send(ZmtpMessage.ofStrings("hello"));                                     // too short
        raw.send(ZmtpMessage.ofStrings("XYZ", "a", "b"));                             // unknown header
        raw.send(ZmtpMessage.ofStrings("", "MDPC02", "echo", "x"));                   // 0.2 header after ""
        raw.send(ZmtpMessage.ofStrings("MDPC01", "echo", "x"));                       // 0.1 header without ""
        raw.send(ZmtpMessage.of(bytes("MDPC02"), new byte[] {3}, bytes("echo"), bytes("x"))); // FINAL from a client
        raw.send(ZmtpMessage.of(bytes("MDPC02"), new byte[] {1}, bytes("echo")));    // no body
        raw.send(ZmtpMessage.of(bytes("MDPW02"), new byte[] {9}));                   // unknown command
        raw.send(ZmtpMessage.of(new byte[0], bytes("MDPW01"), new byte[] {1}));      // READY without service
        raw.send(ZmtpMessage.of(bytes("MDPW02"), new byte[] {4}, bytes("c")));        // FINAL without "" and body
        events.awaitCount(MajordomoEvent.Type.INVALID_MESSAGE, 9);
        assertNull(raw.receive(QUIET), "nothing is answered to an invalid message");
        RawWorker w = worker(MdpVersion.V0_2, "echo");
        BlockingSocket client = dealerClient();
        client.send(request(MdpVersion.V0_2, true, "echo", "still"));
        w.reply(WorkerCommand.FINAL, w.expectRequest("still"), "working");
        assertEquals(List.of("MDPC02", "03", "echo", "working"), render(client.receive(T)));
        assertEquals(9, events.count(MajordomoEvent.Type.INVALID_MESSAGE));
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    // ------------------------------------------------------------------ heartbeats

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void theBrokerHeartbeatsItsWorkers(MdpVersion v) {
        startBroker(MajordomoBrokerSettings.builder().clock(clock).heartbeatInterval(BEAT).heartbeatLiveness(10));
        RawWorker w = worker(v, "echo");
        awaitWorkers("echo", 1);
        for (int i = 0; i < 5; i++) {
            clock.advance(BEAT);
            ZmtpMessage m = w.poll(T);
            assertNotNull(m);
            assertTrue(w.isCommand(m, WorkerCommand.HEARTBEAT), "heartbeat expected: " + m);
            assertEquals(w.commandFrames(WorkerCommand.HEARTBEAT), render(m));
            w.command(WorkerCommand.HEARTBEAT); // a live worker heartbeats too, or it expires
        }
        assertFalse(events.has(MajordomoEvent.Type.WORKER_EXPIRED));
    }

    @Test
    void aSilentWorkerExpiresAndAHeartbeatingOneStays() {
        int liveness = 5;
        startBroker(MajordomoBrokerSettings.builder().clock(clock).heartbeatInterval(BEAT).heartbeatLiveness(liveness));
        RawWorker silent = worker(MdpVersion.V0_1, "echo");
        RawWorker alive = worker(MdpVersion.V0_2, "echo");
        awaitWorkers("echo", 2);
        // the live worker answers each broker heartbeat with its own, past the silent one's expiry
        for (int i = 0; i < liveness + 2; i++) {
            clock.advance(BEAT);
            ZmtpMessage m = alive.poll(T);
            assertNotNull(m, "a heartbeat each interval");
            m.release();
            long read = broker.socket().metrics().messagesIn();
            alive.command(WorkerCommand.HEARTBEAT);
            // before the clock moves on: a heartbeat still in flight when it does would let the
            // live worker expire too on a loaded machine
            eventually("the broker read the heartbeat", () -> broker.socket().metrics().messagesIn() > read);
        }
        events.await(MajordomoEvent.Type.WORKER_EXPIRED);
        assertEquals(1, events.count(MajordomoEvent.Type.WORKER_EXPIRED));
        assertEquals(1, broker.workerCount("echo"));
        BlockingSocket client = dealerClient();
        client.send(request(MdpVersion.V0_2, true, "echo", "who"));
        alive.reply(WorkerCommand.FINAL, alive.expectRequest("who"), "the live one");
        assertEquals(List.of("MDPC02", "03", "echo", "the live one"), render(client.receive(T)));
        assertNull(silent.pollNonHeartbeat(QUIET));
    }

    @Test
    void aWorkerLostMidRequestLosesTheRequest() {
        // The manual clock never moves here: no expiry can run, only the dropped connection can tell.
        startBroker(MajordomoBrokerSettings.builder().clock(clock).heartbeatInterval(BEAT));
        RawWorker w = worker(MdpVersion.V0_1, "echo");
        awaitWorkers("echo", 1);
        BlockingSocket client = dealerClient();
        client.send(request(MdpVersion.V0_1, true, "echo", "lost"));
        w.expectRequest("lost");
        w.close();
        // Its connection closed: the broker forgets it at once (the ROUTER's DISCONNECTED), not after the expiry.
        assertEquals("connection closed", events.await(MajordomoEvent.Type.WORKER_LEFT).detail());
        assertEquals(0, broker.queuedRequests("echo"), "the request is not queued again");
        RawWorker next = worker(MdpVersion.V0_1, "echo");
        assertNull(next.pollNonHeartbeat(QUIET), "the client's retry, not the broker, brings it back");
    }

    @Test
    void closingTheBrokerDisconnectsItsWorkers() {
        RawWorker w1 = worker(MdpVersion.V0_1, "a");
        RawWorker w2 = worker(MdpVersion.V0_2, "b");
        awaitWorkers("a", 1);
        awaitWorkers("b", 1);
        broker.close();
        assertEquals(w1.commandFrames(WorkerCommand.DISCONNECT), w1.next());
        assertEquals(w2.commandFrames(WorkerCommand.DISCONNECT), w2.next());
    }

    @Test
    void theTracerSeesEveryMessageInTheGuidesDumpFormat() {
        StringBuilder trace = new StringBuilder();
        startBroker(MajordomoBrokerSettings.builder().tracer((what, m) -> {
            synchronized (trace) {
                trace.append(what).append('\n').append(MessageDump.format(m));
            }
        }));
        RawWorker w = worker(MdpVersion.V0_1, "echo");
        awaitWorkers("echo", 1);
        String t;
        synchronized (trace) {
            t = trace.toString();
        }
        assertTrue(t.contains("I: received message:\n----------------------------------------\n[005] "), t);
        assertTrue(t.contains("[000]\n[006] MDPW01\n[001] 01\n[004] echo\n"), t);
        w.close();
    }
}
