package io.zmtp.interop;

import io.zmtp.testing.MarkdownFences;
import io.zmtp.testing.MarkdownFences.Fence;

import io.zmtp.testing.FreePorts;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every shell command that README.md and docs/ give is run, so a doc cannot give a command that
 * fails. A {@code ```sh} block is preceded by one of:
 * <ul>
 * <li>{@code <!-- run -->}: the block runs as a bash script ({@code set -euo pipefail}) and must
 *     exit 0; what it started in the background is stopped at its end;</li>
 * <li>{@code <!-- run: until TEXT -->}: the block runs until its output (stdout and stderr)
 *     has a line containing TEXT (it is serving), then it is stopped;</li>
 * <li>{@code <!-- run: skip REASON -->}: not run here; REASON says which test or script of the
 *     suite runs it instead.</li>
 * </ul>
 * In a block, {@code zmtp} is the launcher {@code zmtp-cli/target/zmtp} on the PATH, as the docs say, the
 * working directory is a fresh one that sees the checkout's top-level entries (files a command
 * writes stay out of the checkout), and every tcp port from 5000 to 5999 written as
 * {@code :PORT} is replaced by a free one (the same one throughout the block). Every other fenced
 * block says what it is ({@code ```text} for output, {@code ```java} for a snippet, and so on),
 * and no command is left in an unfenced, indented block.
 */
class DocCommandsTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Pattern RUN = Pattern.compile("<!-- run(?:: (until|skip) (.+?))? -->");
    static final Pattern PORT = Pattern.compile(":(5\\d{3})\\b");
    static final long DEADLINE_S = 120;

    @TempDir
    static Path work;

    static List<Path> docs() {
        return MarkdownFences.docs(ROOT);
    }

    static List<Fence> fences(Path file) throws IOException {
        return MarkdownFences.fences(ROOT, file, RUN);
    }

    @Test
    void everyFencedBlockSaysWhatItIsAndNoCommandIsLeftUnfenced() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path doc : docs()) {
            for (Fence f : fences(doc)) {
                if (f.info().isEmpty()) {
                    problems.add(f + ": say what the block is (```sh for commands, ```text for output)");
                } else if (f.info().equals("sh") && f.marker() == null) {
                    problems.add(f + ": a ```sh block needs <!-- run -->, <!-- run: until TEXT --> or"
                            + " <!-- run: skip REASON --> on the line before it");
                }
            }
            List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
            boolean inFence = false;
            for (int i = 0; i < lines.size(); i++) {
                String l = lines.get(i);
                if (l.strip().startsWith("```")) {
                    inFence = !inFence;
                } else if (!inFence && l.startsWith("    ") && l.strip().matches(
                        "(zmtp|java|mvn|scripts/|benchmarks/|bash|printf|echo|\\$ ).*")) {
                    problems.add(ROOT.relativize(doc) + ":" + (i + 1) + ": a command in an indented block: put it in a"
                            + " ```sh block");
                }
            }
        }
        assertEquals(List.of(), problems);
    }

    @TestFactory
    Stream<DynamicTest> everyShellBlockRuns() throws IOException {
        for (Path top : Files.list(ROOT).toList()) {
            Path link = work.resolve(top.getFileName());
            if (!Files.exists(link)) {
                Files.createSymbolicLink(link, top);
            }
        }
        List<Fence> blocks = new ArrayList<>();
        for (Path doc : docs()) {
            fences(doc).stream().filter(f -> f.info().equals("sh") && f.marker() != null).forEach(blocks::add);
        }
        assertFalse(blocks.isEmpty(), "the docs give commands");
        return blocks.stream().map(b -> DynamicTest.dynamicTest(b.toString(), () -> run(b)));
    }

    static void run(Fence b) throws Exception {
        Matcher m = RUN.matcher(b.marker());
        assertTrue(m.matches());
        String mode = m.group(1);
        if ("skip".equals(mode)) {
            assertFalse(m.group(2).isBlank(), b + ": say which test or script runs it");
            return;
        }
        Map<String, String> ports = new HashMap<>();
        StringBuilder script = new StringBuilder("set -euo pipefail\n")
                // the launcher beside zmtp.jar on the PATH, as README.md tells users to put it
                .append("export PATH=\"").append(ROOT.resolve("zmtp-cli/target")).append(":$PATH\"\n");
        for (String line : b.lines()) {
            Matcher p = PORT.matcher(line);
            StringBuilder sb = new StringBuilder();
            while (p.find()) {
                String free = ports.computeIfAbsent(p.group(1), x -> Integer.toString(FreePorts.next()));
                p.appendReplacement(sb, ":" + free);
            }
            p.appendTail(sb);
            script.append(sb).append('\n');
        }
        // setsid: the block is a process group of its own, so what it leaves in the background is
        // stopped with it (a background job outlives bash, and is no longer its descendant then)
        Process process = new ProcessBuilder("setsid", "bash", "-c", script.toString()).directory(work.toFile())
                .redirectErrorStream(true).start();
        List<String> output = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String l;
                while ((l = r.readLine()) != null) {
                    output.add(l);
                }
            } catch (IOException ended) {
                // the process ended
            }
        }, "doc-commands");
        reader.setDaemon(true);
        reader.start();
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
            if ("until".equals(mode)) {
                String text = m.group(2);
                while (output.stream().noneMatch(l -> l.contains(text))) {
                    if (!process.isAlive() && !reader.isAlive()) {
                        fail(b + " ended (status " + process.exitValue() + ") before printing '" + text + "': "
                                + String.join("\n", output));
                    }
                    if (System.nanoTime() - end > 0) {
                        fail(b + " printed no '" + text + "' within " + DEADLINE_S + " s: " + String.join("\n", output));
                    }
                    Thread.sleep(20);
                }
            } else {
                if (!process.waitFor(DEADLINE_S, TimeUnit.SECONDS)) {
                    fail(b + " still running after " + DEADLINE_S + " s: " + String.join("\n", output));
                }
                reader.join(5000);
                assertEquals(0, process.exitValue(), () -> b + " failed:\n" + String.join("\n", output));
            }
        } finally {
            signalGroup(process.pid(), "TERM");
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            signalGroup(process.pid(), "KILL");
        }
    }

    /** Sends a signal to every process of the group {@code pgid} (those gone already are fine). */
    static void signalGroup(long pgid, String signal) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + signal, "--", "-" + pgid).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(5, TimeUnit.SECONDS);
    }
}
