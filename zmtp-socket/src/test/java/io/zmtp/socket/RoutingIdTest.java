package io.zmtp.socket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RoutingIdTest {

    @Test
    void hashOfAFrameEqualsTheHashOfTheId() {
        byte[] id = {0, 1, 2, 3, (byte) 0xff};
        ByteBuf heap = Unpooled.wrappedBuffer(new byte[] {9, 0, 1, 2, 3, (byte) 0xff}).skipBytes(1);
        ByteBuf direct = Unpooled.directBuffer().writeBytes(id);
        try {
            int expected = RoutingId.of(id).hashCode();
            assertEquals(expected, RoutingId.hash(heap));
            assertEquals(expected, RoutingId.hash(direct));
            assertTrue(RoutingId.of(id).matches(heap));
            assertTrue(RoutingId.of(id).matches(direct));
            assertFalse(RoutingId.of(new byte[] {0, 1, 2, 3}).matches(direct));
        } finally {
            direct.release();
        }
    }

    @Test
    void equalIdsAreEqualKeysAndTheBytesAreCopied() {
        byte[] bytes = "worker-1".getBytes();
        RoutingId id = RoutingId.of(bytes);
        bytes[0] = 'X';
        assertEquals(RoutingId.ofText("worker-1"), id);
        assertNotEquals(RoutingId.ofText("worker-2"), id);
        Map<RoutingId, String> map = new HashMap<>();
        map.put(id, "a");
        assertEquals("a", map.get(RoutingId.ofText("worker-1")));
        assertEquals("worker-1", id.toString());
        assertEquals("00ff", RoutingId.of(new byte[] {0, (byte) 0xff}).toString());
    }

    @Test
    void idsOrderUnsigned() {
        assertTrue(RoutingId.of(new byte[] {(byte) 0x80}).compareTo(RoutingId.of(new byte[] {0x7f})) > 0);
        assertTrue(RoutingId.of(new byte[] {1}).compareTo(RoutingId.of(new byte[] {1, 0})) < 0);
    }

    @Test
    void theUnseededJavaHashCollisionsOfChosenIdsDoNotCollideHere() {
        // "Aa" and "BB" collide under Arrays.hashCode, as do all their concatenations: 2^10 ids with one hash
        Map<Integer, Integer> hashes = new HashMap<>();
        int ids = 1 << 10;
        for (int i = 0; i < ids; i++) {
            StringBuilder sb = new StringBuilder();
            for (int bit = 0; bit < 10; bit++) {
                sb.append((i >> bit & 1) == 0 ? "Aa" : "BB");
            }
            hashes.merge(RoutingId.ofText(sb.toString()).hashCode(), 1, Integer::sum);
        }
        int worst = hashes.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
        assertTrue(worst <= 3, "at most a few ids share a hash, got " + worst);
    }
}
