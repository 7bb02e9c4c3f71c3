package io.zmtp.cli;

import io.zmtp.security.CurveCertificate;
import io.zmtp.security.CurveKeyPair;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code zmtp keygen}: a new CURVE key pair, printed in Z85 as two lines (the public key, then
 * the secret key) and, with {@code --cert FILE}, also written to a certificate file
 * ({@link CurveCertificate#write}: readable by its owner only).
 */
@Command(name = "keygen", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Makes a new CURVE key pair and prints it in Z85: the public key on the first line, the secret key "
                + "on the second.",
            "Give the public key to peers (a server's to its clients for --curve-server-key, a client's to the "
                + "server for --curve-allow); keep the secret key to yourself (--curve-secret-key, or the "
                + "certificate file of --cert with --curve-cert)."},
        footer = {"", "Exit status: 0 done; 3 the certificate file could not be written."})
public final class KeygenCommand implements Callable<Integer> {
    static final int EXIT_OK = 0;
    static final int EXIT_FAILURE = 3;

    @Spec
    CommandSpec spec;

    @Option(names = "--cert", paramLabel = "FILE",
            description = "Also write the key pair to FILE as a certificate (replaced if it exists; readable by "
                    + "its owner only).")
    Path cert;

    @Option(names = "--public-cert", paramLabel = "FILE",
            description = "Also write the public key alone to FILE as a public certificate, to hand to peers.")
    Path publicCert;

    @Option(names = {"-q", "--quiet"}, description = "Do not print the keys (with --cert: only write the file).")
    boolean quiet;

    @Override
    public Integer call() {
        CurveKeyPair keys = CurveKeyPair.generate();
        CurveCertificate certificate = CurveCertificate.of(keys);
        try {
            if (cert != null) {
                certificate.write(cert);
            }
            if (publicCert != null) {
                certificate.writePublic(publicCert);
            }
        } catch (IOException e) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("cannot write the certificate: " + CommandSupport.reason(e));
            err.flush();
            return EXIT_FAILURE;
        }
        if (!quiet) {
            PrintWriter out = spec.commandLine().getOut();
            out.println(keys.publicKeyZ85());
            out.println(keys.secretKeyZ85());
            out.flush();
        }
        return EXIT_OK;
    }
}
