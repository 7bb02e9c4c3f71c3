package io.zmtp.patterns.tripping;

import io.zmtp.security.AuthResult;
import io.zmtp.security.Authenticator;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reactor client's asynchronous calls go out in turns of the socket's messages per turn:
 * every count, below, at and across a turn's boundary, sends exactly its calls and gets every
 * reply. That the turns speed the round trip up is a performance property, measured by the
 * benchmarks, not here.
 */
class TrippingClientTest {
    private static final int TURN = SocketOptions.DEFAULTS.messagesPerTurn();

    final ZmtpContext ctx = ZmtpContext.create(2);

    @AfterEach
    void stop() {
        ctx.close(Duration.ofSeconds(5));
    }

    @Test
    void everyCountAroundATurnsBoundaryIsSentOnceAndAnswered() {
        assertTrue(TURN > 1, "the default has turns to cross");
        TrippingBroker broker = new TrippingBroker(ctx);
        String[] bound = broker.bind("tcp://127.0.0.1:0", "tcp://127.0.0.1:0");
        TrippingWorker worker = new TrippingWorker(ctx, bound[1]);
        TrippingClient client = new TrippingClient(ctx, bound[0]);
        long echoed = 0;
        for (int calls : new int[] {1, TURN - 1, TURN, TURN + 1, 3 * TURN + 7}) {
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertTrue(client.asynchronousReactor(calls) > 0));
            echoed += calls;
            long expected = echoed;
            // every reply came before the call returned; the worker saw exactly as many requests
            assertEquals(expected, worker.socket().metrics().messagesIn(), calls + " calls: requests the worker received");
        }
        client.close();
        worker.close();
        broker.close();
    }

    /**
     * The options given reach every socket: with CURVE on both hops the calls are answered, and
     * the broker's CURVE servers heard exactly two client keys, the worker's and the client's, so
     * neither hop fell back to NULL.
     */
    @Test
    void curveOnBothHops() {
        CurveKeyPair brokerKeys = CurveKeyPair.generate();
        CurveKeyPair workerKeys = CurveKeyPair.generate();
        CurveKeyPair clientKeys = CurveKeyPair.generate();
        List<String> heard = new CopyOnWriteArrayList<>();
        Authenticator recording = request -> {
            heard.add(request.clientPublicKeyZ85());
            return AuthResult.allow(request.clientPublicKeyZ85());
        };
        SocketOptions server = SocketOptions.builder().mechanism(CurveMechanism.server(brokerKeys, recording)).build();
        TrippingBroker broker = new TrippingBroker(ctx, server, server);
        String[] bound = broker.bind("tcp://127.0.0.1:0", "tcp://127.0.0.1:0");
        TrippingWorker worker = new TrippingWorker(ctx, bound[1],
                SocketOptions.builder().mechanism(CurveMechanism.client(brokerKeys.publicKey(), workerKeys)).build());
        TrippingClient client = new TrippingClient(ctx, bound[0],
                SocketOptions.builder().mechanism(CurveMechanism.client(brokerKeys.publicKey(), clientKeys)).build());
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            assertTrue(client.synchronous(10) > 0);
            assertTrue(client.asynchronous(1000) > 0);
        });
        assertEquals(1010, worker.socket().metrics().messagesIn());
        assertEquals(Set.of(workerKeys.publicKeyZ85(), clientKeys.publicKeyZ85()), Set.copyOf(heard));
        assertEquals(2, heard.size());
        client.close();
        worker.close();
        broker.close();
    }
}
