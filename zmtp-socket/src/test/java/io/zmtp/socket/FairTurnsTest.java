package io.zmtp.socket;

import io.zmtp.testing.PeerBytes;
import io.zmtp.testing.RawPeer;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.zmtp.socket.SocketTesting.awaitPeers;
import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A peer with a large backlog does not make the socket's other peers wait for all of it
 * ({@link SocketOptions.Builder#messagesPerTurn}): a flooding peer's whole backlog reaches the
 * ROUTER's kernel buffer while its event loop is held; the loop is let go, and while it handles the
 * flood's first message the probe's message is written (a blocking write on loopback: in the
 * kernel when it returns). The probe's message must then come after at most two turns of the
 * flooder, not after its whole backlog.
 */
class FairTurnsTest {
    private static final int FLOOD = 5_000;

    @Test
    void aProbeIsNotQueuedBehindAFloodersWholeBacklog() throws Exception {
        int perTurn = 32;
        int floodBeforeProbe = run(SocketOptions.builder().messagesPerTurn(perTurn).build());
        assertTrue(floodBeforeProbe <= 2 * perTurn,
                "the probe waited for " + floodBeforeProbe + " flood messages (at most " + 2 * perTurn + ")");
    }

    @Test
    void withoutTurnsTheProbeWaitsForTheBacklogThisTestIsAbout() throws Exception {
        // The same setup with no limit: the flooder's whole backlog (what one read batch of the loop takes of it: all of it here)
        // goes first. This shows the test above measures what it claims.
        int floodBeforeProbe = run(SocketOptions.builder().messagesPerTurn(0).build());
        assertTrue(floodBeforeProbe > 1_000, "without turns the probe waited for " + floodBeforeProbe);
    }

    /** How many flood messages the ROUTER delivered before the probe's. */
    private static int run(SocketOptions options) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            ZmtpSocket router = ctx.socket(SocketType.ROUTER, options);
            AtomicInteger flood = new AtomicInteger();
            AtomicInteger floodBeforeProbe = new AtomicInteger(-1);
            String endpoint = get(router.bind("tcp://127.0.0.1:0"));
            try (RawPeer flooder = RawPeer.handshaken(endpoint, null, "DEALER");
                 RawPeer probe = RawPeer.handshaken(endpoint, null, "DEALER")) {
                awaitPeers(router, 2);
                byte[] probeMessage = PeerBytes.create().frame(false, "probe").toArray();
                router.onMessage(m -> {
                    try {
                        if (m.frameString(1).equals("probe")) {
                            floodBeforeProbe.set(flood.get());
                        } else if (flood.incrementAndGet() == 1) {
                            probe.write(probeMessage);
                        }
                    } finally {
                        m.release();
                    }
                });

                CountDownLatch held = new CountDownLatch(1);
                CountDownLatch release = new CountDownLatch(1);
                router.inLoop(() -> {
                    held.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                assertTrue(held.await(10, TimeUnit.SECONDS));
                PeerBytes backlog = PeerBytes.create();
                for (int i = 0; i < FLOOD; i++) {
                    backlog.frame(false, "f");
                }
                flooder.send(backlog.toArray()); // about 15 KB: all of it in the kernel's buffers
                release.countDown();

                eventually("the flood and the probe delivered", () -> flood.get() == FLOOD && floodBeforeProbe.get() >= 0);
                assertEquals(FLOOD, flood.get());
                return floodBeforeProbe.get();
            }
        }
    }
}
