package io.zmtp.patterns.majordomo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.zmtp.patterns.majordomo.MdpProtocol.MdpFormatException;
import io.zmtp.socket.RoutingId;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Parsing once into typed commands: the records hold the frames themselves; malformed input is untouched. */
class MdpProtocolTest {

    /** A frame in a pooled buffer, so a leak or a double release shows. */
    static ByteBuf frame(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return PooledByteBufAllocator.DEFAULT.buffer(Math.max(1, b.length)).writeBytes(b);
    }

    static ByteBuf code(int c) {
        return PooledByteBufAllocator.DEFAULT.buffer(1).writeByte(c);
    }

    @Test
    void aV02RequestBecomesAClientRequestHoldingTheSameFrames() {
        RoutingId id = RoutingId.ofText("id");
        ByteBuf service = frame("echo");
        ByteBuf body = frame("hello");
        ZmtpMessage m = ZmtpMessage.of(frame("MDPC02"), code(1), service, body).addFirst(id.frame());
        MdpCommand.ClientRequest r = assertInstanceOf(MdpCommand.ClientRequest.class, MdpProtocol.fromRouter(m));
        assertEquals(MdpVersion.V0_2, r.version());
        assertTrue(r.peer() == id && r.service() == service && r.body().frame(0) == body, "no copies");
        assertEquals("echo", r.serviceName());
        assertEquals(1, r.body().size());
        r.release();
        assertEquals(0, service.refCnt());
        assertEquals(0, body.refCnt());
    }

    @Test
    void anIdFrameThatIsABufferIsReadIntoAnIdAndReleased() {
        ByteBuf id = frame("id");
        ZmtpMessage m = ZmtpMessage.of(id, frame(""), frame("MDPW01"), code(4));
        MdpCommand.WorkerHeartbeat h = assertInstanceOf(MdpCommand.WorkerHeartbeat.class, MdpProtocol.fromRouter(m));
        assertEquals(RoutingId.ofText("id"), h.peer());
        assertEquals(0, id.refCnt(), "released by the parser");
        h.release();
    }

    @Test
    void everyWorkerCommandOfBothVersions() {
        assertInstanceOf(MdpCommand.WorkerReady.class,
                parse(ZmtpMessage.of(frame("w"), frame(""), frame("MDPW01"), code(1), frame("echo"))));
        assertInstanceOf(MdpCommand.WorkerReply.class, parse(ZmtpMessage.of(frame("w"), frame(""), frame("MDPW01"),
                code(3), frame("c"), frame(""), frame("x"))));
        assertInstanceOf(MdpCommand.WorkerHeartbeat.class, parse(ZmtpMessage.of(frame("w"), frame(""), frame("MDPW01"), code(4))));
        assertInstanceOf(MdpCommand.WorkerDisconnect.class, parse(ZmtpMessage.of(frame("w"), frame("MDPW02"), code(6))));
        assertInstanceOf(MdpCommand.WorkerPartial.class, parse(ZmtpMessage.of(frame("w"), frame("MDPW02"), code(3),
                frame("c"), frame(""), frame("x"))));
        MdpCommand fin = MdpProtocol.fromRouter(ZmtpMessage.of(frame("w"), frame("MDPW02"), code(4), frame("c"),
                frame(""), frame("x"), frame("y")));
        MdpCommand.WorkerFinal f = assertInstanceOf(MdpCommand.WorkerFinal.class, fin);
        assertEquals("c", f.client().toString(StandardCharsets.UTF_8));
        assertEquals(2, f.body().size());
        f.release();
        MdpCommand atWorker = MdpProtocol.atWorker(ZmtpMessage.of(frame("MDPW02"), code(2), frame("c"), frame(""),
                frame("q")), MdpVersion.V0_2);
        MdpCommand.WorkerRequest q = assertInstanceOf(MdpCommand.WorkerRequest.class, atWorker);
        assertNull(q.peer());
        q.release();
        MdpCommand atClient = MdpProtocol.atClient(ZmtpMessage.of(frame("MDPC02"), code(2), frame("s"), frame("p")),
                MdpVersion.V0_2, true);
        assertInstanceOf(MdpCommand.ClientPartial.class, atClient).release();
    }

    static MdpCommand parse(ZmtpMessage m) {
        MdpCommand c = MdpProtocol.fromRouter(m);
        c.release();
        return c;
    }

    @Test
    void aMalformedMessageIsRejectedWithItsReasonAndLeftUntouched() {
        String[][] cases = {
                {"MDPC02", "\u0002", "s", "b"},       // a client sending PARTIAL
                {"MDPC02", "\u0001", "s"},           // no body
                {"", "MDPC02", "\u0001", "s", "b"},   // 0.2 header after an empty frame
                {"MDPC01", "s", "b"},                // 0.1 header without the empty frame
                {"MDPW02", "\u0009"},                // unknown command
                {"MDPW02", "\u0001"},                // READY without a service
                {"MDPW02", "\u0004", "c", "x", "b"}, // no empty frame after the client
                {"XYZ", "a", "b"},
        };
        for (String[] c : cases) {
            ZmtpMessage m = ZmtpMessage.newMessage().add(frame("id"));
            for (String f : c) {
                m.add(frame(f));
            }
            int size = m.size();
            MdpFormatException e = assertThrows(MdpFormatException.class, () -> MdpProtocol.fromRouter(m));
            assertTrue(e.getMessage() != null && !e.getMessage().isEmpty());
            assertEquals(size, m.size(), "untouched: " + e.getMessage());
            assertEquals(1, m.refCnt());
            m.release();
        }
    }
}
