package io.zmtp.examples.docs;

import io.zmtp.security.AddressRules;
import io.zmtp.security.AuthResult;
import io.zmtp.security.AuthenticatingNullMechanism;
import io.zmtp.security.Authenticator;
import io.zmtp.security.CurveAllowList;
import io.zmtp.security.CurveCertificate;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.security.PlainMechanism;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.MessageHandler;
import io.zmtp.socket.ZapAuthenticator;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.Frames;
import io.zmtp.wire.ZmtpMetadata;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * docs/security.md: PLAIN and CURVE, an authenticator of one's own, one that answers later, a ZAP
 * handler, address rules, certificate files.
 */
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

            ExecutorService directoryThreads = Executors.newFixedThreadPool(2);
            try {
                // tag::async[]
                // a user directory that answers later: a database or LDAP client's asynchronous call
                Map<String, String> directory = Map.of("admin", "secret");
                Authenticator lookup = Authenticator.async(request -> CompletableFuture.supplyAsync(() ->
                        request.passwordString().equals(directory.get(request.username()))
                                ? AuthResult.allow(request.username(),                 // User-Id, and more:
                                        ZmtpMetadata.builder().put("Role", "operator").build())
                                : AuthResult.deny("400", "unknown user or wrong password"), directoryThreads));
                SocketOptions directoryServer = SocketOptions.builder()
                        .mechanism(PlainMechanism.server(lookup))
                        .authenticationTimeout(Duration.ofSeconds(5))   // no answer by then: 300, the client retries
                        .maxWaitingAuthentications(256)                 // more waiting at once: 300 at once
                        .build();
                // end::async[]
                BlockingSocket looked = ctx.blocking(SocketType.REP, directoryServer);
                BlockingSocket asker = ctx.blocking(SocketType.REQ, plainClient).connect(looked.bind("tcp://127.0.0.1:0"));
                asker.send("who am I");
                ZmtpMessage fromDirectory = looked.receive(Duration.ofSeconds(5));
                check("operator".equals(fromDirectory.properties().getString("Role")), "a property from the directory");
                fromDirectory.release();
            } finally {
                directoryThreads.shutdown();
            }

            // tag::zap[]
            // a ZAP handler written from 27/ZAP, as for libzmq: a REP socket of the same context
            ZmtpSocket handler = ctx.socket(SocketType.REP);
            handler.onMessage(MessageHandler.ofFrames(request -> {
                // version, request id, domain, address, routing id, mechanism, credentials...
                boolean ok = request.frameString(5).equals("PLAIN")
                        && request.frameString(6).equals("admin") && request.frameString(7).equals("secret");
                handler.send(Frames.ofStrings(request.frameString(0), request.frameString(1),
                        ok ? "200" : "400", ok ? "OK" : "refused", ok ? "admin" : "", "").toMessage());
            }));
            handler.bind(ZapAuthenticator.ENDPOINT).syncUninterruptibly();    // inproc://zeromq.zap.01
            SocketOptions zapServer = SocketOptions.builder().zapDomain("global")
                    .mechanism(PlainMechanism.server(ctx.zapAuthenticator())).build();
            // end::zap[]
            BlockingSocket zapped = ctx.blocking(SocketType.REP, zapServer);
            BlockingSocket zapClient = ctx.blocking(SocketType.REQ, plainClient).connect(zapped.bind("tcp://127.0.0.1:0"));
            zapClient.send("via ZAP");
            ZmtpMessage viaZap = zapped.receive(Duration.ofSeconds(5));
            check("admin".equals(viaZap.properties().userId()), "user id from the ZAP handler");
            viaZap.release();

            // tag::rules[]
            // as zauth's ALLOW and DENY, then its PLAIN passwords
            Authenticator guard = AddressRules.allow("127.0.0.1", "10.0.0.0/8").andDeny("10.9.0.0/16")
                    .then(Authenticator.plainAccounts(Map.of("admin", "secret")));
            SocketOptions guardedPlain = SocketOptions.builder().mechanism(PlainMechanism.server(guard)).build();
            // with NULL the address is all there is to judge
            SocketOptions guardedNull = SocketOptions.builder()
                    .mechanism(AuthenticatingNullMechanism.of(AddressRules.deny("203.0.113.0/24"))).build();
            // end::rules[]
            for (SocketOptions guarded2 : List.of(guardedPlain, guardedNull)) {
                BlockingSocket ruled = ctx.blocking(SocketType.REP, guarded2);
                BlockingSocket from = ctx.blocking(SocketType.REQ, guarded2 == guardedPlain ? plainClient
                        : SocketOptions.DEFAULTS).connect(ruled.bind("tcp://127.0.0.1:0"));
                from.send("ruled");
                check(List.of("ruled").equals(ruled.receiveStrings(Duration.ofSeconds(5))), "address rules");
            }

            // tag::move[]
            Authenticator admins = AddressRules.allow("127.0.0.1", "10.0.0.7")
                    .then(Authenticator.plainAccounts(Map.of("admin", "secret")));
            BlockingSocket moved = ctx.blocking(SocketType.REP, SocketOptions.builder()
                    .mechanism(PlainMechanism.server(admins)).build());
            moved.bind("tcp://127.0.0.1:0");                            // tcp://*:5555 in the original
            // end::move[]
            BlockingSocket movedClient = ctx.blocking(SocketType.REQ, plainClient)
                    .connect(moved.socket().boundEndpoints().get(0));
            movedClient.send("moved");
            check(List.of("moved").equals(moved.receiveStrings(Duration.ofSeconds(5))), "the moved set-up");

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
