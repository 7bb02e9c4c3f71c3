package io.zmtp.socket;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.time.Duration;

/** A fresh context of two event loops per test, closed after it. */
abstract class ContextTest {
    ZmtpContext ctx;

    @BeforeEach
    void startContext() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void closeContext() {
        ctx.close(Duration.ofSeconds(5));
    }
}
