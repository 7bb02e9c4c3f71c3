package io.zmtp.interop;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a newcomer does: a new Maven project that depends on the coordinates the docs give,
 * resolved from a local repository holding what {@code mvn install} of the library modules
 * installs (each module's POM, its jar, sources jar and javadoc jar, and the parent POM), builds
 * and runs the README's complete example. Third-party dependencies come from this build's own
 * local repository, given to the new project as its only remote repository (a mirror), so the
 * test needs no network. A project that depends on patterns gets neither picocli nor sqlite-jdbc.
 */
class NewProjectTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final List<String> LIBRARIES = List.of("zmtp-codec", "zmtp-socket", "patterns", "titanic-sqlite", "zmtp-cli", "zmtp-micrometer");
    static final Pattern VERSION = Pattern.compile("<version>([^<]+)</version>");

    @TempDir
    Path tmp;

    @Test
    void aNewProjectBuildsAndRunsTheReadmeExampleFromWhatInstallInstalls() throws Exception {
        String version = projectVersion();
        Path repo = tmp.resolve("repository");
        for (String artifact : LIBRARIES) {
            Path dir = repo.resolve("io/zmtp/" + artifact + "/" + version);
            Files.createDirectories(dir);
            Files.copy(ROOT.resolve(artifact + "/pom.xml"), dir.resolve(artifact + "-" + version + ".pom"));
            for (String classifier : List.of("", "-sources", "-javadoc")) {
                Path jar = ROOT.resolve(artifact + "/target/" + artifact + "-" + version + classifier + ".jar");
                assertTrue(Files.isRegularFile(jar), jar + " is built: mvn install installs it");
                Files.copy(jar, dir.resolve(jar.getFileName()));
            }
        }
        Path parent = repo.resolve("io/zmtp/zmtp-parent/" + version);
        Files.createDirectories(parent);
        Files.copy(ROOT.resolve("pom.xml"), parent.resolve("zmtp-parent-" + version + ".pom"));

        String dependencies = documentedDependencies();
        assertTrue(dependencies.contains("<version>" + version + "</version>"),
                "the docs give the version mvn install installs, " + version + ": " + dependencies);
        Path project = tmp.resolve("newcomer");
        String example = readmeExample();
        Path source = project.resolve("src/main/java/io/zmtp/examples/docs/" + example + ".java");
        Files.createDirectories(source.getParent());
        Files.copy(ROOT.resolve("examples/src/main/java/io/zmtp/examples/docs/" + example + ".java"), source,
                StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(project.resolve("pom.xml"), """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>newcomer</groupId>
                  <artifactId>newcomer</artifactId>
                  <version>1</version>
                  <properties>
                    <maven.compiler.release>17</maven.compiler.release>
                    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
                  </properties>
                  <dependencies>
                """ + dependencies + """
                  </dependencies>
                  <build>
                    <plugins>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-compiler-plugin</artifactId>
                        <version>3.14.0</version>
                      </plugin>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-resources-plugin</artifactId>
                        <version>3.3.1</version>
                      </plugin>
                    </plugins>
                  </build>
                </project>
                """);
        Path settings = tmp.resolve("settings.xml");
        Files.writeString(settings, "<settings><mirrors><mirror><id>this-build</id><mirrorOf>*</mirrorOf><url>"
                + Path.of(System.getProperty("zmtp.localRepository")).toUri() + "</url></mirror></mirrors></settings>");

        List<String> build = run(project, "mvn", "-B", "-ntp", "-q", "-s", settings.toString(),
                "-Dmaven.repo.local=" + repo, "compile",
                "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath", "-Dmdep.outputFile=cp.txt");
        String classpath = Files.readString(project.resolve("cp.txt")).strip();
        if (dependencies.contains("<artifactId>patterns</artifactId>")) {
            assertFalse(classpath.contains("picocli") || classpath.contains("sqlite-jdbc"),
                    "a project that depends on patterns gets neither picocli nor sqlite-jdbc: " + classpath);
        }
        List<String> out = run(project, Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                project.resolve("target/classes") + ":" + classpath, "io.zmtp.examples.docs." + example);
        assertNotNull(build);
        assertNotNull(out);
    }

    /** The parent POM's version: what mvn install installs. */
    static String projectVersion() throws IOException {
        String pom = Files.readString(ROOT.resolve("pom.xml"));
        Matcher m = VERSION.matcher(pom.substring(pom.indexOf("<artifactId>zmtp-parent</artifactId>")));
        assertTrue(m.find());
        return m.group(1);
    }

    /** The dependencies of the first ```xml block of README.md or docs/ that names io.zmtp artifacts. */
    static String documentedDependencies() throws IOException {
        List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (var s = Files.walk(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        for (Path doc : docs) {
            String text = Files.readString(doc, StandardCharsets.UTF_8);
            Matcher m = Pattern.compile("```xml\\n(.*?)```", Pattern.DOTALL).matcher(text);
            while (m.find()) {
                if (m.group(1).contains("<groupId>io.zmtp</groupId>")) {
                    return m.group(1);
                }
            }
        }
        throw new AssertionError("no ```xml block with io.zmtp coordinates in the docs");
    }

    /** The class of the README's first Java snippet: its complete example. */
    static String readmeExample() throws IOException {
        Matcher m = Pattern.compile("<!-- snippet: (\\w+)#").matcher(Files.readString(ROOT.resolve("README.md")));
        assertTrue(m.find(), "the README shows a complete example");
        return m.group(1);
    }

    static List<String> run(Path dir, String... command) throws Exception {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        Thread reader = new Thread(() -> {
            try {
                lines.addAll(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList());
            } catch (IOException ended) {
                // the process ended
            }
        });
        reader.start();
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), String.join(" ", command) + " still running");
        reader.join(5000);
        assertEquals(0, p.exitValue(), () -> String.join(" ", command) + ":\n" + String.join("\n", lines));
        return lines;
    }
}
