package io.zmtp.patterns.majordomo;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A Majordomo worker's choice of broker and of when to register again, without sockets: what it
 * asks of its sockets, on the manual clock (heartbeat 100 ms, liveness 3, reconnect delay 1 s).
 */
class BrokerFailoverTest {
    static final Duration I = Duration.ofMillis(100);
    final EventLoop loop = new DefaultEventLoop();
    final ManualClock clock = new ManualClock();
    final List<String> sockets = new CopyOnWriteArrayList<>();
    final MdpTesting.Events events = new MdpTesting.Events();
    BrokerFailover failover;

    @AfterEach
    void stop() {
        if (failover != null) {
            run(failover::stop);
        }
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    void run(Runnable r) {
        try {
            loop.submit(r).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    void start(String... brokers) {
        MajordomoWorkerSettings settings = MajordomoWorkerSettings.builder().heartbeatInterval(I).heartbeatLiveness(3)
                .reconnectDelay(Duration.ofSeconds(1)).reconnectDelayMax(Duration.ofSeconds(1)).build();
        failover = new BrokerFailover(clock.on(loop), List.of(brokers), "echo", settings, new BrokerFailover.Sockets() {
            @Override
            public void open(String endpoint) {
                sockets.add("open " + endpoint);
            }

            @Override
            public void close() {
                sockets.add("close");
            }

            @Override
            public void heartbeat() {
                sockets.add("hb");
            }
        }, new EventReporter<>(events, LoggerFactory.getLogger(getClass()), "test"));
        run(failover::start);
    }

    @Test
    void withOneBrokerNothingCountsBeforeTheHandshakeAndADropWaitsForTheSocketToReconnect() {
        start("A");
        clock.advance(I.multipliedBy(10));
        assertEquals(List.of("open A"), sockets, "no heartbeat and no loss before the handshake");
        run(failover::up);
        clock.advance(I.multipliedBy(2));
        assertEquals(List.of("open A", "hb", "hb"), sockets);
        run(failover::dropped);
        clock.advance(I.multipliedBy(10));
        assertEquals(List.of("open A", "hb", "hb"), sockets, "the socket reconnects by itself: no new one");
        assertEquals("connection dropped", events.await(MajordomoEvent.Type.BROKER_LOST).detail());
        run(failover::up);
        clock.advance(I.multipliedBy(3));
        assertEquals(List.of("open A", "hb", "hb", "hb", "hb", "close"), sockets,
                "up again, silent for the liveness: closed, a new socket after the delay");
        clock.advance(Duration.ofSeconds(1));
        assertEquals("open A", sockets.get(sockets.size() - 1));
    }

    @Test
    void withTwoBrokersADropOrADisconnectMovesToTheOtherAtOnceAndAFullRoundOfDisconnectsWaits() {
        start("A", "B");
        run(failover::up);
        run(failover::dropped);
        assertEquals(List.of("open A", "close", "open B"), sockets, "a dropped connection: the other broker at once");
        run(failover::disconnected);
        assertEquals(List.of("open A", "close", "open B", "close", "open A"), sockets);
        run(failover::disconnected); // both brokers said DISCONNECT in a row
        assertEquals(List.of("open A", "close", "open B", "close", "open A", "close"), sockets);
        clock.advance(Duration.ofSeconds(1));
        assertEquals("open B", sockets.get(sockets.size() - 1), "after the reconnect delay, not a tight loop");
        run(failover::accepted); // a REQUEST or HEARTBEAT: the broker takes the worker
        run(failover::disconnected);
        assertEquals("open A", sockets.get(sockets.size() - 1), "one DISCONNECT since: at once again");
    }

    @Test
    void withTwoBrokersSilenceCountsFromTheConnectAndTheLostBrokersSuccessorIsTriedAfterTheDelay() {
        start("A", "B");
        clock.advance(I.multipliedBy(3)); // A never answers the connect
        assertEquals(List.of("open A", "hb", "hb", "close"), sockets, "silent for the liveness from the connect"
                + " (the heartbeats asked for meanwhile go only once the session is up)");
        assertEquals("silent for 300 ms", events.await(MajordomoEvent.Type.BROKER_LOST).detail());
        clock.advance(Duration.ofSeconds(1));
        assertEquals(List.of("open A", "hb", "hb", "close", "open B"), sockets);
    }

    @Test
    void aHandlerFailureRegistersAgainAtOnce() {
        start("A");
        run(failover::up);
        run(failover::reregister);
        assertEquals(List.of("open A", "close", "open A"), sockets);
    }

    @Test
    void aStoppedSocketMovesToTheOtherBrokerUntilEveryBrokerStoppedSinceOneCameUp() {
        start("A", "B");
        assertEquals(true, call(() -> failover.stopped("refused")), "B is left");
        assertEquals(List.of("open A", "close", "open B"), sockets, "the other broker at once");
        run(failover::up); // B came up: A is worth another try
        run(failover::dropped);
        assertEquals(List.of("open A", "close", "open B", "close", "open A"), sockets);
        assertEquals(true, call(() -> failover.stopped("refused")), "B came up since its stop: it is tried again");
        assertEquals("open B", sockets.get(sockets.size() - 1));
        int opened = sockets.size();
        assertEquals(false, call(() -> failover.stopped("refused")), "both stopped since a connection came up");
        assertEquals(opened, sockets.size(), "no new socket: the worker closes");

        run(failover::stop);
        sockets.clear();
        start("A");
        assertEquals(false, call(() -> failover.stopped("refused")), "one broker: none left at once");
        assertEquals(List.of("open A"), sockets);
    }

    <V> V call(java.util.concurrent.Callable<V> c) {
        try {
            return loop.submit(c).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
