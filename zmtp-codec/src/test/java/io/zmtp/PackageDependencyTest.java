package io.zmtp;

import io.zmtp.testing.JavaSources;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.zmtp.testing.PackageDependencies.assertOneWay;
import static io.zmtp.testing.PackageDependencies.noClassBoundByName;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * zmtp-codec's packages depend one way: {@code io.zmtp.wire} (the codec and the mechanism SPI
 * beside it) on none of the others; {@code io.zmtp.security} (PLAIN, CURVE, keys,
 * authenticators) on the wire only. Neither refers to the sockets or transports of zmtp-socket,
 * which build on them (the module could not compile if they did; the rule says so for a qualified
 * name in a comment-free place all the same). Checked on the sources: every reference to an
 * {@code io.zmtp.*} package in code (imports and qualified names; comments and string literals do
 * not count) is compared with what its package may use. And no class is bound by its name at run
 * time (reflection), which neither the compiler nor this check could see.
 */
class PackageDependencyTest {
    private static final Path SOURCES = Path.of("src", "main", "java");

    /** What each package may not refer to. */
    private static final Map<String, Set<String>> FORBIDDEN = Map.of(
            "io.zmtp.wire", Set.of("io.zmtp.security", "io.zmtp.socket", "io.zmtp.transport"),
            "io.zmtp.security", Set.of("io.zmtp.socket", "io.zmtp.transport"));

    @Test
    void dependenciesPointOneWay() {
        assertOneWay(SOURCES, FORBIDDEN);
    }

    @Test
    void noClassIsBoundByName() {
        assertEquals(List.of(), noClassBoundByName(SOURCES), "classes bound by name at run time");
    }

    @Test
    void theCheckSeesImportsAndQualifiedNamesButNotComments() {
        String source = "package io.zmtp.wire;\n"
                + "import io.zmtp.security.PlainMechanism; // io.zmtp.transport in a comment\n"
                + "/** {@link io.zmtp.socket.ZmtpSocket} in javadoc */\n"
                + "class X { Object o = new io.zmtp.socket.Pipe(); String s = \"io.zmtp.transport\"; }\n";
        assertEquals("io.zmtp.wire", JavaSources.packageOf(source));
        assertEquals(Set.of("io.zmtp.security", "io.zmtp.socket"), JavaSources.referencedPackages(source));
    }
}
