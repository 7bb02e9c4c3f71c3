package io.zmtp;

import io.zmtp.testing.JavaSources;
import io.zmtp.wire.ZmtpCodec;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The codec's seam, checked on the sources: a connection's helpers (its handshake, heartbeat,
 * commands, budget) hold the package-private {@code Connection} interface, never the
 * {@link ZmtpCodec}; the codec has no field another class could touch; and {@code io.zmtp.wire}
 * is layered: no class refers to one that refers back to it, directly or through others
 * ({@code scripts/upward-references.py} counts such references for every package).
 */
class CodecSeamsTest {
    private static final Path WIRE = Path.of("src", "main", "java", "io", "zmtp", "wire");

    @Test
    void theCodecKeepsItsFieldsToItself() {
        List<String> open = new ArrayList<>();
        for (Field f : ZmtpCodec.class.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) && !Modifier.isPrivate(f.getModifiers())) {
                open.add(f.getName());
            }
        }
        assertEquals(List.of(), open, "ZmtpCodec's fields that other classes could touch");
    }

    @Test
    void theCodecsHelpersHoldTheConnectionNotTheCodec() {
        List<String> holders = new ArrayList<>();
        for (Map.Entry<String, String> e : JavaSources.classes(WIRE).entrySet()) {
            if (!e.getKey().equals("ZmtpCodec") && JavaSources.mentions(e.getValue(), "ZmtpCodec")) {
                holders.add(e.getKey());
            }
        }
        assertEquals(List.of(), holders, "helpers of the codec that name ZmtpCodec instead of taking Connection");
    }

    @Test
    void theWirePackageIsLayered() {
        assertEquals(List.of(), JavaSources.loopsBut(WIRE, Set.of()),
                "io.zmtp.wire: classes that refer to each other in a loop; a helper takes a narrow interface instead "
                        + "of its owner");
    }

    @Test
    void theLoopCheckFindsALoopThroughThreeClassesAndNoneOnceItIsCut() {
        Map<String, Set<String>> refs = new TreeMap<>();
        refs.put("A", new TreeSet<>(Set.of("B")));
        refs.put("B", new TreeSet<>(Set.of("C")));
        refs.put("C", new TreeSet<>(Set.of("A")));
        refs.put("D", new TreeSet<>(Set.of("A")));
        assertEquals(List.of(List.of("A", "B", "C")), JavaSources.loops(refs));
        refs.get("C").clear();
        assertTrue(JavaSources.loops(refs).isEmpty(), "no loop once C stops referring to A");
    }

    @Test
    void anAllowedReferenceTheCodeLostIsAnError() {
        assertThrows(AssertionError.class, () -> JavaSources.loopsBut(WIRE, Set.of("ZmtpCodec -> NoSuchClass")));
    }
}
