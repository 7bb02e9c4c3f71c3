package io.zmtp.interop;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The library jars as a build would take them (built by the package phase of their modules, before
 * these tests run under {@code mvn verify}): each names its module in the manifest, so it can sit on
 * the module path.
 */
class PublishedArtifactsTest {
    private static final Map<String, String> MODULES = Map.of(
            "zmtp-codec", "io.zmtp.codec",
            "zmtp-socket", "io.zmtp.socket",
            "patterns", "io.zmtp.patterns",
            "titanic-sqlite", "io.zmtp.patterns.titanic.sqlite",
            "titanic-postgresql", "io.zmtp.patterns.titanic.postgresql",
            "zmtp-cli", "io.zmtp.cli",
            "zmtp-micrometer", "io.zmtp.micrometer");

    @Test
    void everyLibraryJarHasAnAutomaticModuleName() throws IOException {
        String list = System.getProperty("zmtp.artifacts");
        assertNotNull(list, "zmtp.artifacts is set by the surefire configuration");
        Set<String> checked = new HashSet<>();
        for (String jar : list.split(",")) {
            Path p = Path.of(jar);
            assertTrue(Files.isRegularFile(p), p + " is built (run the package phase first: mvn verify)");
            String artifact = MODULES.keySet().stream()
                    .filter(a -> p.getFileName().toString().startsWith(a + "-"))
                    .findFirst().orElseThrow(() -> new AssertionError("unexpected jar " + p));
            try (JarFile j = new JarFile(p.toFile())) {
                assertNotNull(j.getManifest(), p + " has a manifest");
                assertEquals(MODULES.get(artifact), j.getManifest().getMainAttributes().getValue("Automatic-Module-Name"),
                        p + "'s Automatic-Module-Name");
            }
            checked.add(artifact);
        }
        assertEquals(MODULES.keySet(), checked, "every library jar is checked");
    }
}
