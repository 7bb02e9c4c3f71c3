package io.zmtp.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real ZMTP 2.0 implementation in a JVM of its own: JeroMQ 0.3.6 (a port of libzmq 3.2),
 * which would clash with the newer JeroMQ of the benchmarks, so it is not on our class path:
 * the test module's build copies its jar into {@code target/zmtp20-peer} (system property
 * {@code zmtp20.peer.dir}), and {@code peers/Zmtp20Peer.java} runs on it through the JDK's
 * source launcher. One socket per process, one command per line, each answer awaited with a deadline.
 */
final class Zmtp20PeerProcess implements AutoCloseable {
    private static final HexFormat HEX = HexFormat.of();

    private final Process process;
    private final Writer in;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    final String version;

    private Zmtp20PeerProcess(Process process) throws IOException {
        this.process = process;
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> readLines(process.getInputStream()), "zmtp20-peer-stdout");
        reader.setDaemon(true);
        reader.start();
        String hello = take(60_000);   // the source launcher compiles the peer first
        if (!hello.equals("ok ready")) {
            throw new IOException("ZMTP 2.0 peer did not start: " + hello);
        }
        version = call("version");
    }

    /** Starts a peer process with a socket of {@code type} (JeroMQ's constant name: REQ, PUB...). */
    static Zmtp20PeerProcess start(String type) throws IOException {
        String dir = System.getProperty("zmtp20.peer.dir", "target/zmtp20-peer");
        Path jar = Paths.get(dir, "jeromq-zmtp20.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no " + jar + ": the interop-tests build copies JeroMQ 0.3.6 there"
                    + " (maven-dependency-plugin, generate-test-resources; run once without -o to download it)");
        }
        Path source = Files.createTempDirectory("zmtp20-peer").resolve("Zmtp20Peer.java");
        try (InputStream s = Zmtp20PeerProcess.class.getResourceAsStream("/peers/Zmtp20Peer.java")) {
            if (s == null) {
                throw new IOException("no resource peers/Zmtp20Peer.java");
            }
            Files.copy(s, source, StandardCopyOption.REPLACE_EXISTING);
        }
        source.toFile().deleteOnExit();
        source.getParent().toFile().deleteOnExit();
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp", jar.toString(),
                source.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        Zmtp20PeerProcess peer = new Zmtp20PeerProcess(p);
        peer.call("socket " + type);
        return peer;
    }

    private void readLines(InputStream out) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(out, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                answers.add(line);
            }
        } catch (IOException ignored) {
            // process ended
        }
        answers.add("err peer process ended");
    }

    private String take(long timeoutMs) {
        try {
            String a = answers.poll(timeoutMs, TimeUnit.MILLISECONDS);
            if (a == null) {
                throw new AssertionError("ZMTP 2.0 peer did not answer within " + timeoutMs + " ms");
            }
            return a;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Sends a command; returns the words after "ok", throws on "err". */
    synchronized String call(String command) {
        return call(command, 10_000);
    }

    synchronized String call(String command, long answerTimeoutMs) {
        try {
            in.write(command);
            in.write('\n');
            in.flush();
        } catch (IOException e) {
            throw new AssertionError("ZMTP 2.0 peer is gone", e);
        }
        String a = take(answerTimeoutMs);
        if (a.equals("ok")) {
            return "";
        }
        if (a.startsWith("ok ")) {
            return a.substring(3);
        }
        throw new AssertionError("ZMTP 2.0 peer refused '" + command + "': " + a);
    }

    String bind(String endpoint) {
        return call("bind " + endpoint);
    }

    void connect(String endpoint) {
        call("connect " + endpoint);
    }

    void subscribe(String prefix) {
        call("subscribe " + (prefix.isEmpty() ? "-" : HEX.formatHex(prefix.getBytes(StandardCharsets.UTF_8))));
    }

    void send(String... frames) {
        StringBuilder sb = new StringBuilder("send");
        for (String f : frames) {
            sb.append(' ').append(f.isEmpty() ? "-" : HEX.formatHex(f.getBytes(StandardCharsets.UTF_8)));
        }
        call(sb.toString());
    }

    /** One message as strings, or null when none arrives within {@code timeoutMs}. */
    List<String> recv(long timeoutMs) {
        String a;
        try {
            a = call("recv " + timeoutMs, timeoutMs + 10_000);
        } catch (AssertionError e) {
            if (String.valueOf(e.getMessage()).endsWith("err timeout")) {
                return null;
            }
            throw e;
        }
        List<String> frames = new ArrayList<>();
        for (String w : a.split(" ")) {
            frames.add(w.equals("-") ? "" : new String(HEX.parseHex(w), StandardCharsets.UTF_8));
        }
        return frames;
    }

    @Override
    public void close() {
        try {
            in.write("quit\n");
            in.flush();
        } catch (IOException ignored) {
            // already gone
        }
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
