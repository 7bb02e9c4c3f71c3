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

    /** A public certificate as pyzmq's zmq.auth.create_certificates writes it (pyzmq 25, libzmq 4.3.4). */
    static final String PYZMQ_PUBLIC = """
            #   ****  Generated on 2026-12-07 07:18:11.089324 by pyzmq  ****
            #   ZeroMQ CURVE Public Certificate
            #   Exchange securely, or use a secure mechanism to verify the contents
            #   of this file after exchange. Store public certificates in your home
            #   directory, in the .curve subdirectory.

            metadata
            curve
                public-key = "L<dgC<8eQ=R8to^S>mWs=4326f}+SUMil=Zt+-ck"
            """;

    @Test
    void aDirectoryIsReadAsZauthAndZmqAuthReadIt() throws IOException {
        Files.writeString(dir.resolve("client.key"), PYZMQ_PUBLIC);
        CurveCertificate.of(CurveKeyPair.fromSecretKey(SEC)).write(dir.resolve("other.key_secret"));
        CurveCertificate.of(CurveKeyPair.fromSecretKey(SEC)).write(dir.resolve("server"));   // zcert: "server" and "server_secret"
        CurveCertificate.of(CurveKeyPair.fromSecretKey(SEC)).write(dir.resolve("server_secret"));
        Files.writeString(dir.resolve(".hidden"), "not a certificate");
        Files.createDirectory(dir.resolve("sub"));

        var all = CurveCertificate.readDirectory(dir);               // zauth, ZAuth: every file but *_secret
        assertEquals(2, all.size(), all.toString());
        assertEquals("L<dgC<8eQ=R8to^S>mWs=4326f}+SUMil=Zt+-ck", all.get(0).publicKeyZ85());
        assertEquals(PUB, all.get(1).publicKeyZ85());
        assertFalse(all.get(1).hasSecretKey(), "only the public part of a secret certificate is kept");

        var keys = CurveCertificate.readDirectory(dir, "*.key");     // zmq.auth.load_certificates
        assertEquals(1, keys.size(), keys.toString());
        assertEquals("L<dgC<8eQ=R8to^S>mWs=4326f}+SUMil=Zt+-ck", keys.get(0).publicKeyZ85());
        assertTrue(CurveAllowList.ofCertificates(keys).contains(Z85.decode("L<dgC<8eQ=R8to^S>mWs=4326f}+SUMil=Zt+-ck")));
    }

    @Test
    void aFileThatIsNotACertificateFailsTheDirectoryNamingIt() throws IOException {
        Files.writeString(dir.resolve("client.key"), PYZMQ_PUBLIC);
        Path stray = dir.resolve("notes.key");
        Files.writeString(stray, "# not a certificate\n");
        IOException e = assertThrows(IOException.class, () -> CurveCertificate.readDirectory(dir, "*.key"));
        assertTrue(e.getMessage().startsWith(stray.toString()), e.getMessage());
        assertEquals(1, CurveCertificate.readDirectory(dir, "client*").size());
    }
}
