package io.zmtp.examples;

import io.zmtp.testing.MarkdownFences;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every relative link of README.md, docs/ and benchmarks/RESULTS.md leads somewhere: the file it
 * names exists, and the heading it names ({@code file.md#anchor}, or {@code #anchor} within the
 * page) is one of that Markdown file's headings, as GitHub derives anchors from them. Links to
 * the web are not followed; links inside fenced blocks are not links.
 */
class DocLinksTest {
    private static final Path ROOT = DocSnippetsTest.ROOT;
    /** {@code [text](target)}, the target without spaces (a title after it is not used here). */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    private final Map<Path, Set<String>> anchors = new HashMap<>();

    @Test
    void everyRelativeLinkLeadsToAFileAndHeading() throws IOException {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        List<Path> docs = new ArrayList<>(MarkdownFences.docs(ROOT));
        docs.add(ROOT.resolve("benchmarks/RESULTS.md"));
        for (Path doc : docs) {
            for (String target : links(doc)) {
                if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
                    continue; // https:, mailto: ...
                }
                checked++;
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path to = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
                String where = ROOT.relativize(doc) + ": " + target;
                if (!Files.exists(to)) {
                    broken.add(where + " (no such file)");
                } else if (hash >= 0 && to.toString().endsWith(".md")
                        && !anchorsOf(to).contains(target.substring(hash + 1))) {
                    broken.add(where + " (no such heading)");
                }
            }
        }
        assertTrue(checked > 50, "links found: " + checked);
        assertEquals(List.of(), broken, "broken links");
    }

    @Test
    void anchorsAreGitHubs() {
        assertEquals("the-reqrep-tail-three-spinning-threads-on-two-cores-2026-11-27",
                anchor("The REQ/REP tail: three spinning threads on two cores (2026-11-27)"));
        assertEquals("zmtp-netty-vs-jeromq-060", anchor("`zmtp-netty` vs JeroMQ 0.6.0"));
        assertEquals("ws-against-tcp", anchor("ws:// against tcp://"));
    }

    /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces made hyphens. */
    static String anchor(String heading) {
        String s = heading.strip().toLowerCase(Locale.ROOT);
        s = s.replaceAll("[^\\p{L}\\p{N} _-]", "");
        return s.replace(' ', '-');
    }

    /** The link targets of {@code doc}, outside fenced blocks. */
    private static List<String> links(Path doc) throws IOException {
        List<String> out = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(doc, StandardCharsets.UTF_8)) {
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (!fenced) {
                Matcher m = LINK.matcher(line);
                while (m.find()) {
                    out.add(m.group(1));
                }
            }
        }
        return out;
    }

    /** The anchors of a Markdown file's headings; a repeated one gets -1, -2... as on GitHub. */
    private Set<String> anchorsOf(Path md) {
        return anchors.computeIfAbsent(md, p -> {
            Set<String> found = new HashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            boolean fenced = false;
            try {
                for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) {
                    if (line.strip().startsWith("```")) {
                        fenced = !fenced;
                        continue;
                    }
                    Matcher m = HEADING.matcher(line);
                    if (!fenced && m.matches()) {
                        String a = anchor(m.group(1));
                        int n = seen.merge(a, 1, Integer::sum);
                        found.add(n == 1 ? a : a + "-" + (n - 1));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return found;
        });
    }
}
