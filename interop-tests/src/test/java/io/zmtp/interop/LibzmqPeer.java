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
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Real libzmq sockets in a separate process: Debian's libzmq5 driven through python3-zmq
 * (/usr/bin/python3, not a pyenv interpreter) by {@code peers/libzmq_peer.py}, one command per
 * line. Every call waits for its answer with a deadline.
 */
public final class LibzmqPeer implements AutoCloseable {
    public static final String PYTHON = "/usr/bin/python3";
    private static final HexFormat HEX = HexFormat.of();

    private final Process process;
    private final Writer in;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final String version;

    private LibzmqPeer(Process process) throws IOException {
        this.process = process;
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> readLines(process.getInputStream()), "libzmq-peer-stdout");
        reader.setDaemon(true);
        reader.start();
        String hello = take(20_000);
        if (!hello.startsWith("ok ready")) {
            throw new IOException("libzmq peer did not start: " + hello);
        }
        version = hello.substring("ok ready ".length());
    }

    /** Starts a peer process. */
    public static LibzmqPeer start() {
        try {
            Path script = script("libzmq_peer.py");
            Process p = new ProcessBuilder(PYTHON, "-u", script.toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            return new LibzmqPeer(p);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the libzmq peer (is python3-zmq installed? "
                    + "scripts/install-test-deps.sh installs it)", e);
        }
    }

    /** Copies a script from the test resources' {@code peers/} folder to a temporary file. */
    public static Path script(String name) throws IOException {
        try (InputStream s = LibzmqPeer.class.getResourceAsStream("/peers/" + name)) {
            if (s == null) {
                throw new IOException("no resource peers/" + name);
            }
            Path f = Files.createTempFile(name.replace(".py", "-"), ".py");
            f.toFile().deleteOnExit();
            Files.copy(s, f, StandardCopyOption.REPLACE_EXISTING);
            return f;
        }
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
                throw new AssertionError("libzmq peer did not answer within " + timeoutMs + " ms");
            }
            return a;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** The libzmq version the peer runs. */
    public String version() {
        return version;
    }

    /** Sends one command and returns the words after "ok"; an "err" answer throws. */
    public synchronized String call(String command, long answerTimeoutMs) {
        try {
            in.write(command);
            in.write('\n');
            in.flush();
        } catch (IOException e) {
            throw new AssertionError("libzmq peer is gone", e);
        }
        String a = take(answerTimeoutMs);
        if (a.startsWith("ok")) {
            return a.length() > 3 ? a.substring(3) : "";
        }
        throw new LibzmqError(command, a);
    }

    public String call(String command) {
        return call(command, 10_000);
    }

    public LibzmqPeer socket(String id, String type) {
        call("socket " + id + " " + type);
        return this;
    }

    public LibzmqPeer opt(String id, String name, long value) {
        call("opt " + id + " " + name + " " + value);
        return this;
    }

    public LibzmqPeer opt(String id, String name, byte[] value) {
        call("opt " + id + " " + name + " hex:" + HEX.formatHex(value));
        return this;
    }

    /** Sets a text option (a Z85 key, a PLAIN user name...). */
    public LibzmqPeer optText(String id, String name, String value) {
        call("opt " + id + " " + name + " str:" + value);
        return this;
    }

    /** Binds and returns the endpoint libzmq reports (the resolved port for tcp://...:*). */
    public String bind(String id, String endpoint) {
        return call("bind " + id + " " + endpoint);
    }

    public LibzmqPeer connect(String id, String endpoint) {
        call("connect " + id + " " + endpoint);
        return this;
    }

    public LibzmqPeer send(String id, byte[]... frames) {
        StringBuilder sb = new StringBuilder("send ").append(id);
        for (byte[] f : frames) {
            sb.append(' ').append(f.length == 0 ? "-" : HEX.formatHex(f));
        }
        call(sb.toString());
        return this;
    }

    public LibzmqPeer sendStrings(String id, String... frames) {
        byte[][] b = new byte[frames.length][];
        for (int i = 0; i < frames.length; i++) {
            b[i] = frames[i].getBytes(StandardCharsets.UTF_8);
        }
        return send(id, b);
    }

    /** Receives one message, or returns null when none arrives within the timeout. */
    public List<byte[]> recv(String id, long timeoutMs) {
        try {
            String a = call("recv " + id + " " + timeoutMs, timeoutMs + 10_000);
            List<byte[]> frames = new ArrayList<>();
            for (String w : a.isEmpty() ? new String[0] : a.split(" ")) {
                frames.add(w.equals("-") ? new byte[0] : HEX.parseHex(w));
            }
            return frames;
        } catch (LibzmqError e) {
            if (e.answer.equals("err timeout")) {
                return null;
            }
            throw e;
        }
    }

    /** Receives one message as UTF-8 strings; fails the test when none arrives in time. */
    public List<String> recvStrings(String id, long timeoutMs) {
        List<byte[]> frames = recv(id, timeoutMs);
        if (frames == null) {
            throw new AssertionError("libzmq " + id + " received nothing within " + timeoutMs + " ms");
        }
        List<String> s = new ArrayList<>();
        for (byte[] f : frames) {
            s.add(new String(f, StandardCharsets.UTF_8));
        }
        return s;
    }

    public LibzmqPeer subscribe(String id, byte[] prefix) {
        call("subscribe " + id + " " + (prefix.length == 0 ? "-" : HEX.formatHex(prefix)));
        return this;
    }

    public LibzmqPeer unsubscribe(String id, byte[] prefix) {
        call("unsubscribe " + id + " " + (prefix.length == 0 ? "-" : HEX.formatHex(prefix)));
        return this;
    }

    /**
     * Echoes in the background: the peer sends every message the socket receives back unchanged
     * until {@link #unserve}; meanwhile the socket takes no other command.
     */
    public LibzmqPeer serve(String id) {
        call("serve " + id);
        return this;
    }

    /** Stops {@link #serve} and returns how many messages were echoed. */
    public int unserve(String id) {
        return Integer.parseInt(call("unserve " + id, 20_000));
    }

    /** The port of a tcp endpoint as libzmq or we report it ("tcp://127.0.0.1:5555"). */
    public static int port(String endpoint) {
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    /** Whether the peer process is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Starts recording the socket's monitor events. */
    public LibzmqPeer monitor(String id) {
        call("monitor " + id);
        return this;
    }

    /** Names of the monitor events seen so far (CONNECTED, HANDSHAKE_SUCCEEDED, DISCONNECTED...). */
    public List<String> events(String id) {
        String a = call("events " + id);
        return a.isEmpty() ? List.of() : Arrays.asList(a.split(" "));
    }

    /** Starts the peer's ZAP handler: from then on it refuses PLAIN and CURVE clients it was not told about. */
    public LibzmqPeer zapStart() {
        call("zap start");
        return this;
    }

    /** Lets the ZAP handler accept a PLAIN user (user id = user name). */
    public LibzmqPeer zapAllowPlain(String user, String password) {
        call("zap plain " + user + " " + password);
        return this;
    }

    /** Lets the ZAP handler accept a CURVE client key (Z85). */
    public LibzmqPeer zapAllowCurve(String publicKeyZ85) {
        call("zap curve " + publicKeyZ85);
        return this;
    }

    /** The ZAP handler's answers so far, as MECHANISM:STATUS. */
    public List<String> zapLog() {
        String a = call("zap log");
        return a.isEmpty() ? List.of() : Arrays.asList(a.split(" "));
    }

    /** Waits until the socket's monitor has reported {@code event}; false after the timeout. */
    public boolean awaitEvent(String id, String event, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!events(id).contains(event)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    /** A CURVE key pair from zmq_curve_keypair: {public, secret} in Z85. */
    public String[] curveKeypair() {
        return call("keypair").split(" ");
    }

    public LibzmqPeer close(String id) {
        call("close " + id);
        return this;
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

    /** Kills the process at once, as a crash would. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** An "err" answer from the peer. */
    public static final class LibzmqError extends AssertionError {
        private static final long serialVersionUID = 1L;
        public final String answer;

        LibzmqError(String command, String answer) {
            super("libzmq peer refused '" + command + "': " + answer);
            this.answer = answer;
        }
    }
}
