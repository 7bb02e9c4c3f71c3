package io.zmtp.socket;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The radix trie: memory proportional to the prefixes, removal without recursion, matches as a model says. */
class PrefixTrieTest {

    @Test
    void anEightMebibytePrefixCostsTwoNodesAndItsBytesAndIsRemovedWithoutRecursion() {
        PrefixTrie<String> t = new PrefixTrie<>();
        byte[] huge = new byte[8 << 20];
        Arrays.fill(huge, (byte) 'x');
        byte[] shorter = Arrays.copyOf(huge, 4 << 20);
        t.put(huge, "huge");
        t.put(shorter, "shorter");   // splits the huge edge: the bytes are not copied twice
        assertEquals(3, t.nodeCount(), "root, the split point, the rest");
        assertEquals(huge.length, t.labelBytes());
        List<String> seen = new ArrayList<>();
        t.matchPrefixes(Unpooled.wrappedBuffer(huge), seen::add);
        assertEquals(List.of("shorter", "huge"), seen);
        t.remove(huge);   // the old trie recursed once per byte here and overflowed the stack
        t.remove(shorter);
        assertEquals(0, t.size());
        assertEquals(1, t.nodeCount(), "only the root is left");
        assertEquals(0, t.labelBytes());
    }

    @Test
    void randomOperationsAgreeWithAMapAndKeepAtMostTwoNodesPerPrefix() {
        Random r = new Random(42);
        PrefixTrie<Integer> t = new PrefixTrie<>();
        HashMap<String, Integer> model = new HashMap<>();
        for (int op = 0; op < 20_000; op++) {
            byte[] p = randomPrefix(r);
            String k = new String(p, java.nio.charset.StandardCharsets.ISO_8859_1);
            if (r.nextInt(3) == 0) {
                t.remove(p);
                model.remove(k);
            } else {
                t.put(p, op);
                model.put(k, op);
            }
            assertEquals(model.size(), t.size());
            assertTrue(t.nodeCount() <= 2 * t.size() + 1, "nodes " + t.nodeCount() + " for " + t.size() + " prefixes");
            if (op % 97 == 0) {
                byte[] data = randomPrefix(r);
                List<Integer> got = new ArrayList<>();
                t.matchPrefixes(Unpooled.wrappedBuffer(data), got::add);
                List<Integer> want = new ArrayList<>();
                for (int len = 0; len <= data.length; len++) {
                    Integer v = model.get(new String(data, 0, len, java.nio.charset.StandardCharsets.ISO_8859_1));
                    if (v != null) {
                        want.add(v);
                    }
                }
                assertEquals(want, got);
                assertEquals(!want.isEmpty(), t.matchesAny(Unpooled.wrappedBuffer(data)));
            }
        }
        HashMap<String, Integer> visited = new HashMap<>();
        t.forEach((p, v) -> visited.put(new String(p, java.nio.charset.StandardCharsets.ISO_8859_1), v));
        assertEquals(model, visited);
        for (String k : model.keySet()) {
            assertEquals(model.get(k), t.get(k.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1)));
            t.remove(k.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        assertEquals(1, t.nodeCount());
        assertEquals(0, t.labelBytes());
        assertNull(t.get(new byte[0]));
    }

    /** Prefixes over a small alphabet, so they share beginnings and edges split and merge often. */
    private static byte[] randomPrefix(Random r) {
        byte[] p = new byte[r.nextInt(9)];
        for (int i = 0; i < p.length; i++) {
            p[i] = (byte) ('a' + r.nextInt(3));
        }
        return p;
    }
}
