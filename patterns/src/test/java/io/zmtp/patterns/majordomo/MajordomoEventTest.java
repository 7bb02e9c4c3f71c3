package io.zmtp.patterns.majordomo;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** One record for every kind of event, printing the command line's line. */
class MajordomoEventTest {

    @Test
    void everyKindPrintsTheCliLine() {
        for (MajordomoEvent.Type t : MajordomoEvent.Type.values()) {
            MajordomoEvent e = new MajordomoEvent(t, "0A0B", "echo", "why");
            assertEquals(t, e.type());
            assertEquals(t.name() + " 0A0B service=echo: why", e.toString());
        }
        assertEquals("BROKER_LOST tcp://x: silent",
                new MajordomoEvent(MajordomoEvent.Type.BROKER_LOST, "tcp://x", null, "silent").toString());
        assertEquals("WORKER_READY service=s", new MajordomoEvent(MajordomoEvent.Type.WORKER_READY, null, "s", null)
                .toString());
    }

    @Test
    void anEventHasAType() {
        assertThrows(NullPointerException.class, () -> new MajordomoEvent(null, "p", "s", "d"));
    }
}
