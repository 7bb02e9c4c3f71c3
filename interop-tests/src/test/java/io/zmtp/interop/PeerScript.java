package io.zmtp.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A program running as its own process that prints one line per event: a libzmq program of the
 * test resources' {@code peers/} folder (through /usr/bin/python3 and python3-zmq), or the
 * packaged {@code zmtp} command line. Tests wait for lines with deadlines, and kill the process as
 * a crash would.
 */
public final class PeerScript implements AutoCloseable {
    /**
     * How long a wait may take before the test fails. Generous, as it bounds only a failing run:
     * a JVM started on a busy 2-core machine may take several seconds to print its first line.
     */
    private static final long DEADLINE_MS = 30_000;

    private final String name;
    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final List<Long> arrivals = new CopyOnWriteArrayList<>(); // System.nanoTime per line

    private PeerScript(String name, Process process) {
        this.name = name;
        this.process = process;
        Thread reader = new Thread(this::read, name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts any program (the packaged {@code zmtp} command line, say); {@code name} is for messages. */
    public static PeerScript startProgram(String name, List<String> command) {
        return startProgram(name, command, false);
    }

    /**
     * Starts any program; with {@code withStderr} its stderr lines are read with its stdout lines
     * (in the order the two reach the pipe), else they go to the test's stderr.
     */
    public static PeerScript startProgram(String name, List<String> command, boolean withStderr) {
        try {
            ProcessBuilder b = new ProcessBuilder(command);
            if (withStderr) {
                b.redirectErrorStream(true);
            } else {
                b.redirectError(ProcessBuilder.Redirect.INHERIT);
            }
            Process p = b.start();
            return new PeerScript(name, p);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + command, e);
        }
    }

    /** The packaged command line, built by {@code mvn package}. */
    public static final Path ZMTP_JAR = Path.of("..", "zmtp-cli", "target", "zmtp.jar").toAbsolutePath().normalize();

    /** The java of this test run, for the processes it starts. */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The class-data-sharing archive the build makes beside {@code zmtp.jar} (see the zmtp launcher). */
    static final Path ZMTP_ARCHIVE = ZMTP_JAR.resolveSibling("zmtp.jsa");

    /**
     * {@code java [OPTIONS] -jar zmtp.jar}, as the {@code zmtp} launcher runs it: with the build's
     * class-data-sharing archive when there is one, so each process starts in about two thirds of
     * the time (a test that starts a dozen JVMs on two cores spends most of its time there).
     */
    public static List<String> zmtpJava(String... jvmOptions) {
        List<String> cmd = new ArrayList<>(List.of(java()));
        if (java.nio.file.Files.isRegularFile(ZMTP_ARCHIVE)) {
            cmd.addAll(List.of("-XX:SharedArchiveFile=" + ZMTP_ARCHIVE, "-Xlog:cds=off", "-Xlog:cds+dynamic=off"));
        }
        cmd.addAll(List.of(jvmOptions));
        cmd.addAll(List.of("-jar", ZMTP_JAR.toString()));
        return cmd;
    }

    /** Starts {@code java -jar zmtp.jar ARGS...}, named after its arguments. */
    public static PeerScript zmtp(String... args) {
        if (!java.nio.file.Files.isRegularFile(ZMTP_JAR)) {
            throw new AssertionError(ZMTP_JAR + " is missing: build it with mvn package (or verify)");
        }
        List<String> cmd = zmtpJava();
        cmd.addAll(List.of(args));
        return startProgram("zmtp " + String.join(" ", args), cmd);
    }

    /**
     * Starts {@code java -jar zmtp.jar ARGS...} with its stderr read with its stdout, so the
     * library's log lines (a WARN for each connection refused or evicted) can be counted.
     */
    public static PeerScript zmtpWithLog(String... args) {
        if (!java.nio.file.Files.isRegularFile(ZMTP_JAR)) {
            throw new AssertionError(ZMTP_JAR + " is missing: build it with mvn package (or verify)");
        }
        List<String> cmd = zmtpJava();
        cmd.addAll(List.of(args));
        return startProgram("zmtp " + String.join(" ", args), cmd, true);
    }

    /**
     * Starts a program prepared by the caller (its environment, say); its stderr goes to the
     * test's stderr and its stdin stays open for {@link #writeLine}.
     */
    public static PeerScript start(String name, ProcessBuilder builder) {
        try {
            return new PeerScript(name, builder.redirectError(ProcessBuilder.Redirect.INHERIT).start());
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + builder.command(), e);
        }
    }

