package io.zmtp.patterns.majordomo;

import io.netty.buffer.Unpooled;
import io.zmtp.patterns.majordomo.MdpTesting.Events;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
import io.zmtp.patterns.kit.ManualClock;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.zmtp.patterns.majordomo.MdpTesting.QUIET;
import static io.zmtp.patterns.majordomo.MdpTesting.T;
import static io.zmtp.patterns.majordomo.MdpTesting.render;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MajordomoWorker} against a hand-driven broker (a ROUTER socket), frame by frame. The
 * workers run on a {@link ManualClock}: they heartbeat, count the (mostly silent) test broker's
 * silence and wait to reconnect only when a test moves the clock, so a slow machine cannot make
 * a worker give up on its broker in the middle of a test.
 */
class MajordomoWorkerTest {
    /** The heartbeat interval (and reconnect delay) on the manual clock: it takes no real time. */
    static final Duration MANUAL_BEAT = Duration.ofSeconds(1);
    final ManualClock clock = new ManualClock();

    ZmtpContext ctx;
    BlockingSocket router;
    String endpoint;
    Events events;
    final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
        router = ctx.blocking(SocketType.ROUTER, SocketOptions.builder().linger(Duration.ZERO).build());
        endpoint = router.bind("tcp://127.0.0.1:0");
        events = new Events();
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        router.close(Duration.ZERO);
        ctx.close(Duration.ofSeconds(5));
    }

    /** A worker on the manual clock that gives its (mostly silent) test broker 10 intervals. */
    MajordomoWorker worker(MdpVersion v, MajordomoHandler h) {
        return worker(v, h, 10);
    }

    MajordomoWorker worker(MdpVersion v, MajordomoHandler h, int liveness) {
        MajordomoWorker w = new MajordomoWorker(ctx, endpoint, "svc", h, MajordomoWorkerSettings.builder()
                .version(v).clock(clock).heartbeatInterval(MANUAL_BEAT).heartbeatLiveness(liveness)
                .reconnectDelay(MANUAL_BEAT).listener(events).build());
        opened.add(w);
        w.start();
        return w;
    }

    /** One message from the worker: rendered frames, the routing id (hex) first. */
    List<String> next() {
        ZmtpMessage m = router.receive(T);
        assertNotNull(m, "nothing from the worker within " + T);
        return render(m);
    }

    /** The next message from the worker that is not a HEARTBEAT. */
    List<String> nextCommand(MdpVersion v) {
        while (true) {
            List<String> f = next();
            if (!f.equals(withId(f.get(0), command(v, WorkerCommand.HEARTBEAT)))) {
                return f;
            }
        }
    }

    static List<String> command(MdpVersion v, WorkerCommand c, String... args) {
        List<String> l = new ArrayList<>();
        if (v.leadingEmptyFrame()) {
            l.add("");
        }
        l.add(v.workerHeader());
        l.add(String.format("%02x", v.code(c)));
        l.addAll(List.of(args));
        return l;
    }

    static List<String> withId(String id, List<String> frames) {
        List<String> l = new ArrayList<>();
        l.add(id);
        l.addAll(frames);
        return l;
    }

    /** Sends a command to the worker with routing id {@code idHex}. */
    void toWorker(String idHex, MdpVersion v, WorkerCommand c) {
        ZmtpMessage m = MdpProtocol.workerCommand(v, c);
        m.addFirst(Unpooled.wrappedBuffer(hex(idHex)));
        router.send(m);
    }

    void request(String idHex, MdpVersion v, byte[] client, String... body) {
        ZmtpMessage m = MdpProtocol.workerCommand(v, WorkerCommand.REQUEST);
        m.addFirst(Unpooled.wrappedBuffer(hex(idHex)));
        m.add(client).addEmpty();
        for (String b : body) {
            m.add(b);
        }
        router.send(m);
    }

    static byte[] hex(String h) {
        return java.util.HexFormat.of().parseHex(h);
    }

    static final byte[] CLIENT = {0, 1, 2, 3, 4};
    static final String CLIENT_HEX = "0001020304";

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void registersThenHeartbeats(MdpVersion v) {
        worker(v, MajordomoHandler.echo());
        List<String> ready = next();
        String id = ready.get(0);
        assertEquals(withId(id, command(v, WorkerCommand.READY, "svc")), ready);
        // READY went out once the connection was up, so the worker counts (and sends) from here.
        for (int i = 0; i < 3; i++) {
            clock.advance(MANUAL_BEAT);
            assertEquals(withId(id, command(v, WorkerCommand.HEARTBEAT)), next(), "a HEARTBEAT each interval");
            toWorker(id, v, WorkerCommand.HEARTBEAT);
        }
    }

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void servesARequest(MdpVersion v) {
        worker(v, MajordomoHandler.echo());
        String id = next().get(0);
        request(id, v, CLIENT, "hello", "there");
        WorkerCommand reply = v == MdpVersion.V0_1 ? WorkerCommand.REPLY : WorkerCommand.FINAL;
        assertEquals(withId(id, command(v, reply, CLIENT_HEX, "", "hello", "there")), nextCommand(v));
    }

    @Test
    void aV02WorkerStreamsPartialsThenFinal() {
        worker(MdpVersion.V0_2, (req, replies) -> {
            replies.partial("a");
            replies.partial("b", "c");
            replies.finish("d");
        });
        MdpVersion v = MdpVersion.V0_2;
        String id = next().get(0);
        request(id, v, CLIENT, "go");
        assertEquals(withId(id, command(v, WorkerCommand.PARTIAL, CLIENT_HEX, "", "a")), nextCommand(v));
        assertEquals(withId(id, command(v, WorkerCommand.PARTIAL, CLIENT_HEX, "", "b", "c")), nextCommand(v));
        assertEquals(withId(id, command(v, WorkerCommand.FINAL, CLIENT_HEX, "", "d")), nextCommand(v));
    }

    @Test
    void aV01WorkerJoinsPartialsIntoItsReply() {
        worker(MdpVersion.V0_1, (req, replies) -> {
            replies.partial("a");
            replies.partial("b");
            replies.finish("c");
        });
        MdpVersion v = MdpVersion.V0_1;
        String id = next().get(0);
        request(id, v, CLIENT, "go");
        assertEquals(withId(id, command(v, WorkerCommand.REPLY, CLIENT_HEX, "", "a", "b", "c")), nextCommand(v));
    }

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void aLostBrokerIsDetectedAndTheWorkerRegistersAgainOnANewSocket(MdpVersion v) {
        worker(v, MajordomoHandler.echo(), 3);
        String first = next().get(0);
        // the broker says nothing: after 3 intervals the worker gives up on it
        clock.advance(MANUAL_BEAT.multipliedBy(2));
        assertTrue(!events.has(MajordomoEvent.Type.BROKER_LOST), "two silent intervals are not the end");
        clock.advance(MANUAL_BEAT);
        events.await(MajordomoEvent.Type.BROKER_LOST);
        clock.advance(MANUAL_BEAT); // the reconnect delay
        List<String> again = nextCommand(v);
        assertEquals(command(v, WorkerCommand.READY, "svc"), again.subList(1, again.size()));
        assertNotEquals(first, again.get(0), "a new socket, a new routing id");
    }

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void disconnectFromTheBrokerMakesItRegisterAgainAtOnce(MdpVersion v) {
        worker(v, MajordomoHandler.echo());
        String first = next().get(0);
        toWorker(first, v, WorkerCommand.DISCONNECT);
        List<String> again = nextCommand(v);
        assertEquals(command(v, WorkerCommand.READY, "svc"), again.subList(1, again.size()));
        assertNotEquals(first, again.get(0));
        assertTrue(events.has(MajordomoEvent.Type.DISCONNECT_RECEIVED));
        assertTrue(!events.has(MajordomoEvent.Type.BROKER_LOST));
    }

    @Test
    void aSlowHandlerDoesNotStopTheHeartbeats() throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        MajordomoWorker w = new MajordomoWorker(ctx, endpoint, "svc", (req, replies) -> {
            busy.countDown();
            release.await();
            replies.finish("late");
        }, MajordomoWorkerSettings.builder().version(MdpVersion.V0_2).clock(clock).heartbeatInterval(MANUAL_BEAT)
                .heartbeatLiveness(10).reconnectDelay(MANUAL_BEAT).listener(events).build());
        opened.add(w);
        w.start();
        MdpVersion v = MdpVersion.V0_2;
        String id = next().get(0);
        request(id, v, CLIENT, "slow");
        // The handler has the request: the worker has read from its connection, so it counts (and sends) from here.
        assertTrue(busy.await(T.toMillis(), TimeUnit.MILLISECONDS), "the handler got the request");
        // 30 heartbeats (30 intervals on the manual clock) = three times the heartbeat expiry (10 intervals),
        // one each interval while the handler is busy, each answered by ours
        for (int beats = 0; beats < 30; ) {
            clock.advance(MANUAL_BEAT);
            List<String> f = next();
            assertEquals(withId(id, command(v, WorkerCommand.HEARTBEAT)), f, "only heartbeats while busy");
            beats++;
            toWorker(id, v, WorkerCommand.HEARTBEAT);
        }
        release.countDown();
        assertEquals(withId(id, command(v, WorkerCommand.FINAL, CLIENT_HEX, "", "late")), nextCommand(v));
        assertTrue(!events.has(MajordomoEvent.Type.BROKER_LOST));
    }

    @Test
    void requestsQueueBehindTheOneInProgress() {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        worker(MdpVersion.V0_2, (req, replies) -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            running.decrementAndGet();
            replies.finish(req);
        });
        MdpVersion v = MdpVersion.V0_2;
        String id = next().get(0);
        request(id, v, CLIENT, "1");
        request(id, v, CLIENT, "2");
        request(id, v, CLIENT, "3");
        for (String n : List.of("1", "2", "3")) {
            assertEquals(withId(id, command(v, WorkerCommand.FINAL, CLIENT_HEX, "", n)), nextCommand(v));
        }
        assertEquals(1, most.get(), "one request at a time");
    }

    @ParameterizedTest
    @EnumSource(MdpVersion.class)
    void aFailingHandlerDisconnectsAndRegistersAgain(MdpVersion v) {
        worker(v, (req, replies) -> {
            throw new IllegalStateException("boom (expected by the test)");
        });
        String id = next().get(0);
        request(id, v, CLIENT, "x");
        assertEquals(withId(id, command(v, WorkerCommand.DISCONNECT)), nextCommand(v));
        List<String> again = nextCommand(v);
        assertEquals(command(v, WorkerCommand.READY, "svc"), again.subList(1, again.size()));
        events.await(MajordomoEvent.Type.HANDLER_FAILED);
    }

    @Test
    void aReplyToARequestOfAnOlderConnectionIsDropped() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        worker(MdpVersion.V0_1, (req, replies) -> {
            if (calls.incrementAndGet() == 1) {
                release.await();
            }
            replies.finish(req);
        });
        MdpVersion v = MdpVersion.V0_1;
        String first = next().get(0);
        request(first, v, CLIENT, "old");
        toWorker(first, v, WorkerCommand.DISCONNECT);
        String second = nextCommand(v).get(0);
        assertNotEquals(first, second);
        release.countDown();
        request(second, v, CLIENT, "new");
        assertEquals(withId(second, command(v, WorkerCommand.REPLY, CLIENT_HEX, "", "new")), nextCommand(v),
                "the old request's reply never reaches the new connection");
    }

    @Test
    void invalidMessagesFromTheBrokerAreDropped() {
        worker(MdpVersion.V0_2, MajordomoHandler.echo());
        MdpVersion v = MdpVersion.V0_2;
        String id = next().get(0);
        router.send(ZmtpMessage.of(hex(id), "nonsense".getBytes(StandardCharsets.UTF_8)));
        router.send(ZmtpMessage.of(hex(id), "MDPW01".getBytes(StandardCharsets.UTF_8), new byte[] {2}));
        router.send(ZmtpMessage.of(hex(id), "MDPW02".getBytes(StandardCharsets.UTF_8), new byte[] {2},
                CLIENT));
        request(id, v, CLIENT, "fine");
        assertEquals(withId(id, command(v, WorkerCommand.FINAL, CLIENT_HEX, "", "fine")), nextCommand(v));
    }

    @Test
    void closingSendsDisconnect() {
        MajordomoWorker w = worker(MdpVersion.V0_1, MajordomoHandler.echo());
        String id = next().get(0);
        w.close();
        assertEquals(withId(id, command(MdpVersion.V0_1, WorkerCommand.DISCONNECT)), nextCommand(MdpVersion.V0_1));
        assertNull(router.receive(QUIET));
    }

    @Test
    void handlersRunOffTheEventLoop() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        String[] thread = new String[1];
        worker(MdpVersion.V0_2, (req, replies) -> {
            thread[0] = Thread.currentThread().getName();
            ran.countDown();
            replies.finish(req);
        });
        String id = next().get(0);
        request(id, MdpVersion.V0_2, CLIENT, "where");
        assertTrue(ran.await(T.toMillis(), TimeUnit.MILLISECONDS));
        assertEquals("mdworker-svc", thread[0]);
    }

    @Test
    void aWorkerIsALoopComponentThatConnectsOnlyWhenStartedAndNeverAfterClose() {
        MajordomoWorker w = new MajordomoWorker(ctx, endpoint, "svc", MajordomoHandler.echo(), MajordomoWorkerSettings
                .builder().clock(clock).heartbeatInterval(MANUAL_BEAT).listener(events).build());
        opened.add(w);
        assertEquals(0, events.count(MajordomoEvent.Type.CONNECTING), "the constructor opens nothing");
        io.zmtp.patterns.kit.Futures.await(w.start(), T); // completes once the connect is under way
        assertEquals(1, events.count(MajordomoEvent.Type.CONNECTING));
        List<String> ready = next();
        assertEquals(withId(ready.get(0), command(MdpVersion.V0_1, WorkerCommand.READY, "svc")), ready);
        w.close();
        io.zmtp.patterns.kit.Futures.await(w.terminated(), T);

        MajordomoWorker never = new MajordomoWorker(ctx, endpoint, "svc", MajordomoHandler.echo());
        never.close();
        assertThrows(io.zmtp.socket.SocketClosedException.class,
                () -> io.zmtp.patterns.kit.Futures.await(never.start(), T), "closed first: it never starts");
    }
}
