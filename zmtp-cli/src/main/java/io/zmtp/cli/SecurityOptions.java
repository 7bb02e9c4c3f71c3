package io.zmtp.cli;

import io.zmtp.security.AddressRules;
import io.zmtp.security.AuthenticatingNullMechanism;
import io.zmtp.security.Authenticator;
import io.zmtp.security.CurveAllowList;
import io.zmtp.security.CurveCertificate;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.wire.Mechanism;
import io.zmtp.wire.NullMechanism;
import io.zmtp.security.PlainMechanism;
import io.zmtp.security.Z85;
import io.zmtp.socket.SocketOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The security flags of a command that opens sockets, as a picocli mixin
 * ({@code @Mixin SecurityOptions security;}), so every such command offers the same ones. A
 * command calls {@link #apply} while it builds its socket options; {@link #apply} checks the
 * flags against each other and sets the mechanism they ask for:
 * <ul>
 * <li>none: NULL;</li>
 * <li>{@code --plain-user U --plain-password P}: a PLAIN client;</li>
 * <li>{@code --plain-server --plain-account USER:PASSWORD...}: a PLAIN server that lets those
 *     accounts in and no one else;</li>
 * <li>{@code --curve-server --curve-secret-key K [--curve-allow PUBKEY...]}: a CURVE server
 *     (with allowed client keys, else any client key);</li>
 * <li>{@code --curve-server-key K [--curve-secret-key K [--curve-public-key K]]}: a CURVE client
 *     of the server whose public key is K (without a secret key, a key pair made for this run).</li>
 * </ul>
 * {@code --allow ADDRESS...} and {@code --deny ADDRESS...} (IP addresses and CIDR ranges) judge a
 * server's clients by address before their credentials, and with NULL are all there is;
 * {@code --zap-domain} is passed to the authenticator with each request.
 * {@code --curve-cert FILE} reads the key pair from a certificate file (as {@code zmtp keygen
 * --cert} writes it) instead of {@code --curve-secret-key}, keeping the secret key off the
 * command line. Roles do not depend on bind or connect: either end may be the server.
 *
 * <p>Error messages name the flags, never their values: passwords and secret keys are not
 * printed, not even a malformed one.
 */
@Command
public final class SecurityOptions {

    @Option(names = "--plain-user", paramLabel = "USER",
            description = "PLAIN client: the user name to present (with --plain-password).")
    String plainUser;

    @Option(names = "--plain-password", paramLabel = "PASSWORD",
            description = "PLAIN client: the password to present. PLAIN does not encrypt: trusted networks only.")
    String plainPassword;

    @Option(names = "--plain-server",
            description = "PLAIN server: let in the clients of the --plain-account list only.")
    boolean plainServer;

    @Option(names = "--plain-account", paramLabel = "USER:PASSWORD",
            description = "PLAIN server: an account that may connect (repeatable); the user name reaches "
                    + "messages as their User-Id.")
    List<String> plainAccounts = new ArrayList<>();

    @Option(names = "--curve-server",
            description = "CURVE server: encrypt every connection with the key pair of --curve-secret-key "
                    + "or --curve-cert; clients must know its public key.")
    boolean curveServer;

    @Option(names = "--curve-allow", paramLabel = "PUBKEY",
            description = "CURVE server: a client public key (40 Z85 characters) that may connect (repeatable); "
                    + "without any, every client key may.")
    List<String> curveAllow = new ArrayList<>();

    @Option(names = "--curve-server-key", paramLabel = "KEY",
            description = "CURVE client: the server's public key (40 Z85 characters).")
    String curveServerKey;

    @Option(names = "--curve-public-key", paramLabel = "KEY",
            description = "CURVE: our public key; optional, it is derived from the secret key and checked "
                    + "against it.")
    String curvePublicKey;

    @Option(names = "--curve-secret-key", paramLabel = "KEY",
            description = "CURVE: our secret key (40 Z85 characters, as 'zmtp keygen' prints it). A CURVE client "
                    + "without one uses a key pair made for this run.")
    String curveSecretKey;

    @Option(names = "--curve-cert", paramLabel = "FILE",
            description = "CURVE: read our key pair from a certificate file ('zmtp keygen --cert FILE') instead "
                    + "of --curve-secret-key.")
    Path curveCert;

    @Option(names = "--zap-domain", paramLabel = "DOMAIN",
            description = "The ZAP domain (ZMQ_ZAP_DOMAIN) passed to the server's authenticator with each request.")
    String zapDomain;

    @Option(names = "--allow", paramLabel = "ADDRESS",
            description = "Server (or NULL): let in clients from this IP address or CIDR range only (repeatable), "
                    + "before their credentials are checked.")
    List<String> allow = new ArrayList<>();

    @Option(names = "--deny", paramLabel = "ADDRESS",
            description = "Server (or NULL): refuse clients from this IP address or CIDR range (repeatable; wins "
                    + "over --allow).")
    List<String> deny = new ArrayList<>();

    private String description = "NULL";

    /**
     * Sets the security mechanism the flags ask for on {@code options}.
     *
     * @throws IllegalArgumentException for a contradictory or incomplete combination, or a
     *         malformed key (the message names the flag, never the value)
     */
    public SocketOptions.Builder apply(SocketOptions.Builder options) {
        options.mechanism(mechanism());
        return zapDomain == null ? options : options.zapDomain(zapDomain);
    }

    /** The mechanism the flags ask for (see {@link #apply}). */
    public Mechanism mechanism() {
        boolean plain = plainUser != null || plainPassword != null || plainServer || !plainAccounts.isEmpty();
        boolean curve = curveServer || curveServerKey != null || curvePublicKey != null || curveSecretKey != null
                || curveCert != null || !curveAllow.isEmpty();
        if (plain && curve) {
            throw new IllegalArgumentException("choose PLAIN or CURVE: --plain-* and --curve-* flags cannot be combined");
        }
        if (plain) {
            return plain();
        }
        if (curve) {
            return curve();
        }
        if (addressRules() != null) {
            description = "NULL (" + describeRules() + ")";
            return AuthenticatingNullMechanism.of(addressRules());
        }
        description = "NULL";
        return NullMechanism.INSTANCE;
    }

    /** The --allow and --deny rules, or null when there are none. */
    private AddressRules addressRules() {
        if (allow.isEmpty() && deny.isEmpty()) {
            return null;
        }
        try {
            return (allow.isEmpty() ? AddressRules.deny() : AddressRules.allow(allow.toArray(String[]::new)))
                    .andDeny(deny.toArray(String[]::new));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--allow/--deny: " + e.getMessage());
        }
    }

    /** The server's authenticator: the address rules (if any), then {@code credentials}. */
    private Authenticator withRules(Authenticator credentials) {
        AddressRules rules = addressRules();
        return rules == null ? credentials : rules.then(credentials);
    }

    private String describeRules() {
        return (allow.isEmpty() ? "" : allow.size() + " allowed") + (allow.isEmpty() || deny.isEmpty() ? "" : ", ")
                + (deny.isEmpty() ? "" : deny.size() + " denied") + " address rules";
    }

    private void clientRole(String role) {
        if (!allow.isEmpty() || !deny.isEmpty()) {
            throw new IllegalArgumentException("--allow and --deny apply to servers; " + role + " is a client");
        }
    }

    /**
     * What the mechanism of the last {@link #apply} is, for diagnostics: role, public keys, user
     * name, number of accounts or allowed keys; never a password or secret key.
     */
    public String describe() {
        return description;
    }

    private Mechanism plain() {
        if (plainServer) {
            if (plainUser != null || plainPassword != null) {
                throw new IllegalArgumentException("--plain-server is the server role; --plain-user and "
                        + "--plain-password are the client's");
            }
            if (plainAccounts.isEmpty()) {
                throw new IllegalArgumentException("--plain-server needs at least one --plain-account USER:PASSWORD");
            }
            Map<String, String> accounts = new LinkedHashMap<>();
            for (String a : plainAccounts) {
                int colon = a.indexOf(':');
                if (colon <= 0) {
                    throw new IllegalArgumentException("a --plain-account is USER:PASSWORD, a user name then a colon");
                }
                String user = a.substring(0, colon);
                if (accounts.put(user, a.substring(colon + 1)) != null) {
                    throw new IllegalArgumentException("--plain-account: user '" + user + "' is given twice");
                }
            }
            description = "PLAIN server (" + accounts.size() + (accounts.size() == 1 ? " account" : " accounts")
                    + (addressRules() == null ? "" : ", " + describeRules()) + ")";
            return PlainMechanism.server(withRules(Authenticator.plainAccounts(accounts)));
        }
        if (!plainAccounts.isEmpty()) {
            throw new IllegalArgumentException("--plain-account applies to --plain-server");
        }
        if (plainUser == null || plainPassword == null) {
            throw new IllegalArgumentException("a PLAIN client needs both --plain-user and --plain-password");
        }
        clientRole("a PLAIN client");
        PlainMechanism m = PlainMechanism.client(plainUser, plainPassword);
        description = "PLAIN client (user '" + plainUser + "')";
        return m;
    }

    private Mechanism curve() {
        if (curveSecretKey != null && curveCert != null) {
            throw new IllegalArgumentException("give our CURVE keys once: --curve-secret-key or --curve-cert");
        }
        if (curveServer) {
            if (curveServerKey != null) {
                throw new IllegalArgumentException("--curve-server is the server role; --curve-server-key is the "
                        + "client's (the key of the server it connects to)");
            }
            if (curveSecretKey == null && curveCert == null) {
                throw new IllegalArgumentException("--curve-server needs its key pair: --curve-secret-key or "
                        + "--curve-cert");
            }
            CurveKeyPair keys = ourKeys();
            Authenticator auth = Authenticator.allowAll();
            if (!curveAllow.isEmpty()) {
                auth = CurveAllowList.ofZ85(curveAllow.stream().map(k -> checkedKey(k, "--curve-allow"))
                        .toArray(String[]::new));
            }
            description = "CURVE server (key " + keys.publicKeyZ85() + ", "
                    + (curveAllow.isEmpty() ? "any client key" : curveAllow.size() + " allowed client keys")
                    + (addressRules() == null ? "" : ", " + describeRules()) + ")";
            return CurveMechanism.server(keys, withRules(auth));
        }
        if (!curveAllow.isEmpty()) {
            throw new IllegalArgumentException("--curve-allow applies to --curve-server");
        }
        if (curveServerKey == null) {
            throw new IllegalArgumentException("CURVE keys given but no role: add --curve-server (server) or "
                    + "--curve-server-key (client)");
        }
        clientRole("a CURVE client");
        String serverKey = checkedKey(curveServerKey, "--curve-server-key");
        CurveKeyPair keys = curveSecretKey == null && curveCert == null ? generated() : ourKeys();
        description = "CURVE client (key " + keys.publicKeyZ85() + (curveSecretKey == null && curveCert == null
                ? " made for this run" : "") + ", server key " + serverKey + ")";
        return CurveMechanism.client(serverKey, keys);
    }

    private CurveKeyPair generated() {
        if (curvePublicKey != null) {
            throw new IllegalArgumentException("--curve-public-key needs --curve-secret-key");
        }
        return CurveKeyPair.generate();
    }

    /** Our key pair from --curve-secret-key or --curve-cert, checked against --curve-public-key. */
    private CurveKeyPair ourKeys() {
        CurveKeyPair keys;
        if (curveCert != null) {
            CurveCertificate cert;
            try {
                cert = CurveCertificate.read(curveCert);
            } catch (IOException e) {
                throw new IllegalArgumentException("--curve-cert: cannot read " + curveCert + ": " + e.getMessage());
            }
            if (!cert.hasSecretKey()) {
                throw new IllegalArgumentException("--curve-cert: " + curveCert + " is a public certificate; "
                        + "our own needs the secret key");
            }
            keys = cert.keyPair();
        } else {
            keys = CurveKeyPair.fromSecretKey(checkedKey(curveSecretKey, "--curve-secret-key"));
        }
        if (curvePublicKey != null
                && !checkedKey(curvePublicKey, "--curve-public-key").equals(keys.publicKeyZ85())) {
            throw new IllegalArgumentException("--curve-public-key is not the public key of our secret key");
        }
        return keys;
    }

    /** The key if it is 40 valid Z85 characters; the error names the flag, never the key. */
    private static String checkedKey(String key, String flag) {
        if (key.length() != 40) {
            throw new IllegalArgumentException(flag + ": a CURVE key is 40 Z85 characters, not " + key.length());
        }
        try {
            Arrays.fill(Z85.decode(key), (byte) 0);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(flag + ": not a Z85 key (" + e.getMessage() + ")");
        }
        return key;
    }
}
