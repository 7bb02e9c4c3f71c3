package io.zmtp.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private PostgreSQL server for tests: Debian's {@code postgresql} package
 * ({@code scripts/install-test-deps.sh} installs it), a cluster made with {@code initdb} in a
 * temporary directory, listening on 127.0.0.1 at a free port, stopped and deleted by
 * {@link #close()} (and at JVM exit). As root, the server runs as the package's {@code postgres}
 * user, since PostgreSQL refuses to run as root. The superuser is {@code titanic}, with trust
 * authentication on the loopback only.
 */
public final class PostgresServer implements AutoCloseable {
    private final Path bin;
    private final Path data;
    private final int port;
    private final boolean asPostgres;
    private boolean running;

    private PostgresServer(Path bin, Path data, int port, boolean asPostgres) {
        this.bin = bin;
        this.data = data;
        this.port = port;
        this.asPostgres = asPostgres;
    }

    /** Makes a cluster and starts it. */
    public static PostgresServer start() {
        Path bin = findBin();
        try {
            Path data = Files.createTempDirectory("zmtp-pg-");
            boolean root = "root".equals(System.getProperty("user.name"));
            if (root) {
                UserPrincipal pg = data.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
                Files.setOwner(data, pg);
            }
            PostgresServer s = new PostgresServer(bin, data, FreePorts.next(), root);
            s.run(60, "initdb", "-D", data.toString(), "-U", "titanic", "-A", "trust", "-E", "UTF8",
                    "--no-instructions");
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "postgres-stop"));
            s.startAgain();
            return s;
        } catch (IOException e) {
            throw new IllegalStateException("cannot make a PostgreSQL cluster", e);
        }
    }

    private static Path findBin() {
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb")))
                    .max(Comparator.naturalOrder()).orElseThrow();
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("no PostgreSQL server under /usr/lib/postgresql: "
                    + "scripts/install-test-deps.sh installs Debian's postgresql package", e);
        }
    }

    /** Starts the server (again, after {@link #stopImmediately()}), waiting until it accepts connections. */
    public synchronized void startAgain() {
        run(60, "pg_ctl", "-D", data.toString(), "-w", "-t", "60", "-l", data.resolve("server.log").toString(),
                "-o", "-p " + port + " -k " + data + " -c listen_addresses=127.0.0.1", "start");
        running = true;
    }

    /** {@code pg_ctl stop -m immediate}: the server quits at once, as if it crashed; recovery runs at the next start. */
    public synchronized void stopImmediately() {
        run(60, "pg_ctl", "-D", data.toString(), "-w", "-m", "immediate", "stop");
        running = false;
    }

    /** The JDBC URL of the {@code postgres} database. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=titanic";
    }

    /** A new, empty database; its JDBC URL. */
    public String newDatabase(String name) {
        run(60, "createdb", "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", "titanic", name);
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + name + "?user=titanic";
    }

    public int port() {
        return port;
    }

    /**
     * A superuser {@code role} that must give {@code password} (scram-sha-256) over TCP, while
     * the others keep trust; returns once the server asks it for the password.
     */
    public synchronized void addPasswordRole(String role, String password) {
        run(60, "psql", "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", "titanic", "-d", "postgres",
                "-v", "ON_ERROR_STOP=1", "-c", "CREATE ROLE " + role + " LOGIN SUPERUSER PASSWORD '" + password + "'");
        try {
            Path hba = data.resolve("pg_hba.conf");
            String rules = Files.readString(hba);
            Files.writeString(hba, "host all " + role + " 127.0.0.1/32 scram-sha-256\n" + rules);
        } catch (IOException e) {
            throw new IllegalStateException("cannot change pg_hba.conf", e);
        }
        run(60, "pg_ctl", "-D", data.toString(), "reload");
        // the reload is a signal: wait until a connection without the password is refused
        Await.until(() -> role + " still connects without a password", () -> {
            try {
                Process p = new ProcessBuilder(bin.resolve("psql").toString(), "-h", "127.0.0.1", "-p",
                        Integer.toString(port), "-U", role, "-d", "postgres", "-w", "-c", "SELECT 1")
                        .redirectErrorStream(true).start();
                p.getOutputStream().close();
                p.getInputStream().readAllBytes();
                return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() != 0;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    /** Stops the server (fast shutdown) and deletes its directory. */
    @Override
    public synchronized void close() {
        if (running) {
            try {
                run(60, "pg_ctl", "-D", data.toString(), "-w", "-m", "fast", "stop");
            } catch (RuntimeException e) {
                // already gone
            }
            running = false;
        }
        try (Stream<Path> files = Files.walk(data)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // already deleted
        }
    }

    private void run(int seconds, String program, String... args) {
        List<String> cmd = new ArrayList<>();
        if (asPostgres) {
            cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        cmd.add(bin.resolve(program).toString());
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(seconds, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", cmd) + " failed: "
                        + new String(out, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + cmd, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + cmd, e);
        }
    }
}
