package io.zmtp.patterns.freelance;

import io.zmtp.patterns.kit.Futures;
import io.zmtp.testing.Recorder;
import io.zmtp.patterns.kit.NoReplyException;
import io.zmtp.patterns.kit.ManualClock;
import io.zmtp.patterns.kit.PatternClock;
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

import static io.zmtp.patterns.PatternTesting.eventually;
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

    /**
     * Servers killed and restarted while requests go on; one alive is enough. Connecting, restarts
     * and replies are real; the tries time out only when the test moves the client's clock, once
     * for each request that went to a killed server first. So a try on a live server never times
     * out because the machine is slow, a restarted server is used again as soon as it answers, and
     * which server answers each request is exact.
     */
    @Test
    void keepsSucceedingWhileOneServerLivesAndFailsAfterOneTimeoutPerServerWhenNoneDoes() {
        Duration timeout = Duration.ofMillis(100);
        FreelanceServer a = server(1, "tcp://127.0.0.1:0");
        FreelanceServer b = server(1, "tcp://127.0.0.1:0");
        String epA = a.endpoint();
        String epB = b.endpoint();
        ManualClock clock = new ManualClock();
        Recorder<FreelanceEvent> events = new Recorder<>();
        FailoverClient client = client(List.of(epA, epB), timeout, 3, events, clock);
        int n = 0;
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 20; i++) {
                answered(client, events, clock, timeout, ++n, false, epA);
            }
            a.close(); // killed: each request times out on it, then B answers
            for (int i = 0; i < 5; i++) {
                answered(client, events, clock, timeout, ++n, true, epB);
            }
            a = server(1, epA); // back on its port
            answered(client, events, clock, timeout, ++n, false, epA); // serving again: only now is B killed
            b.close();
            for (int i = 0; i < 5; i++) {
                answered(client, events, clock, timeout, ++n, false, epA);
            }
            b = server(1, epB);
        }
        a.close();
        b.close();
        CompletableFuture<ZmtpMessage> f = client.requestAsync(ZmtpMessage.ofStrings("nobody"));
        timeOutTheTry(clock, timeout); // on A
        assertFalse(f.isDone(), "B has its try");
        timeOutTheTry(clock, timeout); // on B
        NoReplyException e = assertInstanceOf(NoReplyException.class, failure(f));
        assertEquals(2, e.tries(), "one try per server");
    }

    /**
     * Sends request {@code n} (the client's n-th) and checks that {@code server} answers it with
     * its echo; with {@code firstTimesOut} the first server's try is timed out first.
     */
    static void answered(FailoverClient client, Recorder<FreelanceEvent> events, ManualClock clock,
            Duration timeout, int n, boolean firstTimesOut, String server) {
        String body = Integer.toString(n);
        CompletableFuture<ZmtpMessage> f = client.requestAsync(ZmtpMessage.ofStrings(body));
        if (firstTimesOut) {
            timeOutTheTry(clock, timeout);
        }
        assertEquals(List.of(body), strings(get(f)));
        events.await("request " + n + " answered by " + server,
                e -> e instanceof FreelanceEvent.Replied r && r.request() == n && r.server().equals(server));
        assertEquals(firstTimesOut ? 1 : 0, events.count(e -> e instanceof FreelanceEvent.FailedOver fo
                && fo.request() == n), "request " + n + " failed over only when its first server was killed");
    }

    /** Waits for the try in flight to set its timer (the only one), then lets it run out. */
    static void timeOutTheTry(ManualClock clock, Duration timeout) {
        eventually(() -> "a try's timer set (" + clock + ")", () -> clock.pendingTimers() == 1);
        clock.advance(timeout);
    }
}
