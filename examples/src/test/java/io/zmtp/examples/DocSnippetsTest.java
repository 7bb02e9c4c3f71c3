package io.zmtp.examples;

import io.zmtp.testing.MarkdownFences;
import io.zmtp.testing.MarkdownFences.Fence;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every Java snippet of README.md and docs/ is a region of a source file of
 * {@code io.zmtp.examples.docs}, compiled with this module and run by this test, so a doc cannot
 * drift from the API. In the Markdown, a {@code ```java} block is preceded by the line
 * {@code <!-- snippet: ClassName#region -->}; in {@code ClassName.java} the region lies between
 * {@code // tag::region[]} and {@code // end::region[]}, and the block is exactly those lines
 * with their common indentation removed. Each class of the package has a {@code main} that runs
 * its snippets (quickly, on ephemeral ports, releasing what it takes).
 */
class DocSnippetsTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path SOURCES = ROOT.resolve("examples/src/main/java/io/zmtp/examples/docs");
    static final Pattern MARKER = Pattern.compile("<!-- snippet: (\\w+)#([\\w-]+) -->");

    /** The ```java blocks of README.md and docs/. */
    static List<Fence> javaBlocks() throws IOException {
        List<Fence> blocks = new ArrayList<>();
        for (Path doc : MarkdownFences.docs(ROOT)) {
            MarkdownFences.fences(ROOT, doc, MARKER).stream().filter(f -> f.info().equals("java")).forEach(blocks::add);
        }
        return blocks;
    }

    /** The lines of region {@code region} of {@code docs/ClassName.java}, common indentation removed. */
    static List<String> region(String className, String region) throws IOException {
        Path source = SOURCES.resolve(className + ".java");
        assertTrue(Files.isRegularFile(source), source + " exists");
        List<String> all = Files.readAllLines(source, StandardCharsets.UTF_8);
        int from = -1;
        int to = -1;
        for (int i = 0; i < all.size(); i++) {
            String l = all.get(i).strip();
            if (l.equals("// tag::" + region + "[]")) {
                from = i + 1;
            } else if (l.equals("// end::" + region + "[]") && from >= 0) {
                to = i;
                break;
            }
        }
        assertTrue(from >= 0 && to >= from, "region " + region + " in " + source);
        List<String> lines = all.subList(from, to);
        int indent = lines.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        List<String> out = new ArrayList<>();
        for (String l : lines) {
            out.add(l.isBlank() ? "" : l.substring(indent).stripTrailing());
        }
        return out;
    }

    @TestFactory
    Stream<DynamicTest> everyJavaBlockIsARegionOfACompiledSource() throws IOException {
        List<Fence> all = javaBlocks();
        assertFalse(all.isEmpty(), "the docs have Java snippets");
        return all.stream().map(b -> DynamicTest.dynamicTest(b.toString(), () -> {
            if (b.marker() == null) {
                fail(b + ": a ```java block needs '<!-- snippet: ClassName#region -->' on the line before it");
            }
            Matcher m = MARKER.matcher(b.marker());
            assertTrue(m.matches());
            List<String> shown = b.lines().stream().map(String::stripTrailing).toList();
            assertEquals(String.join("\n", region(m.group(1), m.group(2))), String.join("\n", shown),
                    b + " shows the region " + m.group(2) + " of " + m.group(1) + ".java as it is");
        }));
    }

    /** Each snippet class of io.zmtp.examples.docs runs to its end (its main), within a deadline. */
    @TestFactory
    Stream<DynamicTest> everySnippetSourceRuns() throws IOException {
        List<String> classes = new ArrayList<>();
        try (Stream<Path> s = Files.list(SOURCES)) {
            s.filter(p -> p.toString().endsWith(".java")).sorted()
                    .forEach(p -> classes.add(p.getFileName().toString().replace(".java", "")));
        }
        assertFalse(classes.isEmpty(), "snippet sources in " + SOURCES);
        return classes.stream().map(c -> DynamicTest.dynamicTest(c, () -> {
            Method main = Class.forName("io.zmtp.examples.docs." + c).getMethod("main", String[].class);
            CompletableFuture<Void> run = CompletableFuture.runAsync(() -> {
                try {
                    main.invoke(null, (Object) new String[0]);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e.getCause() != null ? e.getCause() : e);
                }
            });
            run.get(60, TimeUnit.SECONDS);
        }));
    }

    @Test
    void theMarkerNamesAnExistingRegion() throws IOException {
        // a marker whose block was removed would be an orphan: every marker precedes a ```java block
        for (Path doc : MarkdownFences.docs(ROOT)) {
            List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                if (MARKER.matcher(lines.get(i).strip()).matches()) {
                    assertTrue(i + 1 < lines.size() && lines.get(i + 1).strip().equals("```java"),
                            ROOT.relativize(doc) + ":" + (i + 1) + ": a snippet marker must precede a ```java block");
                }
            }
        }
    }
}
