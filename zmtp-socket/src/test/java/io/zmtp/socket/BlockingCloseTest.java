package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.zmtp.socket.SocketTesting.get;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Closing a {@link BlockingSocket} while a user thread takes from it: the inbox has one consumer
 * at a time, so no message is taken twice (a double release) or left unreleased (a leak, which
 * the leak check fails the test on).
 */
class BlockingCloseTest extends ContextTest {

    @Test
    void closingWhileAUserThreadTakesNeitherLeaksNorReleasesTwice() throws Exception {
        for (int round = 0; round < 50; round++) {
            String ep = "inproc://close-race-" + round;
            BlockingSocket pull = ctx.blocking(SocketType.PULL, SocketOptions.builder().linger(Duration.ZERO).build());
            pull.bind(ep);
            ZmtpSocket push = ctx.socket(SocketType.PUSH, SocketOptions.builder().linger(Duration.ZERO).build());
            get(push.connect(ep));
            for (int i = 0; i < 2000; i++) {
                push.send("m" + i);
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch taking = new CountDownLatch(1);
            Thread taker = new Thread(() -> {
                try {
                    taking.countDown();
                    for (;;) {
                        ZmtpMessage m = pull.receive(Duration.ofMillis(1));
                        if (m != null) {
                            m.release();
                        } else if (pull.socket().isClosed()) {
                            return;
                        }
                    }
                } catch (SocketClosedException e) {
                    // the expected end
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "taker-" + round);
            taker.start();
            assertTrue(taking.await(10, TimeUnit.SECONDS));
            pull.close(Duration.ZERO);
            taker.join(10_000);
            assertTrue(!taker.isAlive(), "the taker saw the close");
            assertNull(failure.get(), () -> "the taker failed: " + failure.get());
            get(push.close(Duration.ZERO));
        }
    }

    @Test
    void aSendThatRacedTheCloseHasItsMessageReleased() throws Exception {
        // What a user thread's send does when it passed the closing check just before the close
        // and reaches the outbox after the close emptied it: the message must still be released.
        BlockingSocket push = ctx.blocking(SocketType.PUSH, SocketOptions.builder().linger(Duration.ZERO).build());
        push.close(Duration.ZERO);
        assertTrue(push.socket().closeFuture().isDone());
        ZmtpMessage late = ZmtpMessage.ofStrings("late");
        late.retain();   // our own reference, to watch the outbox's one
        try {
            assertTrue(push.enqueue(late), "the outbox had room");
            SocketTesting.eventually("the drain released the late message", () -> late.refCnt() == 1);
        } finally {
            late.release();
        }
    }
}
