package io.zmtp;

import io.zmtp.socket.ZmtpSocket;
import io.zmtp.testing.JavaSources;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The socket's seam, checked on the sources: a socket's parts (its send and receive paths, its
 * close, its endpoints, its peers' handlers and pipes) hold the socket's {@code SocketCore} and
 * the narrow interfaces it offers them ({@code TypeHooks}, {@code PipeEvents}), never the
 * {@link ZmtpSocket}; the socket has no field another class could touch; and
 * {@code io.zmtp.socket} is layered but for the references named in {@link #ALLOWED_UP}, each with
 * its reason ({@code scripts/upward-references.py} counts such references for every package).
 */
class SocketSeamsTest {
    private static final Path SOCKET = Path.of("src", "main", "java", "io", "zmtp", "socket");

    /** The API layer: the socket, its types (found by their {@code extends}), and the facades over its public API. */
    private static final Set<String> SOCKET_API = Set.of("ZmtpSocket", "SocketTypes", "ZmtpContext", "BlockingSocket",
            "ZmtpProxy", "ZapAuthenticator");

    /** The references of io.zmtp.socket that point up, and why each stays. */
    private static final Map<String, String> ALLOWED_UP = Map.of(
            "Pipe -> SocketCore", "a pipe belongs to its socket's core, which lists its pipes (libzmq's pipe and "
                    + "socket know each other the same way)",
            "ZmtpSocket -> ZmtpContext", "a socket names the context that made it (the public ZmtpSocket.context()), "
                    + "and the context makes its sockets");

    @Test
    void theSocketKeepsItsFieldsToItself() {
        List<String> open = new ArrayList<>();
        for (Field f : ZmtpSocket.class.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) && !Modifier.isPrivate(f.getModifiers())) {
                open.add(f.getName());
            }
        }
        assertEquals(List.of(), open, "ZmtpSocket's fields that other classes could touch");
    }

    @Test
    void theSocketsPartsHoldTheCoreNotTheSocket() {
        List<String> holders = new ArrayList<>();
        for (Map.Entry<String, String> e : JavaSources.classes(SOCKET).entrySet()) {
            String name = e.getKey();
            boolean type = Pattern.compile("\\bclass\\s+" + name + "\\s+extends\\s+ZmtpSocket\\b").matcher(e.getValue()).find();
            if (!SOCKET_API.contains(name) && !type && JavaSources.mentions(e.getValue(), "ZmtpSocket")) {
                holders.add(name);
            }
        }
        assertEquals(List.of(), holders, "parts of the socket that name ZmtpSocket instead of taking its SocketCore");
    }

    @Test
    void theSocketPackageIsLayered() {
        assertEquals(List.of(), JavaSources.loopsBut(SOCKET, ALLOWED_UP.keySet()),
                "io.zmtp.socket: classes that refer to each other in a loop; a part takes the core or a narrow "
                        + "interface instead of its owner");
    }
}
