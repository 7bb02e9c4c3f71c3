package io.zmtp.patterns.majordomo;

import static io.zmtp.patterns.majordomo.MdpTesting.started;

import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.majordomo.MdpTesting.Events;
import io.zmtp.patterns.majordomo.MdpTesting.RawWorker;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
import io.zmtp.patterns.kit.ManualClock;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.zmtp.patterns.majordomo.MdpTesting.QUIET;
import static io.zmtp.patterns.majordomo.MdpTesting.T;
import static io.zmtp.patterns.majordomo.MdpTesting.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Heartbeats, expiry, reconnection and retries on a {@link ManualClock}: time moves only when the
 * test moves it, so what must not happen yet cannot happen by accident, and nothing waits for
 * real intervals. The sockets stay on real time (connecting, messages), waited for with deadlines.
 */
class MajordomoClockTest {
    static final Duration BEAT = Duration.ofSeconds(1);
    final ManualClock clock = new ManualClock();
    final List<AutoCloseable> opened = new ArrayList<>();
    final List<ZmtpContext> contexts = new ArrayList<>();
    ZmtpContext brokerCtx;
    MajordomoBroker broker;
    Events brokerEvents;
    String endpoint;

    @BeforeEach
    void start() {
        brokerCtx = context();
    }

    ZmtpContext context() {
        ZmtpContext c = ZmtpContext.create(1);
        contexts.add(c);
        return c;
    }

    void startBroker(String bind) {
        brokerEvents = new Events();
        broker = started(new MajordomoBroker(brokerCtx, MajordomoBrokerSettings.builder().clock(clock).heartbeatInterval(BEAT)
                .heartbeatLiveness(3).listener(brokerEvents).endpoints(bind).build()));
        endpoint = broker.endpoint();
    }

    /** The broker's process dies: its sockets close, no DISCONNECT is sent; a new context for the next one. */
    void crashBroker() {
        brokerCtx.close(Duration.ZERO);
        brokerCtx = context();
    }

    MajordomoWorker worker(Events events) {
        MajordomoWorker w = new MajordomoWorker(context(), endpoint, "echo", MajordomoHandler.echo(),
                MajordomoWorkerSettings.builder().version(MdpVersion.V0_2).clock(clock).heartbeatInterval(BEAT)
                        .socketOptions(MdpTesting.FAST_RECONNECT).listener(events).executor(Runnable::run).build());
        opened.add(w);
        w.start();
        return w;
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        if (broker != null) {
            broker.close();
        }
        for (ZmtpContext c : contexts) {
            c.close(Duration.ofSeconds(5));
        }
    }

    @Test
    void theBrokersFirstHeartbeatComesOneIntervalAfterReadyThenAtRegularIntervals() {
        startBroker("tcp://127.0.0.1:0");
        clock.advance(Duration.ofMillis(400)); // the broker's own ticks are not in phase with READY
        RawWorker w = new RawWorker(brokerCtx, endpoint, MdpVersion.V0_2).ready("echo");
        opened.add(w);
        eventually("registered", () -> broker.workerCount("echo") == 1);
        clock.advance(BEAT.minusMillis(1));
        assertNothing(w, "nothing before one interval after READY");
        clock.advance(Duration.ofMillis(1));
        assertHeartbeat(w, w.poll(T));
        for (int i = 0; i < 2; i++) {
            w.command(WorkerCommand.HEARTBEAT); // the worker keeps itself alive
            clock.advance(BEAT.minusMillis(1));
            assertNothing(w, "nothing before the next interval");
            clock.advance(Duration.ofMillis(1));
            assertHeartbeat(w, w.poll(T));
        }
        assertEquals(0, brokerEvents.count(MajordomoEvent.Type.WORKER_EXPIRED));
    }

    static void assertNothing(RawWorker w, String what) {
        ZmtpMessage m = w.poll(QUIET);
        if (m != null) {
            String text = MdpTesting.render(m).toString();
            throw new AssertionError(what + ": got " + text);
        }
    }

