package io.zmtp.socket;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.zmtp.security.PlainMechanism;
import io.zmtp.security.Authenticator;
import io.zmtp.testing.Await;
import io.zmtp.transport.TlsSettings;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * tls:// (ZMTP inside TLS) and wss:// (ZWS 2.0 inside TLS), ours against ours, with certificates
 * made for the test (a CA, a server certificate for 127.0.0.1, client certificates): messages
 * both ways; mutual TLS, where the client certificate's subject is the User-Id of every message
 * from that client (and the server's subject on the client's side); a client without a
 * certificate, one that does not trust the server's CA, and one expecting another host name
 * (Netty 4.2 checks names by default) are refused while a good client of the same socket is served; a mechanism's own user (PLAIN) wins
 * over the certificate; and endpoints without TLS settings fail to bind and connect, saying why.
 */
class TlsTransportTest {
    static final Duration T = Duration.ofSeconds(10);
    static X509Bundle ca;
    static X509Bundle server;
    static X509Bundle alice;
    static X509Bundle otherCa;
    static X509Bundle stranger;

    ZmtpContext ctx;

    @BeforeAll
    static void certificates() throws Exception {
        ca = new CertificateBuilder().subject("CN=zmtp test CA").setIsCertificateAuthority(true).ecp256()
                .buildSelfSigned();
        server = new CertificateBuilder().subject("CN=server,O=zmtp").addSanIpAddress("127.0.0.1")
                .addSanDnsName("localhost").addExtendedKeyUsageServerAuth().ecp256().buildIssuedBy(ca);
        alice = new CertificateBuilder().subject("CN=alice,O=zmtp").addExtendedKeyUsageClientAuth().ecp256()
                .buildIssuedBy(ca);
        otherCa = new CertificateBuilder().subject("CN=other CA").setIsCertificateAuthority(true).ecp256()
                .buildSelfSigned();
        stranger = new CertificateBuilder().subject("CN=mallory").addExtendedKeyUsageClientAuth().ecp256()
                .buildIssuedBy(otherCa);
    }

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() {
        ctx.close(Duration.ofSeconds(5));
    }

    static SslContext serverContext(ClientAuth auth) throws Exception {
        return SslContextBuilder.forServer(server.getKeyPair().getPrivate(), server.getCertificatePath())
                .trustManager(ca.getCertificate()).clientAuth(auth).build();
    }

    static SslContext clientContext(X509Bundle own, X509Bundle trusted) throws Exception {
        SslContextBuilder b = SslContextBuilder.forClient().trustManager(trusted.getCertificate());
        if (own != null) {
            b.keyManager(own.getKeyPair().getPrivate(), own.getCertificatePath());
        }
        return b.build();
    }

    BlockingSocket router(ClientAuth auth) throws Exception {
        return ctx.blocking(SocketType.ROUTER, SocketOptions.builder()
                .tls(TlsSettings.server(serverContext(auth))).build());
    }

    BlockingSocket dealer(String identity, TlsSettings tls) {
        return ctx.blocking(SocketType.DEALER, SocketOptions.builder().identity(identity)
                .reconnectInterval(Duration.ofMillis(50)).reconnectIntervalMax(Duration.ofMillis(200)).tls(tls).build());
    }

    static String endpoint(String transport) {
        return transport.equals("tls") ? "tls://127.0.0.1:0" : "wss://127.0.0.1:0/zmtp";
    }

