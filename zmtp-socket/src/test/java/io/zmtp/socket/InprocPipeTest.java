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
        Connected pair = connectedPushPull("inproc://bursts", 100_000);
        ZmtpSocket push = pair.push();
        SocketTesting.Inbox inbox = pair.inbox();
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
        Connected pair = connectedPushPull("inproc://largest-marks", Integer.MAX_VALUE);
        ZmtpSocket push = pair.push();
        SocketTesting.Inbox inbox = pair.inbox();
        get(push.send("sent"));
        assertEquals(List.of("sent"), inbox.next());
    }

    /** A PUSH and what its PULL peer receives. */
    private record Connected(ZmtpSocket push, SocketTesting.Inbox inbox) {
    }

    /** A PUSH connected to a PULL bound at {@code endpoint}, both with high-water marks {@code hwm}. */
    private Connected connectedPushPull(String endpoint, int hwm) {
        SocketOptions options = SocketOptions.builder().hwm(hwm).build();
        ZmtpSocket pull = ctx.socket(SocketType.PULL, options);
        get(pull.bind(endpoint));
        ZmtpSocket push = ctx.socket(SocketType.PUSH, options);
        get(push.connect(endpoint));
        awaitPeers(push, 1);
        return new Connected(push, new SocketTesting.Inbox(pull));
    }
}
