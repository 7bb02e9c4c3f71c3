package io.zmtp.patterns.freelance;

import io.zmtp.patterns.Futures;
import io.zmtp.patterns.PatternTesting.Recorder;
import io.zmtp.patterns.reliability.NoReplyException;
import io.zmtp.patterns.time.ManualClock;
import io.zmtp.patterns.time.PatternClock;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.zmtp.patterns.PatternTesting.get;
import static io.zmtp.patterns.PatternTesting.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Freelance model 1: echo servers, a client that tries them in turn. */
class FailoverClientTest extends FreelanceFixture {

    FailoverClient client(List<String> endpoints, Duration timeout, int retries, Recorder<FreelanceEvent> events,
            PatternClock clock) {
        FailoverClient c = closing(new FailoverClient(ctx, FailoverClient.Settings.builder().endpoints(endpoints)
                .timeout(timeout).retries(retries).socketOptions(FAST_RECONNECT).clock(clock).build(), events));
        get(c.start().toCompletableFuture());
        return c;
    }

    /** A ROUTER that swallows requests, so a try can only time out; each request is queued. */
    String blackHole(BlockingQueue<ZmtpMessage> seen) {
        ZmtpSocket s = closing(ctx.socket(SocketType.ROUTER));
        s.onMessage(m -> {
            seen.add(ZmtpMessage.ofStrings(m.frameString(m.size() - 1)));
            m.release();
        });
        return get(Futures.of(s.bind("tcp://127.0.0.1:0")));
    }

    static ZmtpMessage take(BlockingQueue<ZmtpMessage> q) throws InterruptedException {
        ZmtpMessage m = q.poll(10, TimeUnit.SECONDS);
        assertNotNull(m, "a request within 10 s");
        return m;
    }

    @Test
    void failsOverToTheNextServerAfterExactlyTheTimeout() throws Exception {
        BlockingQueue<ZmtpMessage> swallowed = new LinkedBlockingQueue<>();
        String dead = blackHole(swallowed);
        FreelanceServer live = server(1, "tcp://127.0.0.1:0");
        ManualClock clock = new ManualClock();
        Recorder<FreelanceEvent> events = new Recorder<>();
        FailoverClient client = client(List.of(dead, live.endpoint()), Duration.ofMillis(1000), 3, events, clock);

        CompletableFuture<ZmtpMessage> f = client.requestAsync(ZmtpMessage.ofStrings("hello"));
        assertEquals("hello", strings(take(swallowed)).get(0), "the first server got it first");
        clock.advance(Duration.ofMillis(999));
        assertFalse(f.isDone(), "the first server has a whole timeout");
        clock.advance(Duration.ofMillis(1));
        assertEquals(List.of("hello"), strings(get(f)), "the second server's echo");
        events.await("a failover", e -> e instanceof FreelanceEvent.FailedOver fo && fo.server().equals(dead));
        assertTrue(swallowed.isEmpty(), "one try on the first server (several servers: one try each)");
    }

    @Test
    void aSingleServerIsRetriedThenTheRequestFailsClearly() throws Exception {
        BlockingQueue<ZmtpMessage> swallowed = new LinkedBlockingQueue<>();
        String dead = blackHole(swallowed);
        ManualClock clock = new ManualClock();
        Recorder<FreelanceEvent> events = new Recorder<>();
        FailoverClient client = client(List.of(dead), Duration.ofMillis(1000), 3, events, clock);

        CompletableFuture<ZmtpMessage> f = client.requestAsync(ZmtpMessage.ofStrings("x"));
        for (int i = 0; i < 3; i++) {
            take(swallowed).release();
            assertFalse(f.isDone());
            clock.advance(Duration.ofMillis(1000));
        }
        NoReplyException e = assertInstanceOf(NoReplyException.class, failure(f));
        assertEquals(3, e.tries());
        assertTrue(e.getMessage().contains(dead), e.getMessage());
        events.await("a failure event", ev -> ev instanceof FreelanceEvent.Failed);
    }

    @Test
    void noServerAliveFailsAfterOneTimeoutPerServer() throws Exception {
        BlockingQueue<ZmtpMessage> swallowed = new LinkedBlockingQueue<>();
        String a = blackHole(swallowed);
        String b = blackHole(swallowed);
        ManualClock clock = new ManualClock();
        FailoverClient client = client(List.of(a, b), Duration.ofMillis(500), 3, null, clock);
        CompletableFuture<ZmtpMessage> f = client.requestAsync(ZmtpMessage.ofStrings("x"));
        take(swallowed).release();
        clock.advance(Duration.ofMillis(500));
        take(swallowed).release();
        clock.advance(Duration.ofMillis(499));
        assertFalse(f.isDone());
        clock.advance(Duration.ofMillis(1));
        assertEquals(2, assertInstanceOf(NoReplyException.class, failure(f)).tries());
    }

    /** Real time: servers killed and restarted under load; one alive is enough. */
    @Test
    void keepsSucceedingWhileOneServerLivesAndFailsInBoundedTimeWhenNoneDoes() {
        FreelanceServer a = server(1, "tcp://127.0.0.1:0");
        FreelanceServer b = server(1, "tcp://127.0.0.1:0");
        String epA = a.endpoint();
        String epB = b.endpoint();
        FailoverClient client = client(List.of(epA, epB), Duration.ofMillis(100), 3, null, PatternClock.system());
        int n = 0;
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 20; i++, n++) {
                String body = Integer.toString(n);
                assertEquals(List.of(body), strings(client.request(ZmtpMessage.ofStrings(body))));
            }
            a.close(); // killed: b answers
            for (int i = 0; i < 5; i++, n++) {
                String body = Integer.toString(n);
                assertEquals(List.of(body), strings(client.request(ZmtpMessage.ofStrings(body))));
            }
            a = server(1, epA); // back on its port
            b.close();
            for (int i = 0; i < 5; i++, n++) {
                String body = Integer.toString(n);
                assertEquals(List.of(body), strings(client.request(ZmtpMessage.ofStrings(body))));
            }
            b = server(1, epB);
        }
        a.close();
        b.close();
        long start = System.nanoTime();
        CompletableFuture<ZmtpMessage> f = client.requestAsync(ZmtpMessage.ofStrings("nobody"));
        assertInstanceOf(NoReplyException.class, failure(f));
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(),
                "a clear failure within a bound (two tries of 100 ms)");
    }
}
