package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.zmtp.socket.SocketTesting.awaitPeers;
import static io.zmtp.socket.SocketTesting.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The inproc pipe's queue and capacity, at their edges. */
class InprocPipeTest extends ContextTest {

    @Test
    void burstsLargerThanTheFirstRingArriveWholeAndInOrder() {
        SocketOptions big = SocketOptions.builder().hwm(100_000).build();
        ZmtpSocket pull = ctx.socket(SocketType.PULL, big);
        get(pull.bind("inproc://bursts"));
        ZmtpSocket push = ctx.socket(SocketType.PUSH, big);
        get(push.connect("inproc://bursts"));
        awaitPeers(push, 1);
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(pull);
        int burst = 5_000; // far more than the ring's first 256 slots, all queued before the first flush
        for (int round = 0; round < 3; round++) {
            int r = round;
            boolean[] allTaken = {true};
            get(push.eventLoop().submit(() -> {
                for (int i = 0; i < burst; i++) {
                    allTaken[0] &= push.trySend(ZmtpMessage.ofStrings(r + ":" + i));
                }
            }));
            assertTrue(allTaken[0], "every message fitted under the marks");
            for (int i = 0; i < burst; i++) {
                assertEquals(List.of(r + ":" + i), inbox.next());
            }
        }
    }

    @Test
    void theLargestMarksOnBothSidesStillLeaveRoom() {
        assertEquals(Integer.MAX_VALUE, InprocPipe.marks(Integer.MAX_VALUE, Integer.MAX_VALUE));
        assertEquals(7, InprocPipe.marks(3, 4));
        SocketOptions most = SocketOptions.builder().hwm(Integer.MAX_VALUE).build();
        ZmtpSocket pull = ctx.socket(SocketType.PULL, most);
        get(pull.bind("inproc://largest-marks"));
        ZmtpSocket push = ctx.socket(SocketType.PUSH, most);
        get(push.connect("inproc://largest-marks"));
        awaitPeers(push, 1);
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(pull);
        get(push.send("sent"));
        assertEquals(List.of("sent"), inbox.next());
    }
}
