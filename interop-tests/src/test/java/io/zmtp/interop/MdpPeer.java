package io.zmtp.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Majordomo peer written with real libzmq (python3-zmq): {@code peers/mdp_broker.py},
 * {@code mdp_worker.py} or {@code mdp_client.py}, run as a process whose output lines the test
 * reads. The scripts are copied with their shared module into one temporary folder.
 */
final class MdpPeer implements AutoCloseable {
    private static final String[] SCRIPTS = {"mdp_common.py", "mdp_broker.py", "mdp_worker.py", "mdp_client.py",
            "tsp_client.py", "tsp_server.py"};
    private static Path folder;

    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Thread reader;

    private MdpPeer(Process process) {
        this.process = process;
        this.reader = new Thread(this::read, "mdp-peer-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code script} (e.g. "mdp_worker.py") with its arguments. */
    static MdpPeer start(String script, String... args) {
        try {
            List<String> cmd = new ArrayList<>();
            cmd.add(LibzmqPeer.PYTHON);
            cmd.add("-u");
            cmd.add(folder().resolve(script).toString());
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd).directory(folder().toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            return new MdpPeer(p);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + script + " (is python3-zmq installed? "
                    + "scripts/install-test-deps.sh installs it)", e);
        }
    }

    private static synchronized Path folder() throws IOException {
        if (folder == null) {
            Path dir = Files.createTempDirectory("mdp-peers");
            dir.toFile().deleteOnExit();
            for (String s : SCRIPTS) {
                try (InputStream in = MdpPeer.class.getResourceAsStream("/peers/" + s)) {
                    if (in == null) {
                        throw new IOException("no resource peers/" + s);
                    }
                    Path f = dir.resolve(s);
                    Files.copy(in, f, StandardCopyOption.REPLACE_EXISTING);
                    f.toFile().deleteOnExit();
                }
            }
            folder = dir;
        }
        return folder;
    }

    private void read() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
            }
        } catch (IOException ignored) {
            // the process ended
        }
    }

    /** Every line printed so far. */
    List<String> lines() {
        return new ArrayList<>(lines);
    }

    /** Waits for a line matching {@code regex} and returns its match. */
    Matcher await(String regex, long timeoutMs) {
        Pattern p = Pattern.compile(regex);
        long deadline = System.currentTimeMillis() + timeoutMs;
        int seen = 0;
        while (true) {
            List<String> now = lines();
            for (; seen < now.size(); seen++) {
                Matcher m = p.matcher(now.get(seen));
                if (m.find()) {
                    return m;
                }
            }
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("no line matching '" + regex + "' within " + timeoutMs + " ms; got " + now);
            }
            if (!process.isAlive() && seen == lines.size()) {
                throw new AssertionError("the peer ended (" + process.exitValue() + ") before '" + regex + "'; got " + now);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    /** How many lines match {@code regex} so far. */
    long count(String regex) {
        Pattern p = Pattern.compile(regex);
        return lines().stream().filter(l -> p.matcher(l).find()).count();
    }

    /** Waits for the process to end and returns its exit status (all output read). */
    int waitFor(long timeoutMs) {
        try {
            if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the peer did not end within " + timeoutMs + " ms; output " + lines());
            }
            reader.join(timeoutMs);
            return process.exitValue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Kills the process at once, as a crash. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
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
}
