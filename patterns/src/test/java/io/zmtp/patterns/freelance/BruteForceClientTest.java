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

/** Freelance model 2: every server gets every request; the first reply with its number wins. */
class BruteForceClientTest extends FreelanceFixture {

    BruteForceClient client(List<String> endpoints, Duration timeout, Recorder<FreelanceEvent> events,
            PatternClock clock) {
        BruteForceClient c = closing(new BruteForceClient(ctx, BruteForceClient.Settings.builder()
                .endpoints(endpoints).globalTimeout(timeout).socketOptions(FAST_RECONNECT).clock(clock).build(),
                events));
        get(c.start().toCompletableFuture());
        return c;
    }

    @Test
    void everyServerGetsTheRequestAndTheFirstReplyWins() {
        Recorder<FreelanceEvent> sa = new Recorder<>();
        Recorder<FreelanceEvent> sb = new Recorder<>();
        FreelanceServer a = server(2, "tcp://127.0.0.1:0", sa);
        FreelanceServer b = server(2, "tcp://127.0.0.1:0", sb);
        Recorder<FreelanceEvent> events = new Recorder<>();
        BruteForceClient client = client(List.of(a.endpoint(), b.endpoint()), Duration.ofSeconds(5), events,
                PatternClock.system());
        // The DEALER spreads the copies over the servers connected now: wait until both are.
        sendUntilBothAnswered(client, sa, sb);
        ZmtpMessage reply = client.request(ZmtpMessage.ofStrings("the body"));
        assertEquals(List.of("OK"), strings(reply), "the server's OK after the sequence number");
        events.await("the second server's reply discarded",
                e -> e instanceof FreelanceEvent.Discarded d && d.reason().contains("no pending request"));
    }

    private static void sendUntilBothAnswered(BruteForceClient client, Recorder<FreelanceEvent> sa,
            Recorder<FreelanceEvent> sb) {
        eventually("both servers answered a request", () -> {
            strings(client.request(ZmtpMessage.ofStrings("warm-up")));
            return sa.count(e -> e instanceof FreelanceEvent.Answered) > 0
                    && sb.count(e -> e instanceof FreelanceEvent.Answered) > 0;
        });
    }

    @Test
    void aLateReplyToAnOlderRequestIsDiscarded() throws Exception {
        // A server that keeps requests until told to answer them.
        ZmtpSocket slow = closing(ctx.socket(SocketType.ROUTER));
        BlockingQueue<ZmtpMessage> held = new LinkedBlockingQueue<>();
        slow.onMessage(held::add);
        String ep = get(Futures.of(slow.bind("tcp://127.0.0.1:0")));
        ManualClock clock = new ManualClock();
        Recorder<FreelanceEvent> events = new Recorder<>();
        BruteForceClient client = client(List.of(ep), Duration.ofMillis(2500), events, clock);

        CompletableFuture<ZmtpMessage> one = client.requestAsync(ZmtpMessage.ofStrings("one"));
        ZmtpMessage first = poll(held); // [client, "", "1", "one"]
        assertEquals("1", first.frameString(2));
        clock.advance(Duration.ofMillis(2499));
        assertFalse(one.isDone());
        clock.advance(Duration.ofMillis(1));
        assertInstanceOf(NoReplyException.class, failure(one));

        CompletableFuture<ZmtpMessage> two = client.requestAsync(ZmtpMessage.ofStrings("two"));
        ZmtpMessage second = poll(held);
        assertEquals("2", second.frameString(2));
        slow.send(ZmtpMessage.of(first.frame(0).retainedSlice()).addEmpty().add("1").add("late"));
        events.await("the late reply discarded", e -> e instanceof FreelanceEvent.Discarded);
        assertFalse(two.isDone(), "a reply to request 1 is not request 2's");
        slow.send(ZmtpMessage.of(second.frame(0).retainedSlice()).addEmpty().add("2").add("OK"));
        assertEquals(List.of("OK"), strings(get(two)));
        first.release();
        second.release();
    }

    static ZmtpMessage poll(BlockingQueue<ZmtpMessage> q) throws InterruptedException {
        ZmtpMessage m = q.poll(10, TimeUnit.SECONDS);
        assertNotNull(m, "a request within 10 s");
        return m;
    }

    /**
     * Servers killed and restarted while requests go on; one alive is enough. Connecting, restarts
     * and replies are real; the global timeout runs out only when the test moves the client's
     * clock, so a request waits for a live server however slow the machine is, and fails after
     * exactly the global timeout once none is left.
     */
    @Test
    void keepsSucceedingWhileOneServerLivesAndFailsAfterTheGlobalTimeoutWhenNoneDoes() {
        FreelanceServer a = server(2, "tcp://127.0.0.1:0");
        FreelanceServer b = server(2, "tcp://127.0.0.1:0");
        String epA = a.endpoint();
        String epB = b.endpoint();
        ManualClock clock = new ManualClock();
        BruteForceClient client = client(List.of(epA, epB), Duration.ofMillis(1000), null, clock);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 20; i++) {
                assertEquals(List.of("OK"), strings(client.request(ZmtpMessage.ofStrings("r"))));
            }
            a.close();
            for (int i = 0; i < 20; i++) {
                assertEquals(List.of("OK"), strings(client.request(ZmtpMessage.ofStrings("r"))));
            }
            Recorder<FreelanceEvent> servedByA = new Recorder<>();
            a = server(2, epA, servedByA); // back on its port
            // Serving again (it answered one of this client's requests): only now is B killed.
            eventually(() -> "the restarted server answered (" + servedByA.all() + ")", () -> {
                assertEquals(List.of("OK"), strings(client.request(ZmtpMessage.ofStrings("r"))));
                return servedByA.count(e -> e instanceof FreelanceEvent.Answered) > 0;
            });
            b.close();
            for (int i = 0; i < 20; i++) {
                assertEquals(List.of("OK"), strings(client.request(ZmtpMessage.ofStrings("r"))));
            }
            b = server(2, epB);
        }
        a.close();
        b.close();
        CompletableFuture<ZmtpMessage> f = client.requestAsync(ZmtpMessage.ofStrings("nobody"));
        eventually(() -> "the request's timer set (" + clock + ")", () -> clock.pendingTimers() == 1);
        clock.advance(Duration.ofMillis(999));
        assertFalse(f.isDone(), "no server, but the global timeout has not run out");
        clock.advance(Duration.ofMillis(1));
        assertInstanceOf(NoReplyException.class, failure(f));
    }
}
