package io.zmtp.patterns.kit;

import io.netty.channel.EventLoop;
import io.zmtp.patterns.PatternTesting;
import io.zmtp.socket.SocketClosedException;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Every kit client's lifecycle: when its event loop is shut down under it (its context closed
 * first), its requests fail instead of waiting out timeouts that can no longer fire.
 */
class RequesterComponentTest {
    final ZmtpContext serverCtx = ZmtpContext.create(1);
    final ZmtpContext clientCtx = ZmtpContext.create(1);
    final ManualClock clock = new ManualClock(); // never moved: no timeout can end a request here
    final BlockingQueue<ZmtpMessage> atServer = new LinkedBlockingQueue<>();

    @AfterEach
    void stop() {
        clientCtx.close(Duration.ZERO);
        ZmtpMessage m;
        while ((m = atServer.poll()) != null) {
            m.release();
        }
        serverCtx.close(Duration.ofSeconds(5));
    }

    /** A client of the kit, as the Lazy Pirate and Binary Star clients are, over REQ sockets. */
    static final class Client extends RequesterClient {
        Client(ZmtpContext ctx, PatternClock clock, String endpoint) {
            super(ctx.group().next(), clock);
            EventLoop loop = eventLoop();
            SocketOptions options = SocketOptions.builder().linger(Duration.ZERO).build();
            requester(new RetryingRequester<>(clock(), RetryPolicy.DEFAULT.withTimeout(Duration.ofHours(1)),
                    endpoint, () -> ctx.socket(SocketType.REQ, options, loop), ReplyJudge.Verdict::done, null));
        }
    }

    /** A server that takes requests and never answers. */
    String silentServer() {
        ZmtpSocket server = serverCtx.socket(SocketType.ROUTER, SocketOptions.DEFAULTS);
        server.onMessage(atServer::add);
        return PatternTesting.get(Futures.of(server.bind("tcp://127.0.0.1:0")));
    }

    @Test
    void aRequestInFlightFailsWhenTheClientsLoopIsShutDownAndSoDoesALaterOne() throws Exception {
        Client client = new Client(clientCtx, clock, silentServer());
        PatternTesting.get(client.start().toCompletableFuture());
        CompletableFuture<ZmtpMessage> inFlight = client.requestAsync(ZmtpMessage.ofStrings("hello"));
        ZmtpMessage got = atServer.poll(10, TimeUnit.SECONDS);
        assertNotNull(got, "the request reached the server");
        got.release();

        clientCtx.close(Duration.ZERO); // the context, and the client's loop with it, goes first

        ExecutionException e = assertThrows(ExecutionException.class,
                () -> inFlight.get(10, TimeUnit.SECONDS), "the request does not hang");
        assertInstanceOf(SocketClosedException.class, e.getCause());
        ExecutionException later = assertThrows(ExecutionException.class,
                () -> client.requestAsync(ZmtpMessage.ofStrings("again")).get(10, TimeUnit.SECONDS),
                "a request made after fails at once");
        assertInstanceOf(SocketClosedException.class, later.getCause());
        client.closeAsync().toCompletableFuture().get(10, TimeUnit.SECONDS); // closing afterwards completes
    }
}