    /**
     * A tls:// endpoint with two listening sockets (SocketOptions.listeners): both on the port,
     * and every connection, whichever took it, gets TLS and the ZMTP handshake.
     */
    @Test
    void aTlsEndpointWithTwoListenersServesThroughBoth() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/net/tcp")));
        BlockingSocket router = ctx.blocking(SocketType.ROUTER, SocketOptions.builder().listeners(2)
                .tls(TlsSettings.server(serverContext(ClientAuth.REQUIRE))).build());
        String ep = router.bind("tls://127.0.0.1:0");
        assertEquals(2, ListenersTest.listening(ListenersTest.port(ep)), "listening sockets on the port");
        for (int i = 0; i < 12; i++) {
            dealer("D" + i, TlsSettings.client(clientContext(alice, ca))).connect(ep).send("hello " + i);
        }
        java.util.Set<String> got = new java.util.HashSet<>();
        for (int i = 0; i < 12; i++) {
            ZmtpMessage m = router.receive(T);
            assertNotNull(m, "message " + i);
            try {
                assertEquals("CN=alice,O=zmtp", m.properties().userId());
                got.add(new String(m.frameBytes(1)));
            } finally {
                m.release();
            }
        }
        assertEquals(12, got.size(), "every dealer's message, over TLS");
    }

    @ParameterizedTest
    @ValueSource(strings = {"tls", "wss"})
    void mutualTlsGivesTheCertificateSubjectAsUserId(String transport) throws Exception {
        BlockingSocket router = router(ClientAuth.REQUIRE);
        String ep = router.bind(endpoint(transport));
        assertTrue(ep.startsWith(transport + "://127.0.0.1:") && !ep.contains(":0"), ep);
        BlockingSocket dealer = dealer("D", TlsSettings.client(clientContext(alice, ca)));
        dealer.connect(ep);
        dealer.send("hello");
        ZmtpMessage m = router.receive(T);
        assertNotNull(m, "the router received the message");
        try {
            assertEquals("D", new String(m.frameBytes(0)));
            assertEquals("hello", new String(m.frameBytes(1)));
            assertEquals("CN=alice,O=zmtp", m.properties().userId());
        } finally {
            m.release();
        }
        router.send("D", "world");
        ZmtpMessage back = dealer.receive(T);
        assertNotNull(back);
        try {
            assertEquals("world", new String(back.frameBytes(0)));
            assertEquals("CN=server,O=zmtp", back.properties().userId(), "the client sees the server's subject");
        } finally {
            back.release();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tls", "wss"})
    void clientsTheServerCannotTrustAreRefusedWhileAGoodOneIsServed(String transport) throws Exception {
        BlockingSocket router = router(ClientAuth.REQUIRE);
        String ep = router.bind(endpoint(transport));
        BlockingSocket anonymous = dealer("anonymous", TlsSettings.client(clientContext(null, ca)));
        BlockingSocket foreign = dealer("foreign", TlsSettings.client(clientContext(stranger, ca)));
        BlockingSocket distrustful = dealer("distrustful", TlsSettings.client(clientContext(alice, otherCa)));
        for (BlockingSocket refused : List.of(anonymous, foreign, distrustful)) {
            List<SocketEvent> events = new CopyOnWriteArrayList<>();
            refused.socket().monitor(events::add);
            refused.connect(ep);
            refused.send("from " + refused);
            Await.until(() -> refused + " connected and was closed twice", () -> events.stream()
                    .filter(e -> e.type() == SocketEvent.Type.RECONNECT_SCHEDULED).count() >= 2);
        }
        BlockingSocket good = dealer("good", TlsSettings.client(clientContext(alice, ca)));
        good.connect(ep);
        good.send("from good");
        List<String> got = router.receiveStrings(T);
        assertEquals(List.of("good", "from good"), got);
        assertNull(router.receiveStrings(Duration.ofMillis(200)), "no refused client got a message through");
    }

    @Test
    void aServerCertificateForAnotherNameIsRefusedUnlessTheContextSkipsTheCheck() throws Exception {
        BlockingSocket router = router(ClientAuth.NONE);
        String ep = router.bind("tls://127.0.0.1:0");
        BlockingSocket wrongName = dealer("W", TlsSettings.client(clientContext(null, ca)).withServerName("elsewhere.example"));
        List<SocketEvent> wrongNameEvents = new CopyOnWriteArrayList<>();
        wrongName.socket().monitor(wrongNameEvents::add);
        wrongName.connect(ep);
        wrongName.send("should not arrive");
        // it reached the server and was refused, twice: the check ran, and did not pass
        Await.until(() -> "the client checking the name connected and was closed twice: " + wrongNameEvents,
                () -> wrongNameEvents.stream().filter(e -> e.type() == SocketEvent.Type.RECONNECT_SCHEDULED).count() >= 2);
        assertTrue(wrongNameEvents.stream().noneMatch(e -> e.type() == SocketEvent.Type.HANDSHAKE_SUCCEEDED),
                "no handshake with a server certificate for another name: " + wrongNameEvents);
        BlockingSocket relaxed = dealer("R", TlsSettings.client(SslContextBuilder.forClient()
                .trustManager(ca.getCertificate()).endpointIdentificationAlgorithm(null).build())
                .withServerName("elsewhere.example"));
        relaxed.connect(ep);
        relaxed.send("arrives");
        assertEquals(List.of("R", "arrives"), router.receiveStrings(T));
        assertNull(router.receiveStrings(Duration.ofMillis(300)), "the client that checked the name did not connect");
    }

    @Test
    void aMechanismUserWinsOverTheCertificate() throws Exception {
        BlockingSocket router = ctx.blocking(SocketType.ROUTER, SocketOptions.builder()
                .tls(TlsSettings.server(serverContext(ClientAuth.REQUIRE)))
                .mechanism(PlainMechanism.server(Authenticator.plainAccounts(Map.of("bob", "pw")))).build());
        String ep = router.bind("tls://127.0.0.1:0");
        BlockingSocket dealer = ctx.blocking(SocketType.DEALER, SocketOptions.builder().identity("D")
                .mechanism(PlainMechanism.client("bob", "pw"))
                .tls(TlsSettings.client(clientContext(alice, ca))).build());
        dealer.connect(ep);
        dealer.send("hi");
        ZmtpMessage m = router.receive(T);
        assertNotNull(m);
        try {
            assertEquals("bob", m.properties().userId());
        } finally {
            m.release();
        }
    }

    @Test
    void endpointsWithoutTlsSettingsSayWhatIsMissing() {
        BlockingSocket plain = ctx.blocking(SocketType.ROUTER);
        RuntimeException e = assertThrows(RuntimeException.class, () -> plain.bind("tls://127.0.0.1:0"));
        assertTrue(String.valueOf(rootMessage(e)).contains("SocketOptions.tls"), rootMessage(e));
        RuntimeException w = assertThrows(RuntimeException.class, () -> plain.bind("wss://127.0.0.1:0/x"));
        assertTrue(String.valueOf(rootMessage(w)).contains("SocketOptions.tls"), rootMessage(w));
        List<SocketEvent> events = new CopyOnWriteArrayList<>();
        BlockingSocket client = ctx.blocking(SocketType.DEALER);
        client.socket().monitor(events::add);
        client.connect("tls://127.0.0.1:9");
        Await.until("a CONNECT_FAILED naming the missing setting", () -> events.stream()
                .anyMatch(ev -> ev.type() == SocketEvent.Type.CONNECT_FAILED
                        && String.valueOf(ev.reason()).contains("SocketOptions.tls")));
    }

    static String rootMessage(Throwable t) {
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage();
    }
}
