package io.zmtp.examples;

import io.zmtp.testing.MarkdownFences;
import io.zmtp.testing.MarkdownFences.Fence;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A snippet compiles because it is a region of a larger class (see {@link DocSnippetsTest}), so it
 * could use a name defined outside the region that a reader never sees. The rule checked here: each
 * name a snippet uses is defined in that snippet (or imported by it, as a whole class shown), or given by its page once, in a snippet whose
 * region is named {@code imports} (the import lines of the class, shown as they are, and comment
 * lines {@code // in scope: Type name, Type name} for variables every snippet of the page may
 * use, such as the context). A name borrowed from another snippet of the page does not count: a
 * reader copies one snippet at a time.
 *
 * <p>Names are found by a small scanner, not a compiler: comments and literals are dropped, a
 * name after {@code .} or {@code ::} is a member (its owner is checked instead), a name is defined
 * where it follows a type ({@code Type name}, {@code List<T> name}, {@code void name(}), a
 * {@code class}, {@code record}, {@code interface} or {@code enum} keyword, or is a lambda
 * parameter. Type names of {@code java.lang} need no import. Constants in capitals are not
 * checked (enum constants stand alone after {@code case}), nor fully qualified names.
 */
class DocSnippetNamesTest {
    static final Pattern MARKER = DocSnippetsTest.MARKER;
    static final Pattern IN_SCOPE = Pattern.compile("//\\s*in scope:\\s*(.+)");
    static final Pattern IMPORT = Pattern.compile("import\\s+(static\\s+)?([\\w.]+)\\s*;");

    static final Set<String> KEYWORDS = Set.of("abstract", "assert", "boolean", "break", "byte", "case", "catch",
            "char", "class", "const", "continue", "default", "do", "double", "else", "enum", "extends", "final",
            "finally", "float", "for", "goto", "if", "implements", "import", "instanceof", "int", "interface", "long",
            "native", "new", "package", "private", "protected", "public", "return", "short", "static", "strictfp",
            "super", "switch", "synchronized", "this", "throw", "throws", "transient", "try", "void", "volatile",
            "while", "true", "false", "null", "var", "record", "yield", "sealed", "permits", "non-sealed");
    /** Keywords after which a name is used, not declared ({@code return x}, {@code new Foo}). */
    static final Set<String> USE_AFTER = Set.of("return", "new", "throw", "case", "else", "instanceof", "yield",
            "assert", "do", "extends", "implements", "throws", "import", "package", "super", "this", "permits",
            "final", "static", "public", "private", "protected", "abstract", "synchronized", "volatile", "transient",
            "default", "sealed");
    static final Set<String> PACKAGE_ROOTS = Set.of("java", "javax", "io", "org", "com", "net");

    @TestFactory
    Stream<DynamicTest> everyNameASnippetUsesIsDefinedInItOrGivenByItsPage() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path doc : MarkdownFences.docs(DocSnippetsTest.ROOT)) {
            String page = DocSnippetsTest.ROOT.relativize(doc).toString().replace('\\', '/');
            List<Fence> blocks = MarkdownFences.fences(DocSnippetsTest.ROOT, doc, MARKER).stream()
                    .filter(f -> f.info().equals("java") && f.marker() != null).toList();
            if (blocks.isEmpty()) {
                continue;
            }
            Set<String> given = new LinkedHashSet<>();
            List<Fence> snippets = new ArrayList<>();
            for (Fence b : blocks) {
                Matcher m = MARKER.matcher(b.marker());
                if (m.matches() && m.group(2).equals("imports")) {
                    given.addAll(givenNames(b.lines()));
                } else {
                    snippets.add(b);
                }
            }
            for (Fence b : snippets) {
                tests.add(DynamicTest.dynamicTest(b.toString(), () -> {
                    Set<String> undefined = undefinedNames(b.lines(), given);
                    if (!undefined.isEmpty()) {
                        fail(b + " uses " + undefined + ", neither defined in the snippet nor given by " + page
                                + " (a '<!-- snippet: Class#imports -->' block: its imports and '// in scope: Type name' lines)");
                    }
                }));
            }
        }
        assertFalse(tests.isEmpty(), "the docs have Java snippets");
        return tests.stream();
    }

    /**
     * The scanner's verdict, by a compiler: each page's snippets, put together with nothing but the
     * page's imports block (statements each in a block of their own inside
     * {@code try (ZmtpContext ctx = ...)}, methods and classes as members), compile as one class.
     */
    @TestFactory
    Stream<DynamicTest> eachPageCompilesFromItsOwnText(@TempDir Path out) throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path doc : MarkdownFences.docs(DocSnippetsTest.ROOT)) {
            String page = DocSnippetsTest.ROOT.relativize(doc).toString().replace('\\', '/');
            List<Fence> blocks = MarkdownFences.fences(DocSnippetsTest.ROOT, doc, MARKER).stream()
                    .filter(f -> f.info().equals("java") && f.marker() != null).toList();
            if (blocks.isEmpty()) {
                continue;
            }
            tests.add(DynamicTest.dynamicTest(page, () -> {
                StringBuilder imports = new StringBuilder();
                StringBuilder statements = new StringBuilder();
                StringBuilder members = new StringBuilder();
                for (Fence b : blocks) {
                    Matcher m = MARKER.matcher(b.marker());
                    String text = String.join("\n", b.lines()) + "\n";
                    if (m.matches() && m.group(2).equals("imports")) {
                        imports.append(text);
                    } else if (b.lines().stream().anyMatch(l -> l.startsWith("import "))) {
                        continue;                                // a whole compilation unit of its own
                    } else if (isMember(b.lines())) {
                        members.append(text).append("\n");
                    } else {
                        statements.append("{\n").append(text).append("}\n");
                    }
                }
                String unit = imports + "\nclass PageSnippets {\n"
                        + "static void run() throws Exception {\n"
                        + "try (ZmtpContext ctx = ZmtpContext.create()) {\n" + statements + "}\n}\n"
                        + members + "}\n";
                Path dir = Files.createDirectories(out.resolve(page.replace('/', '_')));
                Path source = dir.resolve("PageSnippets.java");
                Files.writeString(source, unit);
                JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
                StringWriter errors = new StringWriter();
                Boolean ok = javac.getTask(errors, null, null,
                        List.of("-d", dir.toString(), "-cp", System.getProperty("java.class.path"), "-proc:none"),
                        null, javac.getStandardFileManager(null, null, StandardCharsets.UTF_8)
                                .getJavaFileObjects(source.toFile())).call();
                assertTrue(ok, page + "'s snippets with its imports block alone do not compile:\n" + errors);
            }));
        }
        return tests.stream();
    }

    /** A snippet of methods or classes rather than statements. */
    static boolean isMember(List<String> lines) {
        for (String l : lines) {
            String t = l.strip();
            if (t.isEmpty() || t.startsWith("//") || t.startsWith("/**") || t.startsWith("*")) {
                continue;
            }
            return t.startsWith("static ") || t.startsWith("@Override") || t.startsWith("private ")
                    || t.startsWith("protected ") || t.startsWith("public ") || t.startsWith("final class ");
        }
        return false;
    }

    /** The examples (#47): names borrowed from the class or another snippet are caught. */
    @Test
    void borrowedNamesAreCaught() {
        Set<String> given = givenNames(List.of(
                "import io.zmtp.security.Authenticator;", "import io.zmtp.security.AuthResult;",
                "import io.zmtp.security.CurveCertificate;", "import io.zmtp.security.CurveKeyPair;",
                "import io.zmtp.security.CurveMechanism;", "import io.zmtp.socket.SocketOptions;",
                "import io.zmtp.socket.ZmtpContext;", "import java.util.Map;",
                "import java.util.concurrent.CompletableFuture;",
                "// in scope: ZmtpContext ctx"));
        assertEquals(Set.of("directoryThreads"), undefinedNames(List.of(
                "Map<String, String> directory = Map.of(\"admin\", \"secret\");",
                "Authenticator lookup = Authenticator.async(request -> CompletableFuture.supplyAsync(() ->",
                "        request.passwordString().equals(directory.get(request.username()))",
                "                ? AuthResult.allow(request.username()) // a comment naming nothing",
                "                : AuthResult.deny(\"400\", \"unknown user\"), directoryThreads));"), given));
        assertEquals(Set.of("dir"), undefinedNames(List.of(
                "CurveCertificate cert = CurveCertificate.generate();",
                "cert.write(dir.resolve(\"server.cert\"));"), given));
        assertEquals(Set.of("serverKeys", "Duration"), undefinedNames(List.of(
                "Authenticator any = request -> AuthResult.allow(\"\");",
                "SocketOptions server = SocketOptions.builder().mechanism(CurveMechanism.server(serverKeys, any))",
                "        .handshakeInterval(Duration.ofSeconds(1)).build();",
                "ctx.socket(null);"), given));
        assertEquals(Set.of("check"), undefinedNames(List.of(
                "for (CurveKeyPair k : List.of()) { check(k != null); }",
                "int[] counts = new int[2];", "var list = java.util.List.of(counts);"),
                givenNames(List.of("import java.util.List;", "import io.zmtp.security.CurveKeyPair;"))));
    }

    /** The imported simple names and the {@code // in scope:} variables of an imports block. */
    static Set<String> givenNames(List<String> lines) {
        Set<String> names = new LinkedHashSet<>();
        for (String line : lines) {
            Matcher imp = IMPORT.matcher(line.replaceFirst("//.*", "").strip());
            Matcher scope = IN_SCOPE.matcher(line.strip());
            if (imp.matches()) {
                String name = imp.group(2);
                if (name.endsWith(".*")) {
                    fail("'" + line.strip() + "': a page names each type it imports, not a whole package");
                }
                names.add(name.substring(name.lastIndexOf('.') + 1));
            } else if (scope.matches()) {
                for (String declaration : scope.group(1).split(",")) {
                    String[] words = declaration.strip().split("\\s+");
                    if (words.length != 2 || !(names.contains(words[0]) || isJavaLang(words[0]))) {
                        fail("'" + line.strip() + "': each name in scope is 'Type name', its type imported above");
                    }
                    names.add(words[1]);
                }
            }
        }
        return names;
    }

    /** The names {@code lines} use but neither define nor find in {@code given} (nor in java.lang). */
    static Set<String> undefinedNames(List<String> lines, Set<String> given) {
        Set<String> imported = givenNames(lines.stream().filter(l -> l.strip().startsWith("import ")).toList());
        List<String> tokens = tokens(withoutCommentsAndLiterals(String.join("\n", lines)));
        Set<String> defined = new LinkedHashSet<>();
        List<String> used = new ArrayList<>();
        for (int i = 0; i < tokens.size(); i++) {
            String t = tokens.get(i);
            if (!isName(t) || KEYWORDS.contains(t)) {
                continue;
            }
            String before = i > 0 ? tokens.get(i - 1) : "";
            String after = i + 1 < tokens.size() ? tokens.get(i + 1) : "";
            if (before.equals(".") || before.equals("::")) {
                continue;                                        // a member: its owner is what is checked
            }
            if (PACKAGE_ROOTS.contains(t) && after.equals(".")) {
                while (i + 2 < tokens.size() && tokens.get(i + 1).equals(".") && isName(tokens.get(i + 2))) {
                    i += 2;                                      // a fully qualified name
                }
                continue;
            }
            if (isDeclaration(before) || after.equals("->") || inLambdaParameters(tokens, i)) {
                defined.add(t);
            } else if (!t.matches("[A-Z][A-Z0-9_]+")) {
                used.add(t);
            }
        }
        Set<String> undefined = new LinkedHashSet<>();
        for (String name : used) {
            if (!defined.contains(name) && !given.contains(name) && !imported.contains(name) && !isJavaLang(name)) {
                undefined.add(name);
            }
        }
        return undefined;
    }

    /** After a type ({@code Foo x}, {@code List<T> x}, {@code byte[] x}) or a type-declaring keyword. */
    static boolean isDeclaration(String before) {
        if (before.equals(">") || before.equals("]")) {
            return true;
        }
        if (!isName(before) || USE_AFTER.contains(before)) {
            return false;
        }
        return true;                                             // a type name, a primitive, var, class, record...
    }

    /** {@code (a, b) ->}: the names between a parenthesis and its {@code ->}. */
    static boolean inLambdaParameters(List<String> tokens, int i) {
        int j = i;
        while (j + 1 < tokens.size() && (tokens.get(j + 1).equals(",") || isName(tokens.get(j + 1)))) {
            j++;
        }
        if (j + 2 >= tokens.size() || !tokens.get(j + 1).equals(")") || !tokens.get(j + 2).equals("->")) {
            return false;
        }
        int k = i;
        while (k - 1 >= 0 && (tokens.get(k - 1).equals(",") || isName(tokens.get(k - 1)))) {
            k--;
        }
        return k - 1 >= 0 && tokens.get(k - 1).equals("(");
    }

    static boolean isName(String token) {
        return !token.isEmpty() && Character.isJavaIdentifierStart(token.charAt(0));
    }

    static boolean isJavaLang(String name) {
        if (!Character.isUpperCase(name.charAt(0))) {
            return false;
        }
        try {
            Class.forName("java.lang." + name, false, DocSnippetNamesTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    static List<String> tokens(String code) {
        List<String> tokens = new ArrayList<>();
        Matcher m = Pattern.compile("[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}]*|\\d[\\w.]*|::|->|\\S")
                .matcher(code);
        while (m.find()) {
            tokens.add(m.group());
        }
        return tokens;
    }

    /** The code with comments removed and string, text block and character literals emptied. */
    static String withoutCommentsAndLiterals(String code) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < code.length()) {
            if (code.startsWith("//", i)) {
                int end = code.indexOf('\n', i);
                i = end < 0 ? code.length() : end;
            } else if (code.startsWith("/*", i)) {
                int end = code.indexOf("*/", i + 2);
                i = end < 0 ? code.length() : end + 2;
            } else if (code.startsWith("\"\"\"", i)) {
                int end = code.indexOf("\"\"\"", i + 3);
                i = end < 0 ? code.length() : end + 3;
                out.append("\"\"");
            } else if (code.charAt(i) == '"' || code.charAt(i) == '\'') {
                char quote = code.charAt(i);
                int j = i + 1;
                while (j < code.length() && code.charAt(j) != quote) {
                    j += code.charAt(j) == '\\' ? 2 : 1;
                }
                i = j + 1;
                out.append(quote).append(quote);
            } else {
                out.append(code.charAt(i++));
            }
        }
        return out.toString();
    }
}
