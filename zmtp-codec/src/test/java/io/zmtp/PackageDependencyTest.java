package io.zmtp;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The library's packages depend one way: {@code io.zmtp.wire} (the codec and the mechanism SPI
 * beside it) on none of the others; {@code io.zmtp.security} (PLAIN, CURVE, keys,
 * authenticators) on the wire only; {@code io.zmtp.transport} on neither the socket layer nor
 * security; {@code io.zmtp.socket} on all of them. Checked on the sources: every reference to
 * an {@code io.zmtp.*} package in code (imports and qualified names; comments and string
 * literals do not count) is compared with what its package may use. And no class is bound by
 * its name at run time (reflection), which neither the compiler nor this check could see: socket
 * types, for one, are bound by a switch the compiler checks ({@code SocketTypes}).
 */
class PackageDependencyTest {
    private static final Path SOURCES = Path.of("src", "main", "java");

    /** What each package may not refer to. */
    private static final Map<String, Set<String>> FORBIDDEN = Map.of(
            "io.zmtp.wire", Set.of("io.zmtp.security", "io.zmtp.socket", "io.zmtp.transport"),
            "io.zmtp.security", Set.of("io.zmtp.socket", "io.zmtp.transport"),
            "io.zmtp.transport", Set.of("io.zmtp.socket", "io.zmtp.security"));

    /** Ways to reach a class by its name at run time. */
    private static final Pattern REFLECTION = Pattern.compile(
            "\\bClass\\s*\\.\\s*forName\\b|\\bfind(Constructor|Virtual|Static)\\b|\\bgetDeclaredConstructors?\\b"
                    + "|\\bloadClass\\b");
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern REFERENCE = Pattern.compile("\\bio\\.zmtp\\.(\\w+)\\b");

    @Test
    void dependenciesPointOneWay() {
        assertTrue(Files.isDirectory(SOURCES), "run from the zmtp-codec module: no " + SOURCES.toAbsolutePath());
        List<String> violations = new ArrayList<>();
        TreeSet<String> checked = new TreeSet<>();
        for (Path file : javaFiles()) {
            String source = read(file);
            String pkg = packageOf(source);
            Set<String> forbidden = FORBIDDEN.get(pkg);
            if (forbidden == null) {
                continue;
            }
            checked.add(pkg);
            for (String used : referencedPackages(source)) {
                if (forbidden.contains(used)) {
                    violations.add(SOURCES.relativize(file) + " (" + pkg + ") refers to " + used);
                }
            }
        }
        assertEquals(FORBIDDEN.keySet(), checked, "every package with a rule has sources");
        assertEquals(List.of(), violations, "dependencies against the package direction");
    }

    @Test
    void noClassIsBoundByName() {
        List<String> found = new ArrayList<>();
        for (Path file : javaFiles()) {
            Matcher m = REFLECTION.matcher(stripCommentsAndStrings(read(file)));
            while (m.find()) {
                found.add(SOURCES.relativize(file) + ": " + m.group());
            }
        }
        assertEquals(List.of(), found, "classes bound by name at run time");
    }

    @Test
    void theCheckSeesImportsAndQualifiedNamesButNotComments() {
        String source = "package io.zmtp.wire;\n"
                + "import io.zmtp.security.PlainMechanism; // io.zmtp.transport in a comment\n"
                + "/** {@link io.zmtp.socket.ZmtpSocket} in javadoc */\n"
                + "class X { Object o = new io.zmtp.socket.Pipe(); String s = \"io.zmtp.transport\"; }\n";
        assertEquals("io.zmtp.wire", packageOf(source));
        assertEquals(Set.of("io.zmtp.security", "io.zmtp.socket"), referencedPackages(source));
    }

    /** The {@code io.zmtp.*} packages the code refers to, comments and string literals left out. */
    static Set<String> referencedPackages(String source) {
        String code = stripCommentsAndStrings(source);
        Matcher m = PACKAGE.matcher(code);
        int from = m.find() ? m.end() : 0;
        TreeSet<String> used = new TreeSet<>();
        Matcher r = REFERENCE.matcher(code);
        r.region(from, code.length());
        while (r.find()) {
            used.add("io.zmtp." + r.group(1));
        }
        return used;
    }

    static String packageOf(String source) {
        Matcher m = PACKAGE.matcher(stripCommentsAndStrings(source));
        return m.find() ? m.group(1) : "";
    }

    /** The source with comments, string and character literals blanked (a small lexer, enough for this). */
    static String stripCommentsAndStrings(String s) {
        StringBuilder out = new StringBuilder(s.length());
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (c == '/' && i + 1 < n && s.charAt(i + 1) == '/') {
                while (i < n && s.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
                int end = s.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
                out.append(' ');
            } else if (s.startsWith("\"\"\"", i)) {
                int end = s.indexOf("\"\"\"", i + 3);
                i = end < 0 ? n : end + 3;
                out.append("\"\"");
            } else if (c == '"' || c == '\'') {
                i++;
                while (i < n && s.charAt(i) != c) {
                    i += s.charAt(i) == '\\' ? 2 : 1;
                }
                i++;
                out.append(c).append(c);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    private static List<Path> javaFiles() {
        try (Stream<Path> s = Files.walk(SOURCES)) {
            return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
