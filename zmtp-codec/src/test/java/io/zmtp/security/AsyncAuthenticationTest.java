package io.zmtp.security;

import io.zmtp.testing.CodecHarness;
import io.zmtp.testing.PeerBytes;
import io.zmtp.wire.AuthenticationWaits;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.HandshakeCompleted;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMetadata;
import io.zmtp.wire.ZmtpOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.zmtp.security.PlainMechanismTest.greeting;
import static io.zmtp.security.PlainMechanismTest.hello;
import static io.zmtp.testing.PeerBytes.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An authenticator that answers later, on a codec driven by hand: the handshake waits with
 * reading paused, and ends with the answer, the authentication timeout, the client's going, or
 * the socket's bound of waiting handshakes. Time is the embedded channel's, advanced by the test.
 */
class AsyncAuthenticationTest {
    /** Answers each request with a future the test completes. */
    static final class Later implements Authenticator {
        final List<AuthRequest> requests = new ArrayList<>();
        final List<CompletableFuture<AuthResult>> answers = new ArrayList<>();

        @Override
        public AuthResult authenticate(AuthRequest request) {
            throw new AssertionError("the codec asks asynchronously");
        }

        @Override
        public CompletableFuture<AuthResult> authenticateAsync(AuthRequest request) {
            requests.add(request);
            CompletableFuture<AuthResult> f = new CompletableFuture<>();
            answers.add(f);
            return f;
        }
    }

    static ZmtpOptions plainServer(Authenticator a, AuthenticationWaits waits) {
        return ZmtpOptions.builder(SocketType.ROUTER).mechanism(PlainMechanism.server(a)).zapDomain("global")
                .identity("srv").authenticationTimeout(Duration.ofSeconds(3)).authenticationWaits(waits).build();
    }

    static byte[] helloBytes() {
        return greeting(false).command("HELLO", hello("admin", "secret")).toArray();
    }

    @Test
    void plainHandshakeWaitsForALateAnswerWithReadingPaused() {
        Later later = new Later();
        AuthenticationWaits waits = new AuthenticationWaits(8);
        try (CodecHarness h = new CodecHarness(plainServer(later, waits))) {
            h.feed(helloBytes());
            assertEquals(64, h.written().length, "nothing but our greeting before the answer");
            assertEquals(1, later.requests.size());
            AuthRequest r = later.requests.get(0);
            assertEquals("PLAIN", r.mechanism());
            assertEquals("global", r.domain());
            assertArrayEquals("srv".getBytes(), r.routingId(), "the server's own routing id, as libzmq sends");
            assertEquals("admin", r.username());
            assertFalse(h.channel.config().isAutoRead(), "reading pauses while the handshake waits");
            assertEquals(1, waits.waiting());

            later.answers.get(0).complete(AuthResult.allow("bob",
                    ZmtpMetadata.builder().put("Role", "admin").build()));
            assertArrayEquals(PeerBytes.create().command("WELCOME", new byte[0]).toArray(), h.written());
            assertTrue(h.channel.config().isAutoRead(), "reading resumes with the answer");
            assertEquals(0, waits.waiting());

            h.feed(PeerBytes.create().command("INITIATE", PeerBytes.properties("Socket-Type", "DEALER")).toArray());
            HandshakeCompleted done = h.handshake();
            assertNotNull(done);
            assertEquals("bob", done.peerMetadata().userId());
            assertEquals("admin", done.peerMetadata().getString("Role"), "the answer's properties reach the peer's metadata");
        }
    }

    @Test
    void noAnswerWithinTheTimeoutRefusesWith300WithoutError() {
        Later later = new Later();
        AuthenticationWaits waits = new AuthenticationWaits(8);
        try (CodecHarness h = new CodecHarness(plainServer(later, waits))) {
            h.feed(helloBytes());
            h.written();
            h.advance(2_999);
            assertTrue(h.channel.isOpen(), "still waiting before the timeout");
            h.advance(1);
            assertFalse(h.channel.isOpen(), "closed at the authentication timeout");
            assertEquals(0, h.written().length, "300 closes without ERROR, so the client retries");
            ConnectionFailed f = h.failure();
            assertEquals(ConnectionFailed.Kind.AUTHENTICATION, f.kind());
            assertTrue(f.reason().contains("(300)") && f.reason().contains("within"), f.reason());
            assertEquals(0, waits.waiting());
            assertTrue(later.answers.get(0).isCancelled(), "the late answer is cancelled, so its source can forget it");
            later.answers.get(0).complete(AuthResult.allow("late"));
            assertEquals(0, h.written().length);
        }
    }

