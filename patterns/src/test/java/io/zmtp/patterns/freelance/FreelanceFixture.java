package io.zmtp.patterns.freelance;

import io.zmtp.testing.Recorder;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.zmtp.patterns.PatternTesting.T;
import static io.zmtp.patterns.PatternTesting.get;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What the Freelance tests share: a context, servers on loopback, cleanup in reverse order. */
abstract class FreelanceFixture {
    /** Clients reconnect quickly, so a restarted server is found at once. */
    static final SocketOptions FAST_RECONNECT = SocketOptions.builder()
            .reconnectInterval(Duration.ofMillis(10)).reconnectIntervalMax(Duration.ofMillis(50)).build();

    ZmtpContext ctx;
    final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void startContext() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stopContext() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        ctx.close(Duration.ofSeconds(5));
    }

    <C extends AutoCloseable> C closing(C c) {
        toClose.add(c);
        return c;
    }

    FreelanceServer server(int model, String endpoint) {
        return server(model, endpoint, null);
    }

    FreelanceServer server(int model, String endpoint, Recorder<FreelanceEvent> events) {
        FreelanceServer s = closing(new FreelanceServer(ctx, FreelanceServer.Settings.builder().model(model)
                .endpoint(endpoint).traceMessages(events != null).build(), events));
        get(s.start().toCompletableFuture());
        return s;
    }

    /** A loopback endpoint with a port free now (a model 3 server must know its port in advance). */
    static String freeEndpoint() throws IOException {
        return io.zmtp.testing.FreePorts.loopbackEndpoint();
    }

    static Throwable failure(CompletableFuture<ZmtpMessage> f) {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> f.get(T.toMillis(), TimeUnit.MILLISECONDS));
        return e.getCause();
    }
}
