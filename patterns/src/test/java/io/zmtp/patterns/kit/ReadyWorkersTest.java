package io.zmtp.patterns.kit;

import io.zmtp.socket.RoutingId;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReadyWorkersTest {
    static final RoutingId A = RoutingId.ofText("A");
    static final RoutingId B = RoutingId.ofText("B");
    static final RoutingId C = RoutingId.ofText("C");

    @Test
    void theWorkerReadyLongestGoesFirstAndReadyTwiceKeepsItsPlace() {
        ReadyWorkers<RoutingId> ready = new ReadyWorkers<>();
        assertTrue(ready.add(A, A));
        assertTrue(ready.add(B, B));
        assertFalse(ready.add(A, A), "already ready: keeps its place");
        assertTrue(ready.add(C, C));
        assertTrue(ready.remove(B));
        assertEquals(A, ready.poll());
        assertTrue(ready.add(A, A));
        assertEquals(C, ready.poll());
        assertEquals(A, ready.poll());
        assertNull(ready.poll());
    }

    @Test
    void workersWhoseConnectionIsGoneAreHandedBackAndSkipped() {
        ReadyWorkers<RoutingId> ready = new ReadyWorkers<>();
        ready.add(A, A);
        ready.add(B, B);
        ready.add(C, C);
        List<RoutingId> gone = new ArrayList<>();
        assertEquals(C, ready.poll(w -> !Set.of(A, B).contains(w), gone::add));
        assertEquals(List.of(A, B), gone);
        assertTrue(ready.isEmpty());
    }
}
