package io.zmtp.cli;

import io.zmtp.patterns.majordomo.MajordomoEvent;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@code zmtp mdbroker}'s event lines: escaped, and whole up to a bound far past any reason. */
class BrokerEventLinesTest {

    @Test
    void aLongReasonIsShownWholeAndALineBreakEscaped() {
        StringWriter text = new StringWriter();
        var events = MdpOptions.brokerEvents(new PrintWriter(text), false);
        String reason = "the connection closed while the worker was serving a request; it is forgotten and its request "
                + "goes to another worker";
        events.accept(new MajordomoEvent(MajordomoEvent.Type.WORKER_LEFT, "00a1b2c3d4", "titanic.request", reason));
        events.accept(new MajordomoEvent(MajordomoEvent.Type.WORKER_READY, "00a1b2c3d5", "evil\nI: forged", "MDP/0.1"));
        assertEquals("I: WORKER_LEFT 00a1b2c3d4 service=titanic.request: " + reason + "\n"
                + "I: WORKER_READY 00a1b2c3d5 service=evil\\x0aI: forged: MDP/0.1\n", text.toString());
    }
}