    static void assertHeartbeat(RawWorker w, ZmtpMessage m) {
        assertNotNull(m, "a HEARTBEAT");
        boolean heartbeat = w.isCommand(m, WorkerCommand.HEARTBEAT);
        List<String> frames = MdpTesting.render(m); // releases it
        assertTrue(heartbeat, frames.toString());
    }

    @Test
    void theBrokerExpiresASilentWorkerAfterLivenessIntervalsExactly() {
        startBroker("tcp://127.0.0.1:0");
        RawWorker w = new RawWorker(brokerCtx, endpoint, MdpVersion.V0_1).ready("echo");
        opened.add(w);
        eventually("registered", () -> broker.workerCount("echo") == 1);
        clock.advance(BEAT.multipliedBy(3).minusMillis(1));
        assertEquals(1, broker.workerCount("echo"), "still within its liveness");
        clock.advance(BEAT); // the tick after the expiry
        brokerEvents.await(MajordomoEvent.Type.WORKER_EXPIRED);
        assertEquals(0, broker.workerCount("echo"));
    }

    @Test
    void aWorkerDoesNotCountSilenceBeforeItsConnectionIsUp() throws Exception {
        startBroker("tcp://127.0.0.1:0");
        String bound = endpoint;
        crashBroker();
        Events events = new Events();
        worker(events);
        events.await(MajordomoEvent.Type.CONNECTING);
        clock.advance(BEAT.multipliedBy(10)); // ten intervals while nothing listens
        assertEquals(0, events.count(MajordomoEvent.Type.BROKER_LOST), events.seen.toString());
        assertEquals(1, events.count(MajordomoEvent.Type.CONNECTING), "no new socket: it is still connecting");
        startBroker(bound);
        eventually("registered once the broker is up", () -> broker.workerCount("echo") == 1);
        clock.advance(BEAT.multipliedBy(2)); // heartbeats flow both ways; nobody gives up
        assertEquals(0, events.count(MajordomoEvent.Type.BROKER_LOST), events.seen.toString());
        assertEquals(1, broker.workerCount("echo"));
    }

    @Test
    void aWorkerRegistersWithARestartedBrokerWithoutWaitingForAnyTimer() {
        startBroker("tcp://127.0.0.1:0");
        String bound = endpoint;
        Events events = new Events();
        worker(events);
        eventually("registered", () -> broker.workerCount("echo") == 1);
        long before = clock.nanoTime();
        crashBroker();
        assertEquals("connection dropped", events.await(MajordomoEvent.Type.BROKER_LOST).detail());
        startBroker(bound);
        // The manual clock does not move: only the socket's reconnect and a new READY can bring it back.
        eventually("registered again with the new broker", () -> broker.workerCount("echo") == 1);
        assertEquals(before, clock.nanoTime(), "no timer was needed");
        try (MajordomoClient client = started(new MajordomoClient(context(), endpoint,
                MajordomoClientSettings.builder().version(MdpVersion.V0_2).timeout(T).build()))) {
            assertEquals(List.of("back"), client.request("echo", "back").bodyStrings());
        }
    }

    @Test
    void aBrokerAnswersTheHeartbeatOfAWorkerItForgotWithDisconnect() {
        startBroker("tcp://127.0.0.1:0");
        RawWorker w = new RawWorker(brokerCtx, endpoint, MdpVersion.V0_2).ready("echo");
        opened.add(w);
        eventually("registered", () -> broker.workerCount("echo") == 1);
        clock.advance(BEAT.multipliedBy(3));
        brokerEvents.await(MajordomoEvent.Type.WORKER_EXPIRED);
        w.command(WorkerCommand.HEARTBEAT);
        assertEquals(w.commandFrames(WorkerCommand.DISCONNECT), w.pollNonHeartbeat(T),
                "an unknown worker's HEARTBEAT gets DISCONNECT, so a real worker registers again at once");
    }

