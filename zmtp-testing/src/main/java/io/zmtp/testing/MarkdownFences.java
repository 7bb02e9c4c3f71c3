package io.zmtp.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The fenced blocks of the project's Markdown, for the tests that check the docs against the
 * code: the Java snippets (examples) and the shell commands (interop-tests).
 */
public final class MarkdownFences {
    private MarkdownFences() {
    }

    /**
     * A fenced block: where it opens ({@code docs/limits.md:37}), its info string ({@code java},
     * {@code sh}, empty), the marker comment on the line before it (or null) and its lines.
     */
    public record Fence(String where, String info, String marker, List<String> lines) {
        @Override
        public String toString() {
            return where;
        }
    }

    /** README.md and every Markdown file under docs/, of the project at {@code root}. */
    public static List<Path> docs(Path root) {
        List<Path> l = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> s = Files.walk(root.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(l::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return l;
    }

    /**
     * The fenced blocks of {@code file} (named relative to {@code root}); a block's marker is the
     * line before it when that line matches {@code marker}.
     */
    public static List<Fence> fences(Path root, Path file, Pattern marker) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<Fence> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i).strip();
            if (!l.startsWith("```")) {
                continue;
            }
            String before = i > 0 ? lines.get(i - 1).strip() : "";
            int end = i + 1;
            while (end < lines.size() && !lines.get(end).strip().startsWith("```")) {
                end++;
            }
            out.add(new Fence(root.relativize(file) + ":" + (i + 1), l.substring(3).strip(),
                    marker.matcher(before).matches() ? before : null, List.copyOf(lines.subList(i + 1, end))));
            i = end;
        }
        return out;
    }
}
