package io.zmtp.cli;

import io.zmtp.security.CurveCertificate;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.Z85;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code zmtp keygen} in-process. */
class KeygenCommandTest {
    @TempDir
    Path tmp;

    /** One run's exit status and output lines. */
    record Run(int exit, List<String> out, String err) {
    }

    static Run keygen(String... args) {
        CommandLine cl = ZmtpCli.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        String[] all = new String[args.length + 1];
        all[0] = "keygen";
        System.arraycopy(args, 0, all, 1, args.length);
        int exit = cl.execute(all);
        String text = out.toString();
        return new Run(exit, text.isEmpty() ? List.of() : List.of(text.split("\r?\n")), err.toString());
    }

    @Test
    void printsAPublicKeyThenItsSecretKeyInZ85() {
        Run r = keygen();
        assertEquals(0, r.exit(), r.err());
        assertEquals(2, r.out().size(), "exactly two lines: " + r.out());
        String pub = r.out().get(0);
        String sec = r.out().get(1);
        assertEquals(40, pub.length());
        assertEquals(40, sec.length());
        assertEquals(32, Z85.decode(pub).length);
        assertEquals(32, Z85.decode(sec).length);
        assertEquals(pub, CurveKeyPair.fromSecretKey(sec).publicKeyZ85(), "the first line is the second's public key");
        assertEquals("", r.err());
    }

    @Test
    void everyRunMakesANewPair() {
        assertNotEquals(keygen().out().get(1), keygen().out().get(1));
    }

    @Test
    void certWritesTheSamePairToACertificateOnlyItsOwnerReads() throws Exception {
        Path file = tmp.resolve("server.cert");
        Path pubFile = tmp.resolve("server.pub");
        Run r = keygen("--cert", file.toString(), "--public-cert", pubFile.toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals(2, r.out().size(), "the two lines are printed too: " + r.out());
        CurveCertificate cert = CurveCertificate.read(file);
        assertTrue(cert.hasSecretKey());
        assertEquals(r.out().get(0), cert.publicKeyZ85());
        assertEquals(r.out().get(1), cert.keyPair().secretKeyZ85());
        if (Files.getFileStore(tmp).supportsFileAttributeView("posix")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        }
        CurveCertificate pub = CurveCertificate.read(pubFile);
        assertFalse(pub.hasSecretKey());
        assertEquals(r.out().get(0), pub.publicKeyZ85());
        assertFalse(Files.readString(pubFile).contains(r.out().get(1)), "the public certificate holds no secret");
    }

    @Test
    void quietWithCertOnlyWritesTheFile() throws Exception {
        Path file = tmp.resolve("quiet.cert");
        Run r = keygen("--cert", file.toString(), "-q");
        assertEquals(0, r.exit(), r.err());
        assertEquals(List.of(), r.out());
        assertTrue(CurveCertificate.read(file).hasSecretKey());
    }

    @Test
    void aCertificateThatCannotBeWrittenExitsWithStatusThreeAndPrintsNoKey() {
        Run r = keygen("--cert", tmp.resolve("no such dir").resolve("x.cert").toString());
        assertEquals(3, r.exit());
        assertEquals(List.of(), r.out(), "no key printed when the file failed");
        assertTrue(r.err().startsWith("cannot write the certificate"), r.err());
    }
}
