package io.zmtp.socket;

import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.security.PlainMechanism;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.Frames;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpMetadata;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The context's ZAP handler, written the libzmq way: a REP socket on inproc://zeromq.zap.01 that
 * answers 27/ZAP requests. PLAIN, CURVE and NULL with a domain, over TCP.
 */
class ZapAuthenticatorTest {
    static final Duration T = Duration.ofSeconds(10);

    /** A handler from the RFC: admin/secret and any CURVE or NULL client allowed, others 400. */
    static List<Frames> handler(ZmtpContext ctx) {
        List<Frames> seen = new CopyOnWriteArrayList<>();
        ZmtpSocket rep = ctx.socket(SocketType.REP);
        rep.onMessage(MessageHandler.ofFrames(f -> {
            seen.add(f);
            // a REP socket gets the request without its empty delimiter, and puts it back on the reply
            String mechanism = f.frameString(5);
            boolean ok = !mechanism.equals("PLAIN")
                    || f.frameString(6).equals("admin") && f.frameString(7).equals("secret");
            byte[] metadata = new byte[ZmtpMetadata.builder().put("Hello", "World").build().encodedSize()];
            io.netty.buffer.ByteBuf b = io.netty.buffer.Unpooled.wrappedBuffer(metadata);
            b.writerIndex(0);
            ZmtpMetadata.builder().put("Hello", "World").build().encode(b);
            rep.send(Frames.of(f.frame(0), f.frame(1), ok ? bytes("200") : bytes("400"),
                    bytes(ok ? "OK" : "no"), bytes(ok ? "user-" + mechanism : ""), ok ? metadata : new byte[0])
                    .toMessage());
        }));
        get(rep.bind(ZapAuthenticator.ENDPOINT));
        return seen;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void plainThroughTheHandler() {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            List<Frames> seen = handler(ctx);
            BlockingSocket server = ctx.blocking(SocketType.ROUTER, SocketOptions.builder().zapDomain("global")
                    .mechanism(PlainMechanism.server(ctx.zapAuthenticator())).build());
            String ep = server.bind("tcp://127.0.0.1:0");
            BlockingSocket good = ctx.blocking(SocketType.DEALER, SocketOptions.builder()
                    .mechanism(PlainMechanism.client("admin", "secret")).build()).connect(ep);
            good.send("hi");
            ZmtpMessage m = server.receive(T);
            assertNotNull(m, "the allowed client's message arrives");
            try {
                assertEquals("user-PLAIN", m.properties().userId());
                assertEquals("World", m.properties().getString("Hello"), "the handler's metadata reaches the message");
            } finally {
                m.release();
            }
            Frames request = seen.get(0);
            assertEquals(List.of("1.0", "1", "global", "127.0.0.1", "", "PLAIN", "admin", "secret"),
                    request.toStrings(), "the 27/ZAP request, as libzmq sends it");

            ZmtpSocket bad = ctx.socket(SocketType.DEALER, SocketOptions.builder()
                    .mechanism(PlainMechanism.client("admin", "guess")).build());
            get(bad.connect(ep));
            eventually(() -> "refused with ERROR: " + bad.metrics(),
                    () -> bad.metrics().handshakeFailures(ConnectionFailed.Kind.PEER_ERROR) == 1);
        }
    }

    @Test
    void curveAndNullWithADomainThroughTheHandler() {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            List<Frames> seen = handler(ctx);
            CurveKeyPair serverKeys = CurveKeyPair.generate();
            CurveKeyPair clientKeys = CurveKeyPair.generate();
            BlockingSocket curve = ctx.blocking(SocketType.ROUTER, SocketOptions.builder()
                    .mechanism(CurveMechanism.server(serverKeys, ctx.zapAuthenticator())).build());
            String ep = curve.bind("tcp://127.0.0.1:0");
            ctx.blocking(SocketType.DEALER, SocketOptions.builder()
                    .mechanism(CurveMechanism.client(serverKeys.publicKey(), clientKeys)).build()).connect(ep).send("c");
            ZmtpMessage m = curve.receive(T);
            assertNotNull(m);
            assertEquals("user-CURVE", m.properties().userId());
            m.release();
            Frames r = seen.get(0);
            assertEquals("CURVE", r.frameString(5));
            assertEquals("", r.frameString(2), "no domain set");
            assertArrayEquals(clientKeys.publicKey(), r.frame(6), "the client's 32-byte long-term key");

            BlockingSocket nul = ctx.blocking(SocketType.ROUTER, SocketOptions.builder().zapDomain("edge")
                    .identity("me").build());
            String ep2 = nul.bind("tcp://127.0.0.1:0");
            ctx.blocking(SocketType.DEALER).connect(ep2).send("n");
            m = nul.receive(T);
            assertNotNull(m, "NULL with a domain asks the handler by itself");
            assertEquals("user-NULL", m.properties().userId());
            m.release();
            assertEquals(List.of("1.0", "2", "edge", "127.0.0.1", "me", "NULL"), seen.get(1).toStrings());
        }
    }

    @Test
    void withNoHandlerNullAndCurveGetInAndPlainIsClosedWithoutError() {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            CurveKeyPair serverKeys = CurveKeyPair.generate();
            BlockingSocket curve = ctx.blocking(SocketType.ROUTER, SocketOptions.builder()
                    .mechanism(CurveMechanism.server(serverKeys, ctx.zapAuthenticator())).build());
            String ep = curve.bind("tcp://127.0.0.1:0");
            ctx.blocking(SocketType.DEALER, SocketOptions.builder()
                    .mechanism(CurveMechanism.client(serverKeys.publicKey(), CurveKeyPair.generate())).build())
                    .connect(ep).send("c");
            ZmtpMessage m = curve.receive(T);
            assertNotNull(m, "CURVE without a handler only encrypts, as libzmq");
            assertNull(m.properties().userId());
            m.release();

            BlockingSocket nul = ctx.blocking(SocketType.ROUTER, SocketOptions.builder().zapDomain("edge").build());
            String ep2 = nul.bind("tcp://127.0.0.1:0");
            ctx.blocking(SocketType.DEALER).connect(ep2).send("n");
            m = nul.receive(T);
            assertNotNull(m, "NULL with a domain and no handler lets the client in, as libzmq");
            m.release();

            ZmtpSocket plain = ctx.socket(SocketType.ROUTER, SocketOptions.builder()
                    .mechanism(PlainMechanism.server(ctx.zapAuthenticator())).build());
            String ep3 = get(plain.bind("tcp://127.0.0.1:0"));
            ZmtpSocket client = ctx.socket(SocketType.DEALER, SocketOptions.builder()
                    .mechanism(PlainMechanism.client("admin", "secret")).build());
            get(client.connect(ep3));
            eventually(() -> "refused: " + plain.metrics(),
                    () -> plain.metrics().handshakeFailures(ConnectionFailed.Kind.AUTHENTICATION) >= 1);
            eventually(() -> "the client saw a close, no ERROR, and retries: " + client.metrics(),
                    () -> client.metrics().handshakeFailuresTotal() >= 2);
            assertEquals(0, client.metrics().handshakeFailures(ConnectionFailed.Kind.PEER_ERROR));
        }
    }
}
