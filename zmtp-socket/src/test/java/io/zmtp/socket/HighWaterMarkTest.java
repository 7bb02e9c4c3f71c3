package io.zmtp.socket;

import io.netty.util.concurrent.Future;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.zmtp.socket.SocketTesting.awaitPeers;
import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static io.zmtp.socket.SocketTesting.onLoop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What each type does at the high-water mark, as libzmq: DEALER, PUSH and PAIR wait (or fail
 * after the send timeout), PUB drops, ROUTER drops or, with the mandatory option, waits. Over
 * inproc the capacity is exact: the receiver's unconsumed messages (its receive mark) plus the
 * pipe (sender's send mark + receiver's receive mark).
 */
class HighWaterMarkTest {
    static final int HWM = 4;
    ZmtpContext ctx;

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() {
        ctx.close(Duration.ofSeconds(5));
    }

    static long done(List<Future<Void>> fs) {
        return fs.stream().filter(Future::isDone).count();
    }

    /** A receiver that never consumes (no handler), and a sender connected to it. */
    private ZmtpSocket[] pair(SocketType sender, SocketType receiver, SocketOptions senderOptions, String name) {
        ZmtpSocket r = ctx.socket(receiver, SocketOptions.builder().receiveHwm(HWM).build());
        get(r.bind("inproc://" + name));
        ZmtpSocket s = ctx.socket(sender, senderOptions);
        get(s.connect("inproc://" + name));
        awaitPeers(s, 1);
        awaitPeers(r, 1);
        return new ZmtpSocket[] {s, r};
    }

    @ParameterizedTest
    @CsvSource({"DEALER, ROUTER", "PUSH, PULL", "PAIR, PAIR", "DEALER, DEALER"})
    void blockingTypesWaitAtTheMarkThenResume(SocketType sender, SocketType receiver) {
        ZmtpSocket[] p = pair(sender, receiver, SocketOptions.builder().sendHwm(HWM).build(), "block-" + sender + receiver);
        List<Future<Void>> sends = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            sends.add(p[0].send("m" + i));
        }
        int capacity = HWM + HWM + HWM;
        eventually("sends settle at the mark", () -> done(sends) == capacity
                && onLoop(p[0], p[0]::blockedSends) == 30 - capacity);
        assertFalse(sends.get(capacity).isDone(), "the next send waits");
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(p[1]);
        for (int i = 0; i < 30; i++) {
            List<String> m = inbox.next();
            assertEquals("m" + i, m.get(m.size() - 1), "no message lost or reordered while waiting");
        }
        eventually("every send completes", () -> done(sends) == 30);
    }

    @ParameterizedTest
    @CsvSource({"DEALER, ROUTER", "PUSH, PULL", "PAIR, PAIR"})
    void blockingTypesFailAfterTheSendTimeout(SocketType sender, SocketType receiver) {
        ZmtpSocket[] p = pair(sender, receiver, SocketOptions.builder().sendHwm(HWM)
                .sendTimeout(Duration.ofMillis(50)).build(), "timeout-" + sender + receiver);
        List<Future<Void>> sends = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            sends.add(p[0].send("m" + i));
        }
        eventually("all sends finish", () -> done(sends) == 20);
        long ok = sends.stream().filter(Future::isSuccess).count();
        assertEquals(3L * HWM, ok);
        assertInstanceOf(SendTimeoutException.class, sends.get(19).cause());
    }

    @Test
    void routerDropsForAPeerAtItsMark() {
        ZmtpSocket dealer = ctx.socket(SocketType.DEALER, SocketOptions.builder().identity("d").receiveHwm(HWM).build());
        ZmtpSocket router = ctx.socket(SocketType.ROUTER, SocketOptions.builder().sendHwm(HWM).build());
        get(router.bind("inproc://router-drop"));
        get(dealer.connect("inproc://router-drop"));
        awaitPeers(router, 1);
        List<Future<Void>> sends = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            sends.add(router.send("d", "m" + i));
        }
        eventually("a ROUTER never waits without the mandatory option", () -> done(sends) == 30);
        assertTrue(sends.stream().allMatch(Future::isSuccess));
        // What the ROUTER wrote and what it dropped at the mark is counted: every message written
        // arrives, each within the deadline.
        SocketMetrics m = onLoop(router, router::metrics);
        assertEquals(30, m.messagesOut() + m.hwmDrops(), "each message was written or dropped: " + m);
        int written = (int) m.messagesOut();
        // The pipe always takes its capacity; more fits only if the receiver's loop drained some in
        // between (timing), never beyond the pipe plus the receiver's unconsumed mark.
        assertTrue(written >= 2 * HWM && written <= 3 * HWM, "what fit under the marks was written, the rest dropped: " + m);
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(dealer);
        for (int i = 0; i < written; i++) {
            inbox.next();
        }
        assertEquals(written, onLoop(dealer, dealer::metrics).messagesIn(), "no more arrived than was written");
    }

    @Test
    void mandatoryRouterWaitsAtAPeersMark() {
        ZmtpSocket dealer = ctx.socket(SocketType.DEALER, SocketOptions.builder().identity("d").receiveHwm(HWM).build());
        ZmtpSocket router = ctx.socket(SocketType.ROUTER, SocketOptions.builder().sendHwm(HWM).routerMandatory(true).build());
        get(router.bind("inproc://router-wait"));
        get(dealer.connect("inproc://router-wait"));
        awaitPeers(router, 1);
        List<Future<Void>> sends = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            sends.add(router.send("d", "m" + i));
        }
        eventually("sends settle", () -> done(sends) == 3 * HWM);
        assertFalse(sends.get(3 * HWM).isDone());
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(dealer);
        for (int i = 0; i < 30; i++) {
            assertEquals(List.of("m" + i), inbox.next());
        }
    }
}
