package io.zmtp.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checks each module's {@code PackageDependencyTest} runs on its sources: that every package
 * with a rule refers to none of the packages the rule forbids, and that no class is bound by its
 * name at run time (reflection), which neither the compiler nor such a check could see.
 */
public final class PackageDependencies {
    /** Ways to reach a class by its name at run time. */
    private static final Pattern REFLECTION = Pattern.compile(
            "\\bClass\\s*\\.\\s*forName\\b|\\bfind(Constructor|Virtual|Static)\\b|\\bgetDeclaredConstructors?\\b"
                    + "|\\bloadClass\\b");

    private PackageDependencies() {
    }

    /** Every package with a rule in {@code forbidden} has sources under {@code sources}, and keeps its rule. */
    public static void assertOneWay(Path sources, Map<String, Set<String>> forbidden) {
        assertTrue(java.nio.file.Files.isDirectory(sources), "run from the module: no " + sources.toAbsolutePath());
        List<String> violations = new ArrayList<>();
        TreeSet<String> checked = new TreeSet<>();
        for (Path file : JavaSources.files(sources)) {
            String source = JavaSources.read(file);
            String pkg = JavaSources.packageOf(source);
            Set<String> rule = forbidden.get(pkg);
            if (rule == null) {
                continue;
            }
            checked.add(pkg);
            for (String used : JavaSources.referencedPackages(source)) {
                if (rule.contains(used)) {
                    violations.add(sources.relativize(file) + " (" + pkg + ") refers to " + used);
                }
            }
        }
        assertEquals(forbidden.keySet(), checked, "every package with a rule has sources");
        assertEquals(List.of(), violations, "dependencies against the package direction");
    }

    /** The places under {@code sources} that bind a class by its name at run time. */
    public static List<String> noClassBoundByName(Path sources) {
        List<String> found = new ArrayList<>();
        for (Path file : JavaSources.files(sources)) {
            Matcher m = REFLECTION.matcher(JavaSources.stripCommentsAndStrings(JavaSources.read(file)));
            while (m.find()) {
                found.add(sources.relativize(file) + ": " + m.group());
            }
        }
        return found;
    }
}
