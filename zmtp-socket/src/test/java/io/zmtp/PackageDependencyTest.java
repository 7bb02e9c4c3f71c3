package io.zmtp;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.zmtp.testing.PackageDependencies.assertOneWay;
import static io.zmtp.testing.PackageDependencies.noClassBoundByName;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * zmtp-socket's packages depend one way: {@code io.zmtp.transport} (endpoints, epoll or NIO,
 * TLS, WebSocket) on the codec's {@code io.zmtp.wire} only, neither on the sockets nor on security;
 * {@code io.zmtp.socket} on all of them. Socket types, for one, are bound by a switch the compiler
 * checks ({@code SocketTypes}), not by their names at run time.
 */
class PackageDependencyTest {
    private static final Path SOURCES = Path.of("src", "main", "java");

    /** What each package may not refer to. */
    private static final Map<String, Set<String>> FORBIDDEN = Map.of(
            "io.zmtp.transport", Set.of("io.zmtp.socket", "io.zmtp.security"));

    @Test
    void dependenciesPointOneWay() {
        assertOneWay(SOURCES, FORBIDDEN);
    }

    @Test
    void noClassIsBoundByName() {
        assertEquals(List.of(), noClassBoundByName(SOURCES), "classes bound by name at run time");
    }
}
