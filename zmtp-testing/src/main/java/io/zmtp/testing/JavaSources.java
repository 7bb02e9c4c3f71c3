package io.zmtp.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A module's Java sources as the source tests read them: code with its comments and string
 * literals blanked, the packages and classes it refers to, and the loops among a package's
 * classes. For the tests that keep the layers one way ({@code PackageDependencyTest}) and the
 * hubs' seams narrow ({@code CodecSeamsTest}, {@code SocketSeamsTest}).
 */
public final class JavaSources {
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern REFERENCE = Pattern.compile("\\bio\\.zmtp\\.(\\w+)\\b");
    private static final Pattern WORD = Pattern.compile("\\b[A-Z]\\w*\\b");

    private JavaSources() {
    }

    /** Every .java file under {@code root}, sorted. */
    public static List<Path> files(Path root) {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The classes of one package directory by name (one top-level class a file), their code blanked. */
    public static Map<String, String> classes(Path dir) {
        Map<String, String> sources = new TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.filter(f -> f.toString().endsWith(".java")).toList()) {
                String name = p.getFileName().toString().replace(".java", "");
                if (!name.equals("package-info")) {
                    sources.put(name, stripCommentsAndStrings(read(p)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sources;
    }

    /** The {@code io.zmtp.*} packages the code refers to, comments and string literals left out. */
    public static Set<String> referencedPackages(String source) {
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

    public static String packageOf(String source) {
        Matcher m = PACKAGE.matcher(stripCommentsAndStrings(source));
        return m.find() ? m.group(1) : "";
    }

    /** Whether {@code code} (comments and strings blanked) uses the word {@code name}. */
    public static boolean mentions(String code, String name) {
        return Pattern.compile("\\b" + Pattern.quote(name) + "\\b").matcher(code).find();
    }

    /**
     * Each class of a package (from {@link #classes}) to the package's other classes it names: a
     * class in the same package needs no import, so its simple name is the reference.
     */
    public static Map<String, Set<String>> references(Map<String, String> classes) {
        Map<String, Set<String>> refs = new TreeMap<>();
        for (Map.Entry<String, String> e : classes.entrySet()) {
            Set<String> out = new TreeSet<>();
            Matcher m = WORD.matcher(e.getValue());
            while (m.find()) {
                if (classes.containsKey(m.group()) && !m.group().equals(e.getKey())) {
                    out.add(m.group());
                }
            }
            refs.put(e.getKey(), out);
        }
        return refs;
    }

    /**
     * The loops left among the classes of {@code dir} once the references {@code allowedUp}
     * ("A -> B", each an upward reference kept on purpose) are taken out: empty for a package that
     * is layered but for those. An allowed reference the code no longer has is an error, so the
     * list cannot outlive the reason for it.
     */
    public static List<List<String>> loopsBut(Path dir, Set<String> allowedUp) {
        Map<String, Set<String>> refs = references(classes(dir));
        for (String allowed : allowedUp) {
            String[] ends = allowed.split(" -> ");
            Set<String> from = refs.get(ends[0]);
            if (from == null || !from.remove(ends[1])) {
                throw new AssertionError(allowed + " is allowed to point up in " + dir
                        + " but is no reference any more: take it off the list");
            }
        }
        return loops(refs);
    }

    /**
     * The loops among classes: each strongly connected component of more than one class, sorted;
     * a layered package has none.
     */
    public static List<List<String>> loops(Map<String, Set<String>> refs) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new HashSet<>();
        List<List<String>> found = new ArrayList<>();
        for (String v : refs.keySet()) {
            if (!index.containsKey(v)) {
                connect(v, refs, index, low, stack, onStack, found);
            }
        }
        return found;
    }

    private static void connect(String v, Map<String, Set<String>> refs, Map<String, Integer> index,
                                Map<String, Integer> low, Deque<String> stack, Set<String> onStack,
                                List<List<String>> found) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        onStack.add(v);
        for (String w : refs.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(w, refs, index, low, stack, onStack, found);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            TreeSet<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                found.add(new ArrayList<>(component));
            }
        }
    }

    /** The source with comments, string and character literals blanked (a small lexer, enough for this). */
    public static String stripCommentsAndStrings(String s) {
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
}
