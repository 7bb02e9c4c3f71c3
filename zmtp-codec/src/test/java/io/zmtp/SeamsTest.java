package io.zmtp;

import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.ZmtpCodec;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The seams of the two hubs, checked on the sources. A socket's parts (its send and receive paths,
 * its close, its endpoints, its peers' handlers and pipes) hold the socket's {@code SocketCore}
 * and the narrow interfaces it offers them, never the {@link ZmtpSocket}; a connection's helpers
 * hold the codec's {@code Connection} interface, never the {@link ZmtpCodec}; and neither hub has
 * a field anyone else could touch. Both packages are layered: no class refers to one that refers
 * back to it, directly or through others, but for the references named in {@link #ALLOWED_UP},
 * each with its reason ({@code scripts/upward-references.py} counts these per package).
 */
class SeamsTest {
    private static final Path SOURCES = Path.of("src", "main", "java", "io", "zmtp");

    /** In io.zmtp.socket, the API layer: the socket, its types, and the facades over its public API. */
    private static final Set<String> SOCKET_API = Set.of("ZmtpSocket", "SocketTypes", "ZmtpContext", "BlockingSocket",
            "ZmtpProxy", "ZapAuthenticator");

    /** The references that point up, per package, and why each stays. */
    private static final Map<String, Map<String, String>> ALLOWED_UP = Map.of(
            "wire", Map.of(),
            "socket", Map.of(
                    "Pipe -> SocketCore", "a pipe belongs to its socket's core, which lists its pipes (libzmq's pipe "
                            + "and socket know each other the same way)",
                    "ZmtpSocket -> ZmtpContext", "a socket names the context that made it (the public "
                            + "ZmtpSocket.context()), and the context makes its sockets"));

    @Test
    void theHubsKeepTheirFieldsToThemselves() {
        for (Class<?> hub : List.of(ZmtpSocket.class, ZmtpCodec.class)) {
            List<String> open = new ArrayList<>();
            for (Field f : hub.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) && !Modifier.isPrivate(f.getModifiers())) {
                    open.add(f.getName());
                }
            }
            assertEquals(List.of(), open, hub.getSimpleName() + "'s fields that other classes could touch");
        }
    }

    @Test
    void theSocketsPartsHoldTheCoreNotTheSocket() {
        Map<String, String> sources = sources("socket");
        List<String> holders = new ArrayList<>();
        for (Map.Entry<String, String> e : sources.entrySet()) {
            String name = e.getKey();
            String code = e.getValue();
            boolean type = Pattern.compile("\\bclass\\s+" + name + "\\s+extends\\s+ZmtpSocket\\b").matcher(code).find();
            if (!SOCKET_API.contains(name) && !type && mentions(code, "ZmtpSocket")) {
                holders.add(name);
            }
        }
        assertEquals(List.of(), holders, "parts of the socket that name ZmtpSocket instead of taking its SocketCore");
    }

    @Test
    void theCodecsHelpersHoldTheConnectionNotTheCodec() {
        List<String> holders = new ArrayList<>();
        for (Map.Entry<String, String> e : sources("wire").entrySet()) {
            if (!e.getKey().equals("ZmtpCodec") && mentions(e.getValue(), "ZmtpCodec")) {
                holders.add(e.getKey());
            }
        }
        assertEquals(List.of(), holders, "helpers of the codec that name ZmtpCodec instead of taking Connection");
    }

    @Test
    void theWireAndSocketPackagesAreLayered() {
        for (Map.Entry<String, Map<String, String>> pkg : ALLOWED_UP.entrySet()) {
            Map<String, Set<String>> refs = references(sources(pkg.getKey()));
            for (String allowed : pkg.getValue().keySet()) {
                String[] ends = allowed.split(" -> ");
                assertTrue(refs.get(ends[0]).remove(ends[1]), pkg.getKey() + ": " + allowed
                        + " is allowed to point up but is no reference any more: take it off the list");
            }
            assertEquals(List.of(), loops(refs), "io.zmtp." + pkg.getKey() + ": classes that refer to each other in a "
                    + "loop; a helper takes a narrow interface instead of its owner");
        }
    }

    @Test
    void theLoopCheckFindsALoopThroughThreeClasses() {
        Map<String, Set<String>> refs = new TreeMap<>();
        refs.put("A", new TreeSet<>(Set.of("B")));
        refs.put("B", new TreeSet<>(Set.of("C")));
        refs.put("C", new TreeSet<>(Set.of("A")));
        refs.put("D", new TreeSet<>(Set.of("A")));
        assertEquals(List.of(List.of("A", "B", "C")), loops(refs));
        refs.get("C").clear();
        assertFalse(!loops(refs).isEmpty(), "no loop once C stops referring to A");
    }

    /** Whether {@code code} (comments and strings already blanked) uses the word {@code name}. */
    private static boolean mentions(String code, String name) {
        return Pattern.compile("\\b" + name + "\\b").matcher(code).find();
    }

    /** Each class of the package (one top-level class a file) to the package's classes it names. */
    private static Map<String, Set<String>> references(Map<String, String> sources) {
        Map<String, Set<String>> refs = new TreeMap<>();
        Pattern word = Pattern.compile("\\b[A-Z]\\w*\\b");
        for (Map.Entry<String, String> e : sources.entrySet()) {
            Set<String> out = new TreeSet<>();
            Matcher m = word.matcher(e.getValue());
            while (m.find()) {
                if (sources.containsKey(m.group()) && !m.group().equals(e.getKey())) {
                    out.add(m.group());
                }
            }
            refs.put(e.getKey(), out);
        }
        return refs;
    }

    /** The loops (strongly connected components of more than one class), each sorted. */
    static List<List<String>> loops(Map<String, Set<String>> refs) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
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

    /** The package's sources by class name, comments and string literals blanked. */
    private static Map<String, String> sources(String pkg) {
        Path dir = SOURCES.resolve(pkg);
        assertTrue(Files.isDirectory(dir), "run from the zmtp-codec module: no " + dir.toAbsolutePath());
        Map<String, String> sources = new TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.filter(f -> f.toString().endsWith(".java")).toList()) {
                String name = p.getFileName().toString().replace(".java", "");
                if (!name.equals("package-info")) {
                    sources.put(name, PackageDependencyTest.stripCommentsAndStrings(
                            Files.readString(p, StandardCharsets.UTF_8)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sources;
    }
}
