package io.zmtp.patterns.freelance;

import io.zmtp.testing.ClosingPort;
import io.zmtp.testing.RawPeer;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.zmtp.patterns.PatternTesting.get;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real time, the seconds the rule needs: a Freelance client of each model, with its default
 * socket options, whose only server is down behind a proxy (its port accepts and resets each
 * connection, a {@link ClosingPort}) while a request waits, makes ten connection attempts within
 * 5 s, and is answered soon after the server binds (model 1: a try of 15 s on a REQ socket of its
 * own; model 2: a DEALER and model 3: a ROUTER, both kept from the start).
 *
 * <p>The patterns' default ({@link io.zmtp.patterns.kit.ComponentSettings#SOCKET_OPTIONS}) tries
 * at most 200 ms apart, and model 3 pings a server at each handshake, so the client is back in
 * service within a few hundred milliseconds of the server accepting again (issue 30). The
 * library's own reconnect delay doubles up to 5 s: its tenth attempt would come after 20 s, and
 * after a 4 s outage the reply came 2.3 s after the server bound (checked). The Binary Star
 * client tries as model 1 and the Lazy Pirate client do, through the kit's RetryingRequester with
 * a REQ socket per try ({@code LazyPirateClientTest.aTryWaitingForItsServerIsAnsweredSoonAfterItBinds}).
 */
class ServerComingBackTest extends FreelanceFixture {
    /** Attempts the client makes while its server is down: ten within 5 s, at most 200 ms apart. */
    static final int ATTEMPTS = 10;
    static final Duration ATTEMPTS_WITHIN = Duration.ofSeconds(5);
    /** Generous for a busy machine, and still short of what the library's doubling would take. */
    static final long BACK_WITHIN_MS = 1500;

    @ParameterizedTest(name = "model {0}")
    @ValueSource(ints = {1, 2, 3})
    void aRequestWaitingForTheOnlyServerIsAnsweredSoonAfterItBinds(int model) throws Exception {
        String endpoint = freeEndpoint();
        Duration timeout = Duration.ofSeconds(15);
        ClosingPort down = closing(new ClosingPort(RawPeer.port(endpoint)));
        CompletableFuture<ZmtpMessage> reply;
        if (model == 1) {
            FailoverClient c = closing(new FailoverClient(ctx, FailoverClient.Settings.builder()
                    .endpoints(List.of(endpoint)).timeout(timeout).retries(1).build()));
            get(c.start().toCompletableFuture());
            reply = c.requestAsync(ZmtpMessage.ofStrings("while down"));
        } else if (model == 2) {
            BruteForceClient c = closing(new BruteForceClient(ctx, BruteForceClient.Settings.builder()
                    .endpoints(List.of(endpoint)).globalTimeout(timeout).build(), null));
            get(c.start().toCompletableFuture());
            reply = c.requestAsync(ZmtpMessage.ofStrings("while down"));
        } else {
            FreelanceClient c = closing(new FreelanceClient(ctx, FreelanceClient.Settings.builder()
                    .endpoints(List.of(endpoint)).build(), null));
            get(c.start().toCompletableFuture());
            reply = c.requestAsync(ZmtpMessage.ofStrings("while down"), timeout);
        }
        down.awaitAccepted(ATTEMPTS, ATTEMPTS_WITHIN);
        down.close();
        long up = System.nanoTime();
        server(model, endpoint);
        ZmtpMessage m = reply.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - up);
        assertNotNull(m);
        m.release();
        System.out.println("freelance model " + model + ": answered " + ms + " ms after the server bound, after "
                + down.accepted() + " attempts while it was down");
        assertTrue(ms < BACK_WITHIN_MS, "answered " + ms + " ms after the server bound");
    }
}
