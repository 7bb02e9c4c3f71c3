package io.zmtp.examples.docs;

import io.zmtp.security.AuthResult;
import io.zmtp.security.Authenticator;
import io.zmtp.security.CurveAllowList;
import io.zmtp.security.CurveCertificate;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.security.PlainMechanism;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** docs/security.md: PLAIN and CURVE, an authenticator of one's own, certificate files. */
public final class Security {
    public static void main(String[] args) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            // tag::mechanisms[]
            // PLAIN: only the listed accounts get in
            SocketOptions plainServer = SocketOptions.builder()
                    .mechanism(PlainMechanism.server(Authenticator.plainAccounts(Map.of("admin", "secret")))).build();
            SocketOptions plainClient = SocketOptions.builder().mechanism(PlainMechanism.client("admin", "secret")).build();

            // CURVE: the client names the server's public key; the server allows the client's
            CurveKeyPair serverKeys = CurveKeyPair.generate();          // or CurveCertificate.read(path).keyPair()
            CurveKeyPair clientKeys = CurveKeyPair.generate();
            BlockingSocket router = ctx.blocking(SocketType.ROUTER, SocketOptions.builder()
                    .mechanism(CurveMechanism.server(serverKeys, CurveAllowList.of(List.of(clientKeys.publicKey())))).build());
            String endpoint = router.bind("tcp://127.0.0.1:0");
            BlockingSocket dealer = ctx.blocking(SocketType.DEALER, SocketOptions.builder()
                    .mechanism(CurveMechanism.client(serverKeys.publicKey(), clientKeys)).build()).connect(endpoint);
            dealer.send("hello");

            // a message from an authenticated client carries its user id (PLAIN user name, CURVE key in Z85)
            ZmtpMessage m = router.receive(Duration.ofSeconds(5));
            String who = m.properties().userId();                       // clientKeys.publicKeyZ85()
            m.release();
            // end::mechanisms[]
            check(clientKeys.publicKeyZ85().equals(who), "CURVE user id " + who);

            BlockingSocket rep = ctx.blocking(SocketType.REP, plainServer);
            BlockingSocket req = ctx.blocking(SocketType.REQ, plainClient).connect(rep.bind("tcp://127.0.0.1:0"));
            req.send("hi");
            ZmtpMessage plain = rep.receive(Duration.ofSeconds(5));
            check("admin".equals(plain.properties().userId()), "PLAIN user id");
            plain.release();

            // tag::authenticator[]
            Set<String> allowed = Set.of("127.0.0.1");                  // looked up in memory: never block here
            Authenticator fromLoopback = request -> {                   // on the connection's event loop
                InetSocketAddress from = (InetSocketAddress) request.remoteAddress();
                return allowed.contains(from.getAddress().getHostAddress())
                        ? AuthResult.allow(request.clientPublicKeyZ85())    // the user id of its messages
                        : AuthResult.deny("400", "not from here");          // the client gets ERROR "400"
            };
            SocketOptions server = SocketOptions.builder()
                    .mechanism(CurveMechanism.server(serverKeys, fromLoopback)).build();
            // end::authenticator[]
            BlockingSocket guarded = ctx.blocking(SocketType.PULL, server);
            BlockingSocket pusher = ctx.blocking(SocketType.PUSH, SocketOptions.builder()
                    .mechanism(CurveMechanism.client(serverKeys.publicKey(), CurveKeyPair.generate())).build());
            pusher.connect(guarded.bind("tcp://127.0.0.1:0"));
            pusher.send("through");
            check(List.of("through").equals(guarded.receiveStrings(Duration.ofSeconds(5))), "custom authenticator");

            Path dir = Files.createTempDirectory("certs");
            try {
                // tag::certificates[]
                CurveCertificate cert = CurveCertificate.generate();
                cert.write(dir.resolve("server.cert"));                  // with the secret key: owner-only file
                cert.writePublic(dir.resolve("server.pub"));             // the public part, for peers
                CurveKeyPair keys = CurveCertificate.read(dir.resolve("server.cert")).keyPair();
                CurveAllowList clients = CurveAllowList.ofCertificates(
                        List.of(CurveCertificate.read(dir.resolve("server.pub"))));
                // end::certificates[]
                check(keys.equals(cert.keyPair()) && clients.contains(cert.publicKey()), "certificates");
            } finally {
                for (String f : List.of("server.cert", "server.pub")) {
                    Files.deleteIfExists(dir.resolve(f));
                }
                Files.delete(dir);
            }
        }
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    private Security() {
    }
}
