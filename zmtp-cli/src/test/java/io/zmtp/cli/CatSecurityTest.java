package io.zmtp.cli;

import io.zmtp.security.CurveCertificate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * {@code zmtp cat} with PLAIN and CURVE, two cats in-process: the right credentials pass; a wrong
 * password, a wrong server key and a client key the server does not allow fail, and with
 * {@code --verbose} each side prints why. No password or secret key is ever printed, neither in
 * those reports nor in usage errors.
 */
class CatSecurityTest {
    static final String PASSWORD = "s3cret-pw";
    static final String WRONG_PASSWORD = "wr0ng-pw";
    /** A server and a client key pair, as 'zmtp keygen' prints them: public, then secret. */
    static final List<String> SERVER = KeygenCommandTest.keygen().out();
    static final List<String> CLIENT = KeygenCommandTest.keygen().out();
    static final List<String> OTHER = KeygenCommandTest.keygen().out();

    final List<CatRun> runs = new ArrayList<>();
    @TempDir
    Path tmp;

    @AfterEach
    void stop() {
        runs.forEach(CatRun::close);
    }

    /** A cat run with everything it printed on stderr kept, to check for secrets at the end. */
    final class Cat {
        final CatRun run;
        final List<String> err = new ArrayList<>();

        Cat(String... args) {
            run = CatRun.start(args);
            runs.add(run);
        }

        /** The next stderr line starting with {@code prefix}; fails when none comes in time. */
        String errLine(String prefix) {
            while (true) {
                String l = run.err.next();
                err.add(l);
                if (l.startsWith(prefix)) {
                    return l;
                }
            }
        }

        String bound() {
            return errLine("bound ").substring("bound ".length());
        }

        /** Every stderr line so far. */
        List<String> allErr() {
            err.addAll(run.err.drain());
            return err;
        }
    }

    static void assertNoSecrets(Cat... cats) {
        for (Cat c : cats) {
            for (String l : c.allErr()) {
                for (String secret : List.of(PASSWORD, WRONG_PASSWORD, SERVER.get(1), CLIENT.get(1), OTHER.get(1))) {
                    assertFalse(l.contains(secret), "a secret on stderr: " + l);
                }
            }
        }
    }

    // ------------------------------------------------------------------ PLAIN

    @Test
    void plainAccountsLetTheirClientsIn() {
        Cat rep = new Cat("-t", "REP", "-b", "tcp://127.0.0.1:0", "--echo", "-n", "2", "--verbose",
                "--plain-server", "--plain-account", "admin:" + PASSWORD, "--plain-account", "guest:guest:pw");
        String ep = rep.bound();
        Cat admin = new Cat("-t", "REQ", "-c", ep, "--plain-user", "admin", "--plain-password", PASSWORD);
        admin.run.input("from admin\n").endInput();
        assertEquals("from admin", admin.run.line(), "the echo came back");
        assertEquals(0, admin.run.exitCode());
        Cat guest = new Cat("-t", "REQ", "-c", ep, "--plain-user", "guest", "--plain-password", "guest:pw");
        guest.run.input("from guest\n").endInput();
        assertEquals("from guest", guest.run.line(), "a password may hold a colon");
        assertEquals(0, guest.run.exitCode());
        assertEquals(List.of("from admin", "from guest"), List.of(rep.run.line(), rep.run.line()));
        assertEquals(0, rep.run.exitCode());
        assertTrue(rep.allErr().contains("security: PLAIN server (2 accounts)"), rep.err.toString());
        assertNoSecrets(rep, admin, guest);
    }

    @Test
    void aWrongPasswordIsRefusedAndBothSidesSayWhy() {
        Cat server = new Cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--verbose",
                "--plain-server", "--plain-account", "admin:" + PASSWORD);
        String ep = server.bound();
        Cat client = new Cat("-t", "DEALER", "-c", ep, "--verbose", "--plain-user", "admin",
                "--plain-password", WRONG_PASSWORD);
        client.run.input("never sent\n");

