package io.zmtp.interop;

import io.zmtp.interop.CatCommandInteropTest.CatProcess;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.zmtp.interop.ByteMessages.assertMessage;
import static io.zmtp.interop.ByteMessages.msg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code java -jar zmtp.jar keygen} and {@code cat} with PLAIN and CURVE as processes against
 * libzmq: keys made by {@code zmtp keygen} serve libzmq, and keys made by libzmq serve our cat.
 * A refused cat says why and exits; nothing a process prints, its log included, shows a password
 * or a secret key.
 */
class CatSecurityInteropTest {
    static final String USER = "admin";
    static final String PASSWORD = "s3cret-pw";
    static LibzmqPeer zmq;
    final List<CatProcess> cats = new ArrayList<>();
    final List<SocketEnd> ends = new ArrayList<>();
    final List<String> secrets = new ArrayList<>(List.of(PASSWORD, "wr0ng-pw"));

    @BeforeAll
    static void startPeer() {
        assertTrue(Files.isRegularFile(CatCommandInteropTest.JAR), CatCommandInteropTest.JAR + " is missing: it is "
                + "built by 'mvn package' (or verify) of patterns");
        zmq = LibzmqPeer.start();
        zmq.zapStart().zapAllowPlain(USER, PASSWORD);
    }

    @AfterAll
    static void stopPeer() {
        zmq.close();
    }

    @AfterEach
    void stop() {
        cats.forEach(CatProcess::close);
        ends.forEach(SocketEnd::close);
        for (CatProcess c : cats) {
            for (String line : c.errSeen) {
                for (String s : secrets) {
                    assertFalse(line.contains(s), "a secret on the stderr of zmtp cat: " + line);
                }
            }
        }
    }

    CatProcess cat(String... args) throws IOException {
        CatProcess c = new CatProcess(args);
        cats.add(c);
        return c;
    }

    SocketEnd.Libzmq libzmq(SocketType type) {
        SocketEnd.Libzmq e = SocketEnd.libzmq(zmq, type, null);
        ends.add(e);
        return e;
    }

    /** The next stderr line of {@code cat} starting with {@code prefix}. */
    static String errLine(CatProcess cat, String prefix) throws InterruptedException {
        while (true) {
            String l = cat.err.poll(ByteMessages.T, TimeUnit.MILLISECONDS);
            if (l == null) {
                throw new AssertionError("no stderr line starting with '" + prefix + "'; stderr: " + cat.errSeen);
            }
            if (l.startsWith(prefix)) {
                return l;
            }
        }
    }

