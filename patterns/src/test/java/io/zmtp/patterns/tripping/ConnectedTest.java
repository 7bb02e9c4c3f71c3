package io.zmtp.patterns.tripping;

import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.PatternTesting;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Waiting for a socket's first peer: completed by the handshake, not by polling. */
class ConnectedTest {
    final ZmtpContext ctx = ZmtpContext.create(2);

    @AfterEach
    void stop() {
        ctx.close(Duration.ofSeconds(5));
    }

    @Test
    void theFutureCompletesWithTheFirstHandshakeAndAtOnceWhenAPeerIsThereAlready() {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER, SocketOptions.DEFAULTS);
        String endpoint = PatternTesting.get(Futures.of(router.bind("tcp://127.0.0.1:0")));
        ZmtpSocket dealer = ctx.socket(SocketType.DEALER, SocketOptions.DEFAULTS);
        CompletableFuture<Void> first = Connected.firstPeer(dealer);
        PatternTesting.get(Futures.of(dealer.eventLoop().submit(() -> null))); // the monitor is in place
        assertFalse(first.isDone(), "no peer before connecting");
        dealer.connect(endpoint);
        PatternTesting.get(first);
        assertTrue(PatternTesting.get(Futures.of(dealer.eventLoop().submit(dealer::peerCount))) > 0);
        PatternTesting.get(Connected.firstPeer(dealer)); // a peer is there: no new handshake needed
        Connected.await(dealer);
    }
}
