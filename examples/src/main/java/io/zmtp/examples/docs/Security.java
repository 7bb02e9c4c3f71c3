package io.zmtp.examples.docs;

// tag::imports[]
import io.zmtp.security.AddressRules;
import io.zmtp.security.AuthResult;
import io.zmtp.security.AuthenticatingNullMechanism;
import io.zmtp.security.Authenticator;
import io.zmtp.security.CurveAllowList;
import io.zmtp.security.CurveCertificate;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.security.PlainMechanism;
import io.zmtp.security.Z85;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.MessageHandler;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZapAuthenticator;            // in io.zmtp.socket: it asks a socket of the context
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.Frames;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpMetadata;

import java.io.IOException;
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

// in scope: ZmtpContext ctx
// end::imports[]
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;

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

            {
                // tag::authenticator[]
                CurveKeyPair keys = CurveKeyPair.generate();                // the server's pair
                Set<String> allowed = Set.of("127.0.0.1");                  // looked up in memory: never block here
                Authenticator fromLoopback = request -> {                   // on the connection's event loop
                    InetSocketAddress from = (InetSocketAddress) request.remoteAddress();
                    return allowed.contains(from.getAddress().getHostAddress())
                            ? AuthResult.allow(request.clientPublicKeyZ85())    // the user id of its messages
                            : AuthResult.deny("400", "not from here");          // the client gets ERROR "400"
                };
                SocketOptions server = SocketOptions.builder()
                        .mechanism(CurveMechanism.server(keys, fromLoopback)).build();
                // end::authenticator[]
                BlockingSocket guarded = ctx.blocking(SocketType.PULL, server);
                BlockingSocket pusher = ctx.blocking(SocketType.PUSH, SocketOptions.builder()
                        .mechanism(CurveMechanism.client(keys.publicKey(), CurveKeyPair.generate())).build());
                pusher.connect(guarded.bind("tcp://127.0.0.1:0"));
                pusher.send("through");
                check(List.of("through").equals(guarded.receiveStrings(Duration.ofSeconds(5))), "custom authenticator");
            }

            {
                // tag::async[]
                // a user directory that answers later: a database or LDAP client's asynchronous call,
                // on threads of its own
                ExecutorService directoryThreads = Executors.newFixedThreadPool(2);
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
                try {
                    BlockingSocket looked = ctx.blocking(SocketType.REP, directoryServer);
                    BlockingSocket asker = ctx.blocking(SocketType.REQ, plainClient).connect(looked.bind("tcp://127.0.0.1:0"));
                    asker.send("who am I");
                    ZmtpMessage fromDirectory = looked.receive(Duration.ofSeconds(5));
                    check("operator".equals(fromDirectory.properties().getString("Role")), "a property from the directory");
                    fromDirectory.release();
                } finally {
                    directoryThreads.shutdown();
                }
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

            // tag::refusals[]
            // why a client was refused: the monitor's HANDSHAKE_FAILED event carries the reason
            ZmtpSocket accounts = ctx.socket(SocketType.REP, SocketOptions.builder()
                    .mechanism(PlainMechanism.server(Authenticator.plainAccounts(Map.of("admin", "secret")))).build());
            accounts.monitor(event -> {                                 // on the socket's event loop
                if (event.type() == SocketEvent.Type.HANDSHAKE_FAILED) {
                    System.err.println("refused " + event.peer() + ": " + event.reason());
                }
            });
            // end::refusals[]
            CompletableFuture<String> refusal = new CompletableFuture<>();
            accounts.monitor(event -> {
                if (event.type() == SocketEvent.Type.HANDSHAKE_FAILED) {
                    refusal.complete(event.reason());
                }
            });
            String refusedAt = accounts.bind("tcp://127.0.0.1:0").get();
            ctx.blocking(SocketType.REQ, SocketOptions.builder().mechanism(PlainMechanism.client("admin", "wrong")).build())
                    .connect(refusedAt);
            check(refusal.get(5, TimeUnit.SECONDS) != null, "a refusal with its reason");

            {
                // tag::certificates[]
                Path dir = Files.createTempDirectory("certs");              // where the files go
                CurveCertificate cert = CurveCertificate.generate();
                cert.write(dir.resolve("server.cert"));                  // with the secret key: owner-only file
                cert.writePublic(dir.resolve("server.pub"));             // the public part, for peers
                CurveKeyPair keys = CurveCertificate.read(dir.resolve("server.cert")).keyPair();
                CurveCertificate peer = CurveCertificate.read(dir.resolve("server.pub"));
                String peerKey = peer.publicKeyZ85();                    // a public certificate has a key,
                boolean hasSecret = peer.hasSecretKey();                 // not a pair: false, keyPair() would throw
                byte[] raw = Z85.decode(peerKey);                        // 32 bytes; Z85.encode(raw) is the text
                CurveAllowList clients = CurveAllowList.ofCertificates(List.of(peer));
                // end::certificates[]
                try {
                    check(keys.equals(cert.keyPair()) && clients.contains(cert.publicKey()) && !hasSecret
                            && raw.length == 32, "certificates");
                } finally {
                    for (String f : List.of("server.cert", "server.pub")) {
                        Files.deleteIfExists(dir.resolve(f));
                    }
                    Files.delete(dir);
                }
            }

            movingFromZmqAuthZauthAndZAuth(ctx);
        }
    }

    /**
     * The three moves of the page, each given the directories their originals keep: pyzmq's
     * (public_keys/*.key, private_keys/server.key_secret, as zmq.auth.create_certificates writes them)
     * and CZMQ's or JeroMQ's (public_keys/ with zcert files, server.cert with server.cert_secret).
     * A client whose certificate is in the directory gets in, another is refused.
     */
    static void movingFromZmqAuthZauthAndZAuth(ZmtpContext ctx) throws Exception {
        Path keys = Files.createTempDirectory("keys");
        List<Path> made = new ArrayList<>();
        try {
            Files.createDirectories(keys.resolve("public_keys"));
            Files.createDirectories(keys.resolve("private_keys"));
            CurveCertificate client = CurveCertificate.generate();
            CurveCertificate server = CurveCertificate.generate();
            for (Path p : List.of(keys.resolve("public_keys/client.key"), keys.resolve("public_keys/client"))) {
                client.writePublic(p);
                made.add(p);
            }
            for (Path p : List.of(keys.resolve("public_keys/client.key_secret"), keys.resolve("public_keys/client_secret"))) {
                client.write(p);
                made.add(p);
            }
            for (Path p : List.of(keys.resolve("private_keys/server.key_secret"), keys.resolve("server.cert_secret"))) {
                server.write(p);
                made.add(p);
            }
            List<BlockingSocket> pyzmq = fromZmqAuth(ctx, keys);
            String plainEndpoint = pyzmq.get(0).socket().boundEndpoints().get(0);
            BlockingSocket admin = ctx.blocking(SocketType.REQ,
                    SocketOptions.builder().mechanism(PlainMechanism.client("admin", "secret")).build()).connect(plainEndpoint);
            admin.send("plain");
            check(List.of("plain").equals(pyzmq.get(0).receiveStrings(Duration.ofSeconds(5))), "zmq.auth PLAIN");
            for (BlockingSocket curveServer : List.of(pyzmq.get(1), fromZauth(ctx, keys), fromZAuth(ctx, keys))) {
                String at = curveServer.socket().boundEndpoints().get(0);
                BlockingSocket known = ctx.blocking(SocketType.REQ, SocketOptions.builder()
                        .mechanism(CurveMechanism.client(server.publicKey(), client.keyPair())).build()).connect(at);
                known.send("known");
                check(List.of("known").equals(curveServer.receiveStrings(Duration.ofSeconds(5))), "a listed client");
                CompletableFuture<String> refused = new CompletableFuture<>();
                curveServer.socket().monitor(event -> {
                    if (event.type() == SocketEvent.Type.HANDSHAKE_FAILED) {
                        refused.complete(event.reason());
                    }
                });
                ctx.blocking(SocketType.REQ, SocketOptions.builder()
                        .mechanism(CurveMechanism.client(server.publicKey(), CurveKeyPair.generate())).build()).connect(at);
                check(refused.get(5, TimeUnit.SECONDS) != null, "an unlisted client refused");
            }
        } finally {
            for (Path p : made) {
                Files.deleteIfExists(p);
            }
            Files.deleteIfExists(keys.resolve("public_keys"));
            Files.deleteIfExists(keys.resolve("private_keys"));
            Files.deleteIfExists(keys);
        }
    }

    // tag::fromZmqAuth[]
    /** pyzmq's ThreadAuthenticator set-up: an address allow list, PLAIN passwords, client certificates. */
    static List<BlockingSocket> fromZmqAuth(ZmtpContext ctx, Path keys) throws IOException {
        AddressRules fromHere = AddressRules.allow("127.0.0.1");                   // auth.allow(...)
        BlockingSocket plain = ctx.blocking(SocketType.REP, SocketOptions.builder()
                .mechanism(PlainMechanism.server(                                   // auth.configure_plain(...)
                        fromHere.then(Authenticator.plainAccounts(Map.of("admin", "secret"))))).build());
        plain.bind("tcp://127.0.0.1:0");                                            // tcp://*:5555 in the original
        CurveAllowList clients = CurveAllowList.ofCertificates(                     // auth.configure_curve(...):
                CurveCertificate.readDirectory(keys.resolve("public_keys"), "*.key")); // the *.key files
        CurveKeyPair serverKeys = CurveCertificate                                  // zmq.auth.load_certificate
                .read(keys.resolve("private_keys/server.key_secret")).keyPair();
        BlockingSocket curve = ctx.blocking(SocketType.REP, SocketOptions.builder()
                .mechanism(CurveMechanism.server(serverKeys, fromHere.then(clients))).build());
        curve.bind("tcp://127.0.0.1:0");                                            // tcp://*:5556 in the original
        return List.of(plain, curve);
    }
    // end::fromZmqAuth[]

    // tag::fromZauth[]
    /** CZMQ's zauth actor with ALLOW and CURVE, and a server certificate from zcert_load. */
    static BlockingSocket fromZauth(ZmtpContext ctx, Path keys) throws IOException {
        Authenticator clients = AddressRules.allow("127.0.0.1")                    // ALLOW 127.0.0.1
                .then(CurveAllowList.ofCertificates(                                // CURVE public_keys: every
                        CurveCertificate.readDirectory(keys.resolve("public_keys")))); // file but *_secret
        CurveKeyPair serverKeys = CurveCertificate                                  // zcert_load ("server.cert")
                .read(keys.resolve("server.cert_secret")).keyPair();                // reads server.cert_secret
        BlockingSocket server = ctx.blocking(SocketType.REP, SocketOptions.builder()
                .mechanism(CurveMechanism.server(serverKeys, clients)).build());    // zsock_set_curve_server
        server.bind("tcp://127.0.0.1:0");
        return server;
    }
    // end::fromZauth[]

    // tag::fromZAuth[]
    /** JeroMQ's ZAuth with allow and configureCurve (a ZCertStore of the directory). */
    static BlockingSocket fromZAuth(ZmtpContext ctx, Path keys) throws IOException {
        AddressRules fromHere = AddressRules.allow("127.0.0.1");                   // auth.allow("127.0.0.1")
        CurveAllowList clients = CurveAllowList.ofCertificates(                     // auth.configureCurve(
                CurveCertificate.readDirectory(keys.resolve("public_keys")));       //     "public_keys")
        CurveKeyPair serverKeys = CurveCertificate                                  // setCurvePublicKey,
                .read(keys.resolve("server.cert_secret")).keyPair();                // setCurveSecretKey
        BlockingSocket server = ctx.blocking(SocketType.REP, SocketOptions.builder()
                .mechanism(CurveMechanism.server(serverKeys, fromHere.then(clients))).build()); // setCurveServer(true)
        server.bind("tcp://127.0.0.1:0");
        return server;
    }
    // end::fromZAuth[]

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    private Security() {
    }
}