    @Test
    void theSyncClientResendsOnANewSocketAfterEachTimeoutAndFailsAfterItsLastTry() throws Exception {
        ZmtpContext routerCtx = context();
        ZmtpSocket router = routerCtx.socket(SocketType.ROUTER, SocketOptions.builder().linger(Duration.ZERO).build());
        LinkedBlockingQueue<ZmtpMessage> got = new LinkedBlockingQueue<>();
        router.onMessage(got::add);
        String bound = Futures.await(Futures.of(router.bind("tcp://127.0.0.1:0")), T);
        Events events = new Events();
        MajordomoClient client = started(new MajordomoClient(context(), bound, MajordomoClientSettings.builder()
                .version(MdpVersion.V0_2).clock(clock).timeout(BEAT).retries(3).listener(events).build()));
        opened.add(client);
        CompletableFuture<MajordomoReply> reply = CompletableFuture.supplyAsync(() -> client.request("echo", "hi"));
        for (int send = 1; send <= 3; send++) {
            ZmtpMessage m = got.poll(T.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(m, "send " + send + " reached the broker");
            m.release();
            assertFalse(reply.isDone(), "no failure before the last try's timeout");
            clock.advance(BEAT);
        }
        ExecutionException e = assertThrows(ExecutionException.class, () -> reply.get(T.toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(MajordomoException.class, e.getCause());
        assertEquals(2, events.count(MajordomoEvent.Type.RETRYING));
        assertEquals(1, events.count(MajordomoEvent.Type.REQUEST_FAILED));
        assertNull(got.poll(QUIET.toMillis(), TimeUnit.MILLISECONDS), "three sends in all");
        routerCtx.close(Duration.ZERO);
    }

    @Test
    void theAsyncClientCountsTriesByTimeoutsNotByDroppedConnections() throws Exception {
        ZmtpContext routerCtx = context();
        ZmtpSocket router = routerCtx.socket(SocketType.ROUTER, SocketOptions.builder().linger(Duration.ZERO).build());
        LinkedBlockingQueue<ZmtpMessage> got = new LinkedBlockingQueue<>();
        router.onMessage(got::add);
        String bound = Futures.await(Futures.of(router.bind("tcp://127.0.0.1:0")), T);
        Events events = new Events();
        MajordomoAsyncClient client = started(new MajordomoAsyncClient(context(), bound, MajordomoClientSettings.builder()
                .version(MdpVersion.V0_2).clock(clock).timeout(BEAT).retries(3).listener(events)
                .socketOptions(MdpTesting.FAST_RECONNECT).build()));
        opened.add(client);
        CompletableFuture<MajordomoReply> reply = client.request("echo", "hi");
        ZmtpMessage m = got.poll(T.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(m, "the request reached the broker");
        m.release();
        routerCtx.close(Duration.ZERO); // the broker crashes with the request
        events.await(MajordomoEvent.Type.RETRYING, e -> e.detail().contains("same attempt"));
        // A broker back on the same endpoint, silent too: it sees every send from here on.
        ZmtpSocket restarted = context().socket(SocketType.ROUTER, SocketOptions.builder().linger(Duration.ZERO).build());
        LinkedBlockingQueue<ZmtpMessage> after = new LinkedBlockingQueue<>();
        restarted.onMessage(after::add);
        Futures.await(Futures.of(restarted.bind(bound)), T);
        for (int send = 1; send <= 3; send++) {
            ZmtpMessage again = after.poll(T.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(again, send == 1 ? "the resend of try 1 after the drop" : "try " + send);
            again.release();
            assertFalse(reply.isDone(), "three tries: the drop used none of them, " + (send - 1) + " timeouts did");
            clock.advance(BEAT); // the try's timeout: the next try, or the end after the third
        }
        ExecutionException e = assertThrows(ExecutionException.class, () -> reply.get(T.toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(MajordomoException.class, e.getCause());
        assertEquals(1, events.count(MajordomoEvent.Type.REQUEST_FAILED));
        assertEquals(2, events.seen.stream().filter(x -> x.type() == MajordomoEvent.Type.RETRYING
                && !x.detail().contains("same attempt")).count(), "two resends after a timeout");
        assertEquals(1, events.seen.stream().filter(x -> x.type() == MajordomoEvent.Type.RETRYING
                && x.detail().contains("same attempt")).count(), "one resend after the drop");
        assertNull(after.poll(QUIET.toMillis(), TimeUnit.MILLISECONDS), "nothing sent after the last try");
    }
}
