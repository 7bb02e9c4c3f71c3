package io.zmtp.patterns.majordomo;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One record per kind of event, each printing the command line's line. */
class MajordomoEventTest {

    @Test
    void eachKindIsItsOwnRecordWhoseToStringIsTheCliLine() {
        Set<Class<?>> classes = new HashSet<>();
        for (MajordomoEvent.Type t : MajordomoEvent.Type.values()) {
            MajordomoEvent e = MajordomoEvent.of(t, "0A0B", "echo", "why");
            assertEquals(t, e.type());
            assertTrue(e.getClass().isRecord(), e.getClass() + " is a record");
            assertEquals(t.name() + " 0A0B service=echo: why", e.toString());
            classes.add(e.getClass());
        }
        assertEquals(MajordomoEvent.Type.values().length, classes.size(), "a record per kind");
        assertEquals(MajordomoEvent.Type.values().length, MajordomoEvent.class.getPermittedSubclasses().length);
        assertInstanceOf(MajordomoEvent.WorkerReady.class, MajordomoEvent.of(MajordomoEvent.Type.WORKER_READY, null, "s", null));
        assertEquals("BROKER_LOST tcp://x: silent", MajordomoEvent.of(MajordomoEvent.Type.BROKER_LOST, "tcp://x", null,
                "silent").toString());
    }
}