    /** Runs {@code java -jar zmtp.jar keygen}: {public, secret}; the secret is then watched for on every stderr. */
    String[] keygen() throws Exception {
        List<String> cmd = PeerScript.zmtpJava();
        cmd.add("keygen");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String l;
            while ((l = r.readLine()) != null) {
                lines.add(l);
            }
        }
        assertTrue(p.waitFor(ByteMessages.T, TimeUnit.MILLISECONDS), "keygen exited");
        assertEquals(0, p.exitValue(), lines.toString());
        assertEquals(2, lines.size(), "two lines: " + lines);
        secrets.add(lines.get(1));
        return lines.toArray(new String[0]);
    }

    /** A key pair from libzmq's zmq_curve_keypair: {public, secret}. */
    String[] libzmqKeypair() {
        String[] k = zmq.curveKeypair();
        secrets.add(k[1]);
        return k;
    }

    @Test
    void keygenMakesKeysLibzmqAgreesWith() throws Exception {
        String[] keys = keygen();
        assertEquals(keys[0], zmq.call("public " + keys[1]), "libzmq derives the same public key from the secret");
        assertFalse(keys[0].equals(keygen()[0]), "a new pair each run");
    }

    // ------------------------------------------------------------------ PLAIN

    @Test
    void catPlainClientOfALibzmqServer() throws Exception {
        SocketEnd.Libzmq rep = libzmq(SocketType.REP);
        zmq.opt(rep.id, "PLAIN_SERVER", 1);
        String ep = rep.bind("tcp", null);
        CatProcess req = cat("-t", "REQ", "-c", ep, "--plain-user", USER, "--plain-password", PASSWORD)
                .input("hello\tlibzmq\n").endInput();
        assertMessage(msg("hello", "libzmq"), rep.recv(), "libzmq REP got the line");
        rep.send(msg("hello", "cat"));
        assertEquals("hello\tcat", req.line());
        assertEquals(0, req.exitCode());
        assertTrue(zmq.zapLog().contains("PLAIN:200"), zmq.zapLog().toString());
    }

    @Test
    void catPlainClientWithAWrongPasswordIsRefusedByLibzmqAndExits() throws Exception {
        SocketEnd.Libzmq router = libzmq(SocketType.ROUTER);
        zmq.opt(router.id, "PLAIN_SERVER", 1);
        String ep = router.bind("tcp", null);
        CatProcess dealer = cat("-t", "DEALER", "-c", ep, "--verbose", "--plain-user", USER,
                "--plain-password", "wr0ng-pw").input("never sent\n");
        assertTrue(errLine(dealer, "HANDSHAKE_FAILED").endsWith("peer sent ERROR \"400\""), dealer.errSeen.toString());
        assertEquals("stopped reconnecting to " + ep + ": peer sent ERROR \"400\"", errLine(dealer, "stopped"));
        assertEquals(3, dealer.exitCode(), "its only peer refused it");
        assertTrue(zmq.zapLog().contains("PLAIN:400"), zmq.zapLog().toString());
    }

    @Test
    void catPlainServerForLibzmqClients() throws Exception {
        CatProcess router = cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--echo", "-n", "1", "--verbose",
                "--plain-server", "--plain-account", USER + ":" + PASSWORD);
        String ep = router.bound();
        SocketEnd.Libzmq intruder = libzmq(SocketType.DEALER);
        zmq.optText(intruder.id, "PLAIN_USERNAME", USER).optText(intruder.id, "PLAIN_PASSWORD", "wr0ng-pw");
        zmq.monitor(intruder.id);
        intruder.connect(ep);
        String refused = errLine(router, "HANDSHAKE_FAILED");
        assertTrue(refused.contains("PLAIN client refused") && refused.contains("user '" + USER + "'"), refused);
        intruder.close();
        ends.remove(intruder);

        SocketEnd.Libzmq dealer = libzmq(SocketType.DEALER);
        zmq.optText(dealer.id, "PLAIN_USERNAME", USER).optText(dealer.id, "PLAIN_PASSWORD", PASSWORD);
        dealer.connect(ep);
        dealer.send(msg("let", "in"));
        assertMessage(msg("let", "in"), dealer.recv(), "the echo");
        assertTrue(router.line().matches("0x[0-9a-f]{10}\tlet\tin"), "the cat printed the message");
        assertEquals(0, router.exitCode());
    }

    // ------------------------------------------------------------------ CURVE

    /** Our cat is the client with libzmq's key pair; libzmq's server uses a pair from zmtp keygen. */
    @Test
    void catCurveClientWithLibzmqKeysOfALibzmqServerWithKeygenKeys() throws Exception {
        String[] serverKeys = keygen();
        String[] clientKeys = libzmqKeypair();
        SocketEnd.Libzmq router = libzmq(SocketType.ROUTER);
        zmq.opt(router.id, "CURVE_SERVER", 1).optText(router.id, "CURVE_SECRETKEY", serverKeys[1]);
        zmq.zapAllowCurve(clientKeys[0]);
        String ep = router.bind("tcp", null);
        CatProcess dealer = cat("-t", "DEALER", "-c", ep, "-n", "1", "--identity", "cat",
                "--curve-server-key", serverKeys[0], "--curve-public-key", clientKeys[0],
                "--curve-secret-key", clientKeys[1]).input("sealed\n");
        assertMessage(msg("cat", "sealed"), router.recv(), "libzmq opened our boxes");
        router.send(msg("cat", "sealed too"));
        assertEquals("sealed too", dealer.line());
        assertEquals(0, dealer.exitCode());
        assertTrue(zmq.zapLog().contains("CURVE:200"), zmq.zapLog().toString());
    }

    /** Our cat is the server with libzmq's key pair; libzmq's client uses a pair from zmtp keygen. */
    @Test
    void catCurveServerWithLibzmqKeysForALibzmqClientWithKeygenKeys() throws Exception {
        String[] serverKeys = libzmqKeypair();
        String[] clientKeys = keygen();
        CatProcess rep = cat("-t", "REP", "-b", "tcp://127.0.0.1:0", "--echo", "-n", "1", "--verbose",
                "--curve-server", "--curve-secret-key", serverKeys[1], "--curve-allow", clientKeys[0]);
        String ep = rep.bound();
        SocketEnd.Libzmq req = libzmq(SocketType.REQ);
        zmq.optText(req.id, "CURVE_SERVERKEY", serverKeys[0]).optText(req.id, "CURVE_PUBLICKEY", clientKeys[0])
                .optText(req.id, "CURVE_SECRETKEY", clientKeys[1]);
        req.connect(ep);
        req.send(msg("sealed"));
        assertMessage(msg("sealed"), req.recv(), "the echo, through CURVE both ways");
        assertEquals("sealed", rep.line());
        assertEquals(0, rep.exitCode());
    }

    @Test
    void catCurveClientWithTheWrongServerKeySaysWhyWithVerbose() throws Exception {
        String[] serverKeys = libzmqKeypair();
        SocketEnd.Libzmq router = libzmq(SocketType.ROUTER);
        zmq.opt(router.id, "CURVE_SERVER", 1).optText(router.id, "CURVE_SECRETKEY", serverKeys[1]);
        String ep = router.bind("tcp", null);
        String[] clientKeys = keygen();
        CatProcess dealer = cat("-t", "DEALER", "-c", ep, "--verbose", "--curve-server-key", keygen()[0],
                "--curve-secret-key", clientKeys[1]);
        assertTrue(errLine(dealer, "security: ").contains(clientKeys[0]), "our public key is shown");
        String failed = errLine(dealer, "HANDSHAKE_FAILED");
        assertTrue(failed.startsWith("HANDSHAKE_FAILED " + ep + " ")
                && failed.endsWith(": peer closed the connection during the CURVE handshake"), failed);
        assertTrue(errLine(dealer, "RECONNECT_SCHEDULED").contains(" in "), "it tries again later");
        dealer.endInput();
        assertEquals(0, dealer.exitCode());
    }

    @Test
    void catCurveServerRefusesALibzmqClientKeyNotAllowed() throws Exception {
        String[] serverKeys = keygen();
        String[] stranger = libzmqKeypair();
        CatProcess router = cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--verbose",
                "--curve-server", "--curve-secret-key", serverKeys[1], "--curve-allow", keygen()[0]);
        String ep = router.bound();
        SocketEnd.Libzmq dealer = libzmq(SocketType.DEALER);
        zmq.optText(dealer.id, "CURVE_SERVERKEY", serverKeys[0]).optText(dealer.id, "CURVE_PUBLICKEY", stranger[0])
                .optText(dealer.id, "CURVE_SECRETKEY", stranger[1]);
        zmq.monitor(dealer.id);
        dealer.connect(ep);
        String refused = errLine(router, "HANDSHAKE_FAILED");
        assertTrue(refused.contains("CURVE client refused") && refused.contains(stranger[0])
                && refused.contains("not on the allow list"), refused);
        assertTrue(zmq.awaitEvent(dealer.id, "HANDSHAKE_FAILED_AUTH", ByteMessages.T), zmq.events(dealer.id).toString());
        router.endInput();
        assertEquals(0, router.exitCode());
    }
}
