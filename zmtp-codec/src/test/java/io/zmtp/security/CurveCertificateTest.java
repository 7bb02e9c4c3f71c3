package io.zmtp.security;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CurveCertificateTest {
    static final String PUB = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";
    static final String SEC = "JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6";

    @TempDir
    Path dir;

    @Test
    void secretCertificateRoundTripsAndIsOwnerOnly() throws IOException {
        CurveCertificate cert = CurveCertificate.of(CurveKeyPair.fromSecretKey(SEC));
        Path f = dir.resolve("server.cert");
        cert.write(f);
        String text = Files.readString(f);
        assertTrue(text.contains("public-key = \"" + PUB + "\""), text);
        assertTrue(text.contains("secret-key = \"" + SEC + "\""), text);
        if (Files.getFileStore(f).supportsFileAttributeView("posix")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        }
        CurveCertificate back = CurveCertificate.read(f);
        assertTrue(back.hasSecretKey());
        assertEquals(PUB, back.publicKeyZ85());
        assertEquals(SEC, back.keyPair().secretKeyZ85());
        cert.write(f); // replacing an existing file works
        assertEquals(text, Files.readString(f));
    }

    @Test
    void publicCertificateHasNoSecret() throws IOException {
        CurveCertificate cert = CurveCertificate.of(CurveKeyPair.fromSecretKey(SEC));
        Path f = dir.resolve("server.pub");
        cert.writePublic(f);
        String text = Files.readString(f);
        assertFalse(text.contains(SEC));
        assertFalse(text.contains("secret-key"));
        CurveCertificate back = CurveCertificate.read(f);
        assertFalse(back.hasSecretKey());
        assertArrayEquals(Z85.decode(PUB), back.publicKey());
        assertThrows(IllegalStateException.class, back::keyPair);
        assertFalse(cert.toString().contains(SEC));
    }

    /** The layout of CZMQ's zcert files (ZPL): sections, indentation, quoted values, comments. */
    @Test
    void readsCzmqStyleFiles() {
        String zcert = "#   ****  Generated on 2024-01-01 00:00:00 by CZMQ  ****\n"
                + "#   ZeroMQ CURVE **Secret** Certificate\n"
                + "#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.\n"
                + "\n"
                + "metadata\n"
                + "    name = \"server\"\n"
                + "curve\n"
                + "    public-key = \"" + PUB + "\"\n"
                + "    secret-key = \"" + SEC + "\"\n";
        CurveCertificate c = CurveCertificate.parse(zcert);
        assertEquals(SEC, c.keyPair().secretKeyZ85());
        CurveCertificate unquoted = CurveCertificate.parse("public-key = " + PUB + "\r\n");
        assertEquals(PUB, unquoted.publicKeyZ85());
    }

    @Test
    void malformedFilesAreRefusedWithoutShowingKeys() throws IOException {
        assertThrows(IllegalArgumentException.class, () -> CurveCertificate.parse("# nothing\n"));
        assertThrows(IllegalArgumentException.class, () -> CurveCertificate.parse("public-key = \"short\"\n"));
        assertThrows(IllegalArgumentException.class,
                () -> CurveCertificate.parse("public-key = \"" + PUB + "\"\npublic-key = \"" + PUB + "\"\n"));
        String mismatched = "public-key = \"lN^A[vB9^t&VSVKfQAqC1Gra0Iff(cRKDe@f[z$%\"\nsecret-key = \"" + SEC + "\"\n";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CurveCertificate.parse(mismatched));
        assertFalse(e.getMessage().contains(SEC));
        Path f = dir.resolve("bad.cert");
        Files.writeString(f, "secret-key = \"" + SEC + "x\"\n", StandardCharsets.UTF_8);
        IOException io = assertThrows(IOException.class, () -> CurveCertificate.read(f));
        assertTrue(io.getMessage().startsWith(f.toString()));
        assertFalse(io.getMessage().contains(SEC));
    }
}
