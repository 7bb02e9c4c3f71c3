package io.zmtp.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A CURVE key kept in a file: a public key alone (to hand out to peers) or a whole key pair (to
 * keep to yourself).
 *
 * <h2>File format</h2>
 * UTF-8 text, one {@code name = "value"} property per line, keys in Z85 (40 characters):
 * <pre>
 * #   ZMTP CURVE secret certificate
 * #   Holds a SECRET key: do not give this file to anyone.
 *
 * curve
 *     public-key = "(the public key: 40 Z85 characters)"
 *     secret-key = "(the secret key: 40 Z85 characters)"
 * </pre>
 * A public certificate is the same without the {@code secret-key} line. The reader skips blank
 * lines and lines starting with {@code #}, ignores lines without {@code =} (section names such as
 * {@code curve} or {@code metadata}), leading indentation, other properties, and accepts values
 * with or without double quotes. This is the layout of CZMQ's {@code zcert} files (ZPL), so those
 * can be read too. When both keys are present the public key must be the secret key's.
 *
 * <p>{@link #write} creates a file holding a secret key readable and writable by its owner only
 * (on file systems with POSIX permissions), replacing any file of that name atomically.
 * {@link #toString} never shows the secret key.
 */
public final class CurveCertificate {
    static final String PUBLIC_KEY = "public-key";
    static final String SECRET_KEY = "secret-key";

    private final byte[] publicKey;
    private final CurveKeyPair keyPair;

    private CurveCertificate(byte[] publicKey, CurveKeyPair keyPair) {
        this.publicKey = publicKey;
        this.keyPair = keyPair;
    }

    /** A certificate holding a key pair. */
    public static CurveCertificate of(CurveKeyPair keyPair) {
        return new CurveCertificate(keyPair.publicKey(), keyPair);
    }

    /** A certificate holding a newly generated key pair. */
    public static CurveCertificate generate() {
        return of(CurveKeyPair.generate());
    }

    /** A public certificate: someone else's public key. */
    public static CurveCertificate ofPublicKey(byte[] publicKey) {
        CurveKeyPair.checkKey(publicKey, "public key");
        return new CurveCertificate(publicKey.clone(), null);
    }

    public static CurveCertificate ofPublicKey(String publicKeyZ85) {
        return new CurveCertificate(CurveKeyPair.decodeKey(publicKeyZ85, "public key"), null);
    }

    /**
     * Reads a certificate file.
     *
     * @throws IOException when the file cannot be read or is not a certificate (the message names
     *         the file and line, never a key)
     */
    public static CurveCertificate read(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage());
        }
    }

    /**
     * The public certificates of every regular file of {@code directory}, as zauth and ZAuth load a
     * directory of client certificates: files whose name starts with {@code .} or ends in
     * {@code _secret} (where zcert keeps a secret key) are skipped. Sorted by file name.
     *
     * @throws IOException when the directory cannot be listed or a file is not a certificate
     */
    public static List<CurveCertificate> readDirectory(Path directory) throws IOException {
        return readDirectory(directory, "*");
    }

    /**
     * The public certificates of the files of {@code directory} whose name matches {@code glob}
     * ({@code "*.key"} as pyzmq's {@code zmq.auth.load_certificates}), with the same files skipped
     * as {@link #readDirectory(Path)}. Only the public part of each is kept: a secret key found in
     * the directory is not held on to. An allow list must not be silently shorter than the
     * directory, so a file that is not a certificate fails the whole read, naming the file.
     *
     * @throws IOException when the directory cannot be listed or a file is not a certificate
     */
    public static List<CurveCertificate> readDirectory(Path directory, String glob) throws IOException {
        PathMatcher matcher = directory.getFileSystem().getPathMatcher("glob:" + glob);
        List<Path> files = new ArrayList<>();
        try (Stream<Path> listing = Files.list(directory)) {
            listing.filter(Files::isRegularFile).filter(f -> {
                String name = f.getFileName().toString();
                return !name.startsWith(".") && !name.endsWith("_secret") && matcher.matches(f.getFileName());
            }).sorted().forEach(files::add);
        }
        List<CurveCertificate> certificates = new ArrayList<>(files.size());
        for (Path f : files) {
            certificates.add(read(f).publicPart());
        }
        return List.copyOf(certificates);
    }

    /**
     * Parses the text of a certificate file.
     *
     * @throws IllegalArgumentException when it holds no public key, a key that is not 40 Z85
     *         characters, a key twice, or a public key that is not the secret key's
     */
    public static CurveCertificate parse(String text) {
        String pub = null;
        String sec = null;
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            int eq = line.indexOf('=');
            if (line.isEmpty() || line.startsWith("#") || eq < 0) {
                continue;
            }
            String name = line.substring(0, eq).strip();
            String value = unquote(line.substring(eq + 1).strip());
            if (name.equalsIgnoreCase(PUBLIC_KEY)) {
                if (pub != null) {
                    throw new IllegalArgumentException("line " + (i + 1) + ": a second public-key");
                }
                pub = value;
            } else if (name.equalsIgnoreCase(SECRET_KEY)) {
                if (sec != null) {
                    throw new IllegalArgumentException("line " + (i + 1) + ": a second secret-key");
                }
                sec = value;
            }
        }
        if (pub == null) {
            throw new IllegalArgumentException("no public-key property: not a CURVE certificate");
        }
        byte[] publicKey = CurveKeyPair.decodeKey(pub, "public key");
        if (sec == null) {
            return new CurveCertificate(publicKey, null);
        }
        byte[] secretKey = CurveKeyPair.decodeKey(sec, "secret key");
        try {
            return new CurveCertificate(publicKey, CurveKeyPair.of(publicKey, secretKey));
        } finally {
            Arrays.fill(secretKey, (byte) 0);
        }
    }

    private static String unquote(String v) {
        if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
            return v.substring(1, v.length() - 1);
        }
        return v;
    }

    /** A copy of the public key. */
    public byte[] publicKey() {
        return publicKey.clone();
    }

    public String publicKeyZ85() {
        return Z85.encode(publicKey);
    }

    public boolean hasSecretKey() {
        return keyPair != null;
    }

    /**
     * The key pair.
     *
     * @throws IllegalStateException for a public certificate
     */
    public CurveKeyPair keyPair() {
        if (keyPair == null) {
            throw new IllegalStateException("a public certificate has no secret key");
        }
        return keyPair;
    }

    /** This certificate without its secret key: what to give peers. */
    public CurveCertificate publicPart() {
        return new CurveCertificate(publicKey, null);
    }

    /** The file text: with the secret key when there is one. */
    public String toText() {
        StringBuilder sb = new StringBuilder();
        if (keyPair != null) {
            sb.append("#   ZMTP CURVE secret certificate\n");
            sb.append("#   Holds a SECRET key: do not give this file to anyone.\n");
            sb.append("#   Give peers the public certificate (the same without the secret-key line).\n");
        } else {
            sb.append("#   ZMTP CURVE public certificate\n");
            sb.append("#   Check that it came from its owner before trusting it.\n");
        }
        sb.append('\n').append("curve\n");
        sb.append("    ").append(PUBLIC_KEY).append(" = \"").append(publicKeyZ85()).append("\"\n");
        if (keyPair != null) {
            sb.append("    ").append(SECRET_KEY).append(" = \"").append(keyPair.secretKeyZ85()).append("\"\n");
        }
        return sb.toString();
    }

    /**
     * Writes this certificate (with its secret key, if any) to {@code file}. A file holding a
     * secret key is created readable by its owner only where the file system has POSIX permissions.
     */
    public void write(Path file) throws IOException {
        writeText(file, toText(), keyPair != null);
    }

    /** Writes the public certificate (never the secret key) to {@code file}. */
    public void writePublic(Path file) throws IOException {
        writeText(file, publicPart().toText(), false);
    }

    private static void writeText(Path file, String text, boolean secret) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        boolean posix = Files.getFileStore(dir).supportsFileAttributeView("posix");
        Set<PosixFilePermission> perms = PosixFilePermissions.fromString(secret ? "rw-------" : "rw-r--r--");
        FileAttribute<?>[] attrs = posix
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(perms)}
                : new FileAttribute<?>[0];
        Path tmp = null;
        for (int i = 0; tmp == null; i++) {
            try {
                tmp = Files.createFile(dir.resolve("." + file.getFileName() + ".tmp" + i), attrs);
            } catch (FileAlreadyExistsException e) {
                if (i > 100) {
                    throw e;
                }
            }
        }
        try {
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (java.nio.file.AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
        } finally {
            if (tmp != null) {
                Files.deleteIfExists(tmp);
            }
        }
    }

    /** Shows the public key only. */
    @Override
    public String toString() {
        return "CurveCertificate{public=" + publicKeyZ85() + (keyPair != null ? ", with secret key" : "") + "}";
    }
}