    /** Starts {@code peers/<script>} with the given arguments. */
    public static PeerScript start(String script, String... args) {
        try {
            Path file = LibzmqPeer.script(script);
            List<String> cmd = new ArrayList<>(List.of(LibzmqPeer.PYTHON, "-u", file.toString()));
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            return new PeerScript(script, p);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + script + " (is python3-zmq installed? "
                    + "scripts/install-test-deps.sh installs it)", e);
        }
    }

    private void read() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                arrivals.add(System.nanoTime());
                lines.add(line);
            }
        } catch (IOException ignored) {
            // the process ended
        }
    }

    /** Every line printed so far. */
    public List<String> lines() {
        return new ArrayList<>(lines);
    }

    /**
     * When (System.nanoTime) each line arrived, in the order of {@link #lines()}; taken after
     * {@code lines()}, it has at least as many.
     */
    public List<Long> arrivals() {
        return new ArrayList<>(arrivals);
    }

    public long count(Predicate<String> p) {
        return lines.stream().filter(p).count();
    }

    /** The first line starting with {@code prefix}, waiting for it. */
    public String awaitLine(String prefix) {
        return awaitCount(prefix, 1).get(0);
    }

    /** Waits until {@code n} lines start with {@code prefix}; returns them. */
    public List<String> awaitCount(String prefix, int n) {
        return awaitCount(prefix, n, DEADLINE_MS);
    }

    /**
     * Waits up to {@code deadlineMs} until {@code n} lines start with {@code prefix}; returns them
     * (a longer deadline for what waits on another JVM's start on a loaded machine).
     */
    public List<String> awaitCount(String prefix, int n, long deadlineMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(deadlineMs);
        while (count(l -> l.startsWith(prefix)) < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(name + " printed no " + n + " lines '" + prefix + "' within "
                        + deadlineMs + " ms; it printed " + lines + (process.isAlive() ? "" : " and exited "
                        + process.exitValue()));
            }
            sleep();
        }
        List<String> l = new ArrayList<>();
        for (String s : lines) {
            if (s.startsWith(prefix)) {
                l.add(s);
            }
        }
        return l;
    }

    /**
     * When (System.nanoTime) the first line starting with {@code prefix} that arrived after
     * {@code after} (System.nanoTime) arrived, waiting for it.
     */
    public long awaitLineAfter(String prefix, long after) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        while (true) {
            int n = lines.size();
            for (int i = 0; i < n; i++) {
                if (arrivals.get(i) - after >= 0 && lines.get(i).startsWith(prefix)) {
                    return arrivals.get(i);
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(name + " printed no line '" + prefix + "' within " + DEADLINE_MS
                        + " ms; it printed " + lines);
            }
            sleep();
        }
    }

    /** When (System.nanoTime) the {@code index}th line (from 0) starting with {@code prefix} arrived; it must have. */
    public long arrivalOf(String prefix, int index) {
        int seen = 0;
        int n = lines.size();
        for (int i = 0; i < n; i++) {
            if (lines.get(i).startsWith(prefix) && seen++ == index) {
                return arrivals.get(i);
            }
        }
        throw new AssertionError(name + " printed no " + (index + 1) + " lines '" + prefix + "': " + lines);
    }

    /**
     * How many lines starting with {@code prefix} arrived from {@code from} (inclusive) to
     * {@code to} (exclusive), both System.nanoTime.
     */
    public long countBetween(String prefix, long from, long to) {
        long n = 0;
        int size = lines.size();
        for (int i = 0; i < size; i++) {
            long at = arrivals.get(i);
            if (at - from >= 0 && at - to < 0 && lines.get(i).startsWith(prefix)) {
                n++;
            }
        }
        return n;
    }

    /** Waits for the process to end and returns its exit status. */
    public int awaitExit() {
        return awaitExit(DEADLINE_MS);
    }

    /** Waits up to {@code deadlineMs} for the process to end and returns its exit status. */
    public int awaitExit(long deadlineMs) {
        try {
            if (!process.waitFor(deadlineMs, TimeUnit.MILLISECONDS)) {
                throw new AssertionError(name + " still running after " + deadlineMs + " ms; it printed " + lines);
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Writes one line to the program's stdin (a command, for a program that reads them). */
    public void writeLine(String line) {
        try {
            var in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new AssertionError(name + " is gone; it printed " + lines, e);
        }
    }

    /** Whether the process is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** The process id. */
    public long pid() {
        return process.pid();
    }

    /**
     * Sends a signal by name ({@code STOP} freezes the process with its connections open,
     * {@code CONT} thaws it) and waits for {@code kill} to return.
     */
    public void signal(String name) {
        try {
            Process k = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            if (!k.waitFor(DEADLINE_MS, TimeUnit.MILLISECONDS) || k.exitValue() != 0) {
                throw new AssertionError("kill -" + name + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Kills the process at once (SIGKILL), as a crash would; its sockets close without a word. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(DEADLINE_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
