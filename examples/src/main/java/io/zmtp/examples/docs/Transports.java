package io.zmtp.examples.docs;

// tag::imports[]
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.transport.TlsSettings;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

// in scope: ZmtpContext ctx
// end::imports[]

/** docs/transports.md: ws:// paths on one port, tls:// with client certificates, a STREAM gateway. */
public final class Transports {
    public static void main(String[] args) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            webSocket(ctx);
            tls(ctx);
            stream(ctx);
        }
    }

    static void webSocket(ZmtpContext ctx) throws Exception {
        // tag::websocket[]
        EventLoop loop = ctx.group().next();                        // one port: sockets of one event loop
        ZmtpSocket news = ctx.socket(SocketType.PUB, SocketOptions.DEFAULTS, loop);
        ZmtpSocket rpc = ctx.socket(SocketType.ROUTER, SocketOptions.DEFAULTS, loop);
        String newsEndpoint = news.bind("ws://127.0.0.1:0/news").get();          // ws://127.0.0.1:PORT/news
        int port = URI.create(newsEndpoint).getPort();
        rpc.bind("ws://127.0.0.1:" + port + "/rpc").get();                       // the same port, another path
        BlockingSocket client = ctx.blocking(SocketType.DEALER).connect("ws://127.0.0.1:" + port + "/rpc");
        // end::websocket[]
        rpc.onMessage(rpc::send);
        client.send("over ws");
        check(List.of("over ws").equals(client.receiveStrings(Duration.ofSeconds(5))), "ws:// round trip");
        client.close();
        news.close();
        rpc.close();
    }

    static void tls(ZmtpContext ctx) throws Exception {
        // tag::tls[]
        X509Bundle ca = new CertificateBuilder().subject("CN=example CA").setIsCertificateAuthority(true).ecp256()
                .buildSelfSigned();
        X509Bundle serverCert = new CertificateBuilder().subject("CN=server,O=example").addSanIpAddress("127.0.0.1")
                .addExtendedKeyUsageServerAuth().ecp256().buildIssuedBy(ca);
        X509Bundle alice = new CertificateBuilder().subject("CN=alice,O=example").addExtendedKeyUsageClientAuth()
                .ecp256().buildIssuedBy(ca);
        SslContext serverContext = SslContextBuilder
                .forServer(serverCert.getKeyPair().getPrivate(), serverCert.getCertificatePath())
                .trustManager(ca.getCertificate()).clientAuth(ClientAuth.REQUIRE).build();   // mutual TLS
        SslContext clientContext = SslContextBuilder.forClient().trustManager(ca.getCertificate())
                .keyManager(alice.getKeyPair().getPrivate(), alice.getCertificatePath()).build();

        BlockingSocket router = ctx.blocking(SocketType.ROUTER,
                SocketOptions.builder().tls(TlsSettings.server(serverContext)).build());
        String endpoint = router.bind("tls://127.0.0.1:0");
        BlockingSocket dealer = ctx.blocking(SocketType.DEALER,
                SocketOptions.builder().tls(TlsSettings.client(clientContext)).build()).connect(endpoint);
        dealer.send("hello");
        ZmtpMessage m = router.receive(Duration.ofSeconds(5));
        String who = m.properties().userId();                       // "CN=alice,O=example"
        m.release();
        // end::tls[]
        check("CN=alice,O=example".equals(who), "the certificate's subject as user id: " + who);
        dealer.close();
        router.close();
    }

    static void stream(ZmtpContext ctx) throws Exception {
        // tag::stream[]
        // A gateway answering plain HTTP/1.1 clients (StreamSocketTest.anHttpGatewayAnswersAPlainHttpClient)
        ZmtpSocket gateway = ctx.socket(SocketType.STREAM);
        gateway.onMessage(m -> {
            byte[] id = m.frameBytes(0);
            boolean request = m.frame(1).isReadable();      // empty: a connect or disconnect notification
            m.release();
            if (request) {                                  // (a real gateway collects the request head first)
                gateway.trySend(ZmtpMessage.of(id, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                        .getBytes(StandardCharsets.US_ASCII)));
                gateway.trySend(ZmtpMessage.of(id, new byte[0]));   // close after the response
            }
        });
        String endpoint = gateway.bind("tcp://127.0.0.1:0").get();
        // end::stream[]
        int port = URI.create(endpoint).getPort();
        try (Socket http = new Socket()) {
            http.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            http.setSoTimeout(5000);
            OutputStream out = http.getOutputStream();
            out.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = http.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            check(response.startsWith("HTTP/1.1 200 OK") && response.endsWith("ok"), "STREAM gateway: " + response);
        }
        gateway.close();
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    private Transports() {
    }
}