    @Test
    void aClientThatGoesGivesItsPlaceBack() {
        Later later = new Later();
        AuthenticationWaits waits = new AuthenticationWaits(8);
        try (CodecHarness h = new CodecHarness(plainServer(later, waits))) {
            h.feed(helloBytes());
            assertEquals(1, waits.waiting());
            h.peerClosed();
            assertEquals(0, waits.waiting());
            assertTrue(later.answers.get(0).isCancelled());
        }
    }

    @Test
    void pastTheBoundNewHandshakesAreRefusedAtOnceWith300() {
        Later later = new Later();
        AuthenticationWaits waits = new AuthenticationWaits(2);
        ZmtpOptions options = plainServer(later, waits);
        try (CodecHarness a = new CodecHarness(options); CodecHarness b = new CodecHarness(options);
             CodecHarness c = new CodecHarness(options)) {
            a.feed(helloBytes());
            b.feed(helloBytes());
            c.feed(helloBytes());
            assertEquals(2, later.requests.size(), "the third never reaches the authenticator");
            assertEquals(2, waits.waiting());
            assertFalse(c.channel.isOpen());
            assertEquals(64, c.written().length, "refused with 300: our greeting and no ERROR");
            assertTrue(c.failure().reason().contains("too many handshakes"), c.failure().reason());
            assertTrue(a.channel.isOpen() && b.channel.isOpen());

            later.answers.get(0).complete(AuthResult.deny("400", "no"));
            assertFalse(a.channel.isOpen());
            byte[] out = a.written();
            assertArrayEquals(hex("04 0A 05 45 52 52 4F 52 03 34 30 30"), Arrays.copyOfRange(out, 64, out.length));
            try (CodecHarness d = new CodecHarness(options)) {
                d.feed(helloBytes());
                assertEquals(3, later.requests.size(), "a place freed by an answer is taken by the next");
                assertTrue(d.channel.isOpen());
            }
        }
    }

    @Test
    void aFailedAnswerRefusesWith500() {
        Later later = new Later();
        try (CodecHarness h = new CodecHarness(plainServer(later, new AuthenticationWaits(8)))) {
            h.feed(helloBytes());
            h.written();
            later.answers.get(0).completeExceptionally(new IllegalStateException("directory down"));
            assertArrayEquals(hex("04 0A 05 45 52 52 4F 52 03 35 30 30"), h.written());
            assertEquals(ConnectionFailed.Kind.HANDSHAKE, h.failure().kind());
        }
    }

    @Test
    void aCommandWhileWaitingIsAProtocolError() {
        Later later = new Later();
        AuthenticationWaits waits = new AuthenticationWaits(8);
        try (CodecHarness h = new CodecHarness(plainServer(later, waits))) {
            byte[] early = PeerBytes.create().greeting(3, 1, "PLAIN", false, 0).command("HELLO", hello("a", "b"))
                    .command("INITIATE", PeerBytes.properties("Socket-Type", "DEALER")).toArray();
            h.feed(early);
            assertFalse(h.channel.isOpen(), "INITIATE before WELCOME closes the connection");
            assertTrue(h.failure().reason().contains("expected the authenticator's answer, got INITIATE"),
                    h.failure().reason());
            assertEquals(0, waits.waiting());
        }
    }

    @Test
    void nullWithAnAuthenticatorSendsReadyOnlyOnceAllowed() {
        Later later = new Later();
        ZmtpOptions options = ZmtpOptions.builder(SocketType.ROUTER).mechanism(AuthenticatingNullMechanism.of(later))
                .zapDomain("global").build();
        try (CodecHarness h = new CodecHarness(options)) {
            h.feed(PeerBytes.create().greeting(3, 1, "NULL", false, 0).ready("Socket-Type", "DEALER").toArray());
            assertEquals(64, h.written().length, "no READY before the answer");
            assertEquals("NULL", later.requests.get(0).mechanism());
            assertEquals(List.of(), later.requests.get(0).credentials());
            assertNull(h.handshake());
            later.answers.get(0).complete(AuthResult.allow(""));
            byte[] out = h.written();
            assertEquals("READY", new String(out, 3, 5), "READY once allowed");
            assertEquals("", h.handshake().peerMetadata().userId(), "an empty user id is kept, as libzmq keeps it");
        }
        Later denying = new Later();
        try (CodecHarness h = new CodecHarness(ZmtpOptions.builder(SocketType.ROUTER)
                .mechanism(AuthenticatingNullMechanism.of(denying)).build())) {
            h.feed(PeerBytes.create().greeting(3, 1, "NULL", false, 0).toArray());
            h.written();
            denying.answers.get(0).complete(AuthResult.deny("400", "address denied"));
            assertArrayEquals(hex("04 0A 05 45 52 52 4F 52 03 34 30 30"), h.written(), "ERROR 400 and no READY");
            assertFalse(h.channel.isOpen());
        }
    }
}
