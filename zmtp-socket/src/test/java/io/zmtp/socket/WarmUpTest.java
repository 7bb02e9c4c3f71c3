package io.zmtp.socket;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ZmtpContext#warmUp}: one message each way over loopback, and nothing left behind. */
class WarmUpTest {

    @Test
    void aWarmUpPassesAMessageBothWaysAndLeavesNoSocketOpen() {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            assertTrue(ctx.warmUp(Duration.ofSeconds(10)), "the message came back");
            SocketTesting.eventually("both warm-up sockets closed",
                    () -> ctx.openSockets().stream().allMatch(ZmtpSocket::isClosed));
        }
    }

    @Test
    void aWarmUpThatCannotFinishInTimeSaysSo() {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            assertFalse(ctx.warmUp(Duration.ZERO), "no time at all: not warmed up");
            SocketTesting.eventually("both warm-up sockets closed",
                    () -> ctx.openSockets().stream().allMatch(ZmtpSocket::isClosed));
        }
    }
}
