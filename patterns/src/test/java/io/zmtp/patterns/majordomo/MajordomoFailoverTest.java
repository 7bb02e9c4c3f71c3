package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.majordomo.MdpTesting.Events;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
import io.zmtp.patterns.kit.ManualClock;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.zmtp.patterns.majordomo.MdpTesting.QUIET;
import static io.zmtp.patterns.majordomo.MdpTesting.T;
import static io.zmtp.patterns.majordomo.MdpTesting.eventually;
import static io.zmtp.patterns.majordomo.MdpTesting.started;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Majordomo clients and workers given two brokers (a highly available pair), on the manual
 * clock with hand-driven brokers: the clients move to the other broker after a timeout and the
 * settle delay, not sooner, the asynchronous one with every outstanding request, each sent once;
 * the worker moves on DISCONNECT, on a dropped connection, and when a broker it cannot reach
 * stays silent for its liveness.
 */
class MajordomoFailoverTest {
    static final Duration TIMEOUT = Duration.ofSeconds(1);
    static final Duration SETTLE = Duration.ofSeconds(2);
    static final Duration BEAT = Duration.ofSeconds(1);

    final ManualClock clock = new ManualClock();
    final List<AutoCloseable> opened = new ArrayList<>();
    final List<ZmtpContext> contexts = new ArrayList<>();
    final List<RawBroker> brokers = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        for (ZmtpContext c : contexts) {
            c.close(Duration.ofSeconds(5));
        }
        for (RawBroker b : brokers) { // what the workers said last (DISCONNECT on close...)
            ZmtpMessage m;
            while ((m = b.got.poll()) != null) {
                m.release();
            }
        }
    }

    RawBroker rawBroker(ZmtpContext ctx) {
        RawBroker b = new RawBroker(ctx);
        brokers.add(b);
        return b;
    }

    ZmtpContext context() {
        ZmtpContext c = ZmtpContext.create(1);
        contexts.add(c);
        return c;
    }

    /** A hand-driven broker: a ROUTER whose messages the test takes. */
    static final class RawBroker {
        final ZmtpContext ctx;
        final ZmtpSocket router;
        final LinkedBlockingQueue<ZmtpMessage> got = new LinkedBlockingQueue<>();
        final String endpoint;

        RawBroker(ZmtpContext ctx) {
            this.ctx = ctx;
            router = ctx.socket(SocketType.ROUTER, SocketOptions.builder().linger(Duration.ZERO).build());
            router.onMessage(got::add);
            endpoint = Futures.await(Futures.of(router.bind("tcp://127.0.0.1:0")), T);
        }

        ZmtpMessage take() throws InterruptedException {
            ZmtpMessage m = got.poll(T.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(m, "a message at " + endpoint);
            return m;
        }

        void assertNothing(String what) throws InterruptedException {
            ZmtpMessage m = got.poll(QUIET.toMillis(), TimeUnit.MILLISECONDS);
            if (m != null) {
                throw new AssertionError(what + ": got " + MdpTesting.render(m));
            }
        }

        /** Answers a 0.2 request {@code m} (released) with a FINAL of {@code body}. */
        void answer(ZmtpMessage m, String body) {
            byte[] client = m.frameBytes(0);
            String service = m.frameString(3);
            m.release();
            send(ZmtpMessage.newMessage().add(client).add("MDPC02").add(new byte[] {3}).add(service).add(body));
        }

        void send(ZmtpMessage m) {
            router.send(m);
        }
    }

    static String body(ZmtpMessage m) {
        return m.frameString(m.size() - 1);
    }

    MajordomoClientSettings clientSettings(Events events) {
        return MajordomoClientSettings.builder().version(MdpVersion.V0_2).clock(clock).timeout(TIMEOUT).retries(4)
                .failoverSettle(SETTLE).listener(events).build();
    }

    @Test
    void theSyncClientTriesTheOtherBrokerAfterItsTimeoutAndTheSettleDelay() throws Exception {
        RawBroker a = rawBroker(context());
        RawBroker b = rawBroker(context());
        Events events = new Events();
        MajordomoClient client = started(new MajordomoClient(context(), List.of(a.endpoint, b.endpoint),
                clientSettings(events)));
        opened.add(client);
        CompletableFuture<MajordomoReply> reply = CompletableFuture.supplyAsync(() -> client.request("echo", "one"));
        ZmtpMessage first = a.take();
        assertEquals("one", body(first));
        first.release(); // the broker dies with it
        clock.advance(TIMEOUT);
        events.await(MajordomoEvent.Type.RETRYING, e -> e.detail().contains("failing over to " + b.endpoint));
        clock.advance(SETTLE.minusMillis(1));
        b.assertNothing("nothing before the settle delay is over");
        clock.advance(Duration.ofMillis(1));
        ZmtpMessage resent = b.take();
        assertEquals("one", body(resent));
        b.answer(resent, "from b");
        assertEquals(List.of("from b"), reply.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
        // the endpoint that answered stays current
        CompletableFuture<MajordomoReply> next = CompletableFuture.supplyAsync(() -> client.request("echo", "two"));
        ZmtpMessage second = b.take();
        b.answer(second, "two from b");
        assertEquals(List.of("two from b"), next.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
        a.assertNothing("nothing more went to the first broker");
    }

    @Test
    void theAsyncClientMovesEveryOutstandingRequestOnceAndTakesEachAnswerOnce() throws Exception {
        RawBroker a = rawBroker(context());
        RawBroker b = rawBroker(context());
        Events events = new Events();
        MajordomoAsyncClient client = started(new MajordomoAsyncClient(context(), List.of(a.endpoint, b.endpoint),
                clientSettings(events)));
        opened.add(client);
        CompletableFuture<MajordomoReply> r1 = client.request("echo", "r1");
        a.take().release();
        clock.advance(Duration.ofMillis(300));
        CompletableFuture<MajordomoReply> r2 = client.request("other", "r2");
        a.take().release();
        clock.advance(TIMEOUT.minusMillis(300)); // r1 times out: every request moves
        events.await(MajordomoEvent.Type.RETRYING, e -> e.detail().contains("failing over to " + b.endpoint));
        clock.advance(Duration.ofMillis(300)); // r2's own timeout would be now: it moves with r1, once
        CompletableFuture<MajordomoReply> r3 = client.request("echo", "r3"); // during the settle: waits for it
        b.assertNothing("nothing before the settle delay is over");
        clock.advance(SETTLE.minusMillis(300));
        List<String> bodies = new ArrayList<>();
        List<ZmtpMessage> atB = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ZmtpMessage m = b.take();
            bodies.add(body(m));
            atB.add(m);
        }
        assertEquals(List.of("r1", "r2", "r3"), bodies, "every outstanding request, in order, once");
        b.assertNothing("no request was sent twice");
        a.assertNothing("no request went back to the first broker");
        assertEquals(1, events.seen.stream().filter(e -> e.detail() != null && e.detail().contains("failing over"))
                .count(), "one failover");
        b.answer(atB.get(0), "r1 done");
        b.answer(atB.get(1), "r2 done");
        b.answer(atB.get(2), "r3 done");
        assertEquals(List.of("r1 done"), r1.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
        assertEquals(List.of("r2 done"), r2.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
        assertEquals(List.of("r3 done"), r3.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
        // an answer no request in flight waits for (its service has none) is dropped, not given to r4
        CompletableFuture<MajordomoReply> r4 = client.request("other", "r4");
        ZmtpMessage m4 = b.take();
        b.send(ZmtpMessage.newMessage().add(m4.frameBytes(0)).add("MDPC02").add(new byte[] {3}).add("echo")
                .add("r1 again"));
        b.assertNothing("nothing else");
        assertFalse(r4.isDone(), "an answer for another service does not complete r4");
        b.answer(m4, "r4 done");
        assertEquals(List.of("r4 done"), r4.get(T.toMillis(), TimeUnit.MILLISECONDS).bodyStrings());
        assertEquals(0, client.outstanding());
    }

    MajordomoWorker worker(List<String> endpoints, Events events) {
        MajordomoWorker w = new MajordomoWorker(context(), endpoints, "echo", MajordomoHandler.echo(),
                MajordomoWorkerSettings.builder().version(MdpVersion.V0_2).clock(clock).heartbeatInterval(BEAT)
                        .heartbeatLiveness(3).reconnectDelay(Duration.ofMillis(500))
                        .reconnectDelayMax(Duration.ofMillis(500))
                        .socketOptions(MdpTesting.FAST_RECONNECT).listener(events).executor(Runnable::run).build());
        opened.add(w);
        w.start();
        return w;
    }

    static void assertReady(ZmtpMessage m) {
        List<String> frames = MdpTesting.render(m);
        assertEquals(List.of("MDPW02", "01", "echo"), frames.subList(1, frames.size()));
    }

    @Test
    void aWorkerTheBrokerSendsDisconnectRegistersWithTheOtherBroker() throws Exception {
        RawBroker a = rawBroker(context());
        RawBroker b = rawBroker(context());
        Events events = new Events();
        worker(List.of(a.endpoint, b.endpoint), events);
        ZmtpMessage ready = a.take();
        byte[] id = ready.frameBytes(0);
        assertReady(ready);
        ZmtpMessage disconnect = MdpProtocol.workerCommand(MdpVersion.V0_2, WorkerCommand.DISCONNECT);
        disconnect.addFirst(io.netty.buffer.Unpooled.wrappedBuffer(id));
        a.send(disconnect); // a passive broker with a live peer
        assertReady(b.take());
        assertEquals(0, events.count(MajordomoEvent.Type.BROKER_LOST));
        a.assertNothing("no READY back at the first broker");
    }

    @Test
    void aWorkerWhoseConnectionDropsRegistersWithTheOtherBrokerAtOnce() throws Exception {
        ZmtpContext aCtx = context();
        RawBroker a = rawBroker(aCtx);
        RawBroker b = rawBroker(context());
        Events events = new Events();
        worker(List.of(a.endpoint, b.endpoint), events);
        assertReady(a.take());
        long before = clock.nanoTime();
        aCtx.close(Duration.ZERO); // the broker's process dies
        assertReady(b.take());
        assertEquals(before, clock.nanoTime(), "no timer was needed");
        assertEquals("connection dropped", events.await(MajordomoEvent.Type.BROKER_LOST).detail());
    }

    @Test
    void aWorkerThatCannotReachABrokerMovesOnAfterItsLiveness() throws Exception {
        int dead = io.zmtp.testing.FreePorts.next(); // nothing listens there
        RawBroker b = rawBroker(context());
        Events events = new Events();
        worker(List.of("tcp://127.0.0.1:" + dead, b.endpoint), events);
        events.await(MajordomoEvent.Type.CONNECTING);
        clock.advance(BEAT.multipliedBy(2));
        assertFalse(events.has(MajordomoEvent.Type.BROKER_LOST), "still within its liveness");
        clock.advance(BEAT);
        events.await(MajordomoEvent.Type.BROKER_LOST);
        clock.advance(Duration.ofMillis(499));
        b.assertNothing("not before the reconnect delay");
        clock.advance(Duration.ofMillis(1));
        assertReady(b.take());
        eventually("one BROKER_LOST", () -> events.count(MajordomoEvent.Type.BROKER_LOST) == 1);
    }
}