        String failed = client.errLine("HANDSHAKE_FAILED");
        assertTrue(failed.endsWith("peer sent ERROR \"400\""), failed);
        client.errLine("RECONNECT_STOPPED");
        assertEquals("stopped reconnecting to " + ep + ": peer sent ERROR \"400\"", client.errLine("stopped"));
        assertEquals(3, client.run.exitCode(), "refused by its only peer, the client gives up");

        String refused = server.errLine("HANDSHAKE_FAILED");
        assertTrue(refused.contains("PLAIN client refused") && refused.contains("user 'admin'")
                && refused.contains("wrong password"), refused);
        server.run.endInput();
        assertEquals(0, server.run.exitCode());
        assertEquals(List.of(), server.run.out.drain(), "nothing got through");
        assertNoSecrets(server, client);
    }

    /** Without --verbose only the end of the road is printed: the refusal, then exit status 3. */
    @Test
    void withoutVerboseARefusalIsStillReportedAndEndsTheRun() {
        Cat server = new Cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--plain-server",
                "--plain-account", "admin:" + PASSWORD);
        String ep = server.bound();
        Cat client = new Cat("-t", "REQ", "-c", ep, "--plain-user", "nobody", "--plain-password", WRONG_PASSWORD);
        assertEquals(3, client.run.exitCode());
        assertEquals(List.of("stopped reconnecting to " + ep + ": peer sent ERROR \"400\""), client.allErr());
        server.run.endInput();
        assertEquals(0, server.run.exitCode());
        assertNoSecrets(server, client);
    }

    // ------------------------------------------------------------------ address rules

    @Test
    void addressRulesJudgeNullClientsByAddress() {
        Cat allowed = new Cat("-t", "REP", "-b", "tcp://127.0.0.1:0", "--echo", "-n", "1", "--verbose",
                "--allow", "127.0.0.0/8", "--zap-domain", "global");
        String ep = allowed.bound();
        Cat client = new Cat("-t", "REQ", "-c", ep);
        client.run.input("from loopback\n").endInput();
        assertEquals("from loopback", client.run.line(), "an allowed address gets in");
        assertEquals(0, client.run.exitCode());
        assertTrue(allowed.allErr().contains("security: NULL (1 allowed address rules)"), allowed.err.toString());

        Cat denied = new Cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--verbose", "--allow", "10.0.0.0/8");
        String ep2 = denied.bound();
        Cat refused = new Cat("-t", "REQ", "-c", ep2);
        assertEquals(3, refused.run.exitCode(), "refused by its only peer");
        assertEquals(List.of("stopped reconnecting to " + ep2 + ": peer sent ERROR \"400\""), refused.allErr());
        String why = denied.errLine("HANDSHAKE_FAILED");
        assertTrue(why.contains("address 127.0.0.1 is not allowed"), why);
        denied.run.endInput();
        assertEquals(0, denied.run.exitCode());
    }

    @Test
    void aDeniedAddressIsRefusedBeforeItsPasswordIsChecked() {
        Cat server = new Cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--verbose", "--plain-server",
                "--plain-account", "admin:" + PASSWORD, "--deny", "127.0.0.1");
        String ep = server.bound();
        Cat client = new Cat("-t", "REQ", "-c", ep, "--plain-user", "admin", "--plain-password", PASSWORD);
        assertEquals(3, client.run.exitCode());
        String why = server.errLine("HANDSHAKE_FAILED");
        assertTrue(why.contains("address 127.0.0.1 is denied"), why);
        assertTrue(server.allErr().contains("security: PLAIN server (1 account, 1 denied address rules)"),
                server.err.toString());
        server.run.endInput();
        assertEquals(0, server.run.exitCode());
        assertNoSecrets(server, client);
    }

    // ------------------------------------------------------------------ CURVE

    @Test
    void curveKeysFromKeygenLetTheAllowedClientIn() {
        Cat server = new Cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--echo", "-n", "1",
                "--curve-server", "--curve-secret-key", SERVER.get(1), "--curve-allow", CLIENT.get(0),
                "--curve-allow", OTHER.get(0));
        String ep = server.bound();
        Cat client = new Cat("-t", "DEALER", "-c", ep, "-n", "1", "--curve-server-key", SERVER.get(0),
                "--curve-public-key", CLIENT.get(0), "--curve-secret-key", CLIENT.get(1));
        client.run.input("encrypted\n");
        assertEquals("encrypted", client.run.line());
        assertEquals(0, client.run.exitCode());
        assertTrue(server.run.line().matches("0x[0-9a-f]{10}\tencrypted"), "the server printed it");
        assertEquals(0, server.run.exitCode());
        assertNoSecrets(server, client);
    }

    @Test
    void aServerWithoutAllowListTakesAnyClientKeyAndReadsItsCertificate() throws Exception {
        Path cert = tmp.resolve("server.cert");
        assertEquals(0, KeygenCommandTest.keygen("--cert", cert.toString(), "-q").exit());
        String serverPublic = CurveCertificate.read(cert).publicKeyZ85();
        Cat server = new Cat("-t", "REP", "-b", "tcp://127.0.0.1:0", "--echo", "-n", "1", "--verbose",
                "--curve-server", "--curve-cert", cert.toString());
        assertEquals("security: CURVE server (key " + serverPublic + ", any client key)", server.errLine("security: "));
        String ep = server.bound();
        Cat client = new Cat("-t", "REQ", "-c", ep, "--curve-server-key", serverPublic);
        client.run.input("with a key pair made for this run\n").endInput();
        assertEquals("with a key pair made for this run", client.run.line());
        assertEquals(0, client.run.exitCode());
        assertEquals(0, server.run.exitCode());
        assertNoSecrets(server, client);
    }

    @Test
    void aWrongServerKeyFailsEachHandshakeAndTheClientKeepsTrying() {
        Cat server = new Cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--verbose",
                "--curve-server", "--curve-secret-key", SERVER.get(1));
        String ep = server.bound();
        Cat client = new Cat("-t", "DEALER", "-c", ep, "--verbose", "--curve-server-key", OTHER.get(0),
                "--curve-secret-key", CLIENT.get(1));

        String failed = client.errLine("HANDSHAKE_FAILED");
        assertTrue(failed.endsWith("peer closed the connection during the CURVE handshake"), failed);
        assertTrue(client.errLine("RECONNECT_SCHEDULED").contains(" in "), "no ERROR came: it will try again");
        String dropped = server.errLine("HANDSHAKE_FAILED");
        assertTrue(dropped.contains("wrong server key"), dropped);
        assertTrue(dropped.contains(SERVER.get(0)), "the server names its own public key: " + dropped);
        assertFalse(client.run.exited(), "a dropped connection is retried");
        client.run.endInput();
        server.run.endInput();
        assertEquals(0, client.run.exitCode());
        assertEquals(0, server.run.exitCode());
        assertNoSecrets(server, client);
    }

    @Test
    void aClientKeyNotAllowedIsRefusedAndBothSidesSayWhy() {
        Cat server = new Cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--verbose",
                "--curve-server", "--curve-secret-key", SERVER.get(1), "--curve-allow", OTHER.get(0));
        String ep = server.bound();
        Cat client = new Cat("-t", "DEALER", "-c", ep, "--verbose", "--curve-server-key", SERVER.get(0),
                "--curve-secret-key", CLIENT.get(1));

        assertTrue(client.errLine("HANDSHAKE_FAILED").endsWith("peer sent ERROR \"400\""));
        assertEquals("stopped reconnecting to " + ep + ": peer sent ERROR \"400\"", client.errLine("stopped"));
        assertEquals(3, client.run.exitCode());
        String refused = server.errLine("HANDSHAKE_FAILED");
        assertTrue(refused.contains("CURVE client refused") && refused.contains(CLIENT.get(0))
                && refused.contains("not on the allow list"), refused);
        server.run.endInput();
        assertEquals(0, server.run.exitCode());
        assertNoSecrets(server, client);
    }

    // ------------------------------------------------------------------ usage errors

    static final String SECRET = "s3cret-value";

    static Stream<Arguments> usageErrors() {
        String pub = SERVER.get(0);
        String sec = CLIENT.get(1);
        String notZ85 = "~".repeat(40);
        return Stream.of(
            arguments("--plain-user u", "both --plain-user and --plain-password"),
            arguments("--plain-password " + SECRET, "both --plain-user and --plain-password"),
            arguments("--plain-user u --plain-password " + SECRET + " --curve-server-key " + pub, "PLAIN or CURVE"),
            arguments("--plain-server", "at least one --plain-account"),
            arguments("--plain-server --plain-account " + SECRET, "USER:PASSWORD"),
            arguments("--plain-server --plain-account u:" + SECRET + " --plain-account u:x", "'u' is given twice"),
            arguments("--plain-account u:" + SECRET, "--plain-account applies to --plain-server"),
            arguments("--plain-server --plain-account u:" + SECRET + " --plain-user u --plain-password " + SECRET,
                    "server role"),
            arguments("--curve-server", "needs its key pair"),
            arguments("--curve-server --curve-secret-key " + SECRET, "--curve-secret-key: a CURVE key is 40 Z85"),
            arguments("--curve-server --curve-secret-key " + notZ85, "--curve-secret-key: not a Z85 key"),
            arguments("--curve-server --curve-secret-key " + sec + " --curve-server-key " + pub, "server role"),
            arguments("--curve-server-key " + pub + " --curve-allow " + pub, "--curve-allow applies to --curve-server"),
            arguments("--curve-secret-key " + sec, "no role"),
            arguments("--curve-server-key short", "--curve-server-key: a CURVE key is 40 Z85 characters, not 5"),
            arguments("--curve-server-key " + pub + " --curve-public-key " + pub + " --curve-secret-key " + sec,
                    "not the public key of our secret key"),
            arguments("--curve-server-key " + pub + " --curve-public-key " + pub, "needs --curve-secret-key"),
            arguments("--curve-server --curve-secret-key " + sec + " --curve-cert x.cert", "once"),
            arguments("--curve-server --curve-cert /nonexistent/x.cert", "--curve-cert: cannot read"),
            arguments("--plain-user u --plain-password " + SECRET + " --allow 127.0.0.1", "apply to servers"),
            arguments("--curve-server-key " + pub + " --deny 10.0.0.0/8", "apply to servers"),
            arguments("--allow example.org", "--allow/--deny: not an IP address or CIDR range"),
            arguments("--deny 10.0.0.0/40", "--allow/--deny: prefix length"),
            arguments("--plain-user u --plain-pasword " + SECRET,
                    "Unknown option: '--plain-pasword'; and 1 unexpected argument (not shown)"),
            arguments("--plain-user u --plain-pasword=" + SECRET, "Unknown option: '--plain-pasword=...'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("usageErrors")
    void aBadCombinationIsAUsageErrorThatShowsNoSecret(String security, String expected) {
        List<String> args = new ArrayList<>(List.of("-t", "DEALER", "-c", "tcp://127.0.0.1:5555"));
        args.addAll(List.of(security.split(" ")));
        Cat cat = new Cat(args.toArray(new String[0]));
        assertEquals(2, cat.run.exitCode(), String.join("\n", cat.allErr()));
        List<String> err = cat.allErr();
        assertTrue(err.get(0).contains(expected), "the first line says what is wrong: " + err.get(0));
        for (String l : err) {
            assertFalse(l.contains(SECRET) || l.contains(CLIENT.get(1)) || l.contains("~~~~"), "shows a secret: " + l);
        }
    }
}
