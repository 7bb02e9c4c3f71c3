package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static io.zmtp.testing.PeerBytes.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Command names are parsed in one place ({@code FrameReader.readCommandName}), for plaintext commands
 * and for those decrypted from CURVE MESSAGE boxes alike: a length octet and that many letters.
 */
class CommandNameTest {

    private static String read(String hexBytes) throws ZmtpProtocolException {
        ByteBuf b = Unpooled.wrappedBuffer(hex(hexBytes));
        try {
            return FrameReader.readCommandName(b);
        } finally {
            b.release();
        }
    }

    @Test
    void aNameIsALengthAndThatManyLetters() throws Exception {
        assertEquals("PING", read("04 50 49 4E 47 00 01"));
        assertEquals("ready", read("05 72 65 61 64 79"));
    }

    @Test
    void emptyTruncatedOrNonLetterNamesAreRefused() {
        assertTrue(assertThrows(ZmtpProtocolException.class, () -> read("00 41")).getMessage().contains("empty"));
        assertTrue(assertThrows(ZmtpProtocolException.class, () -> read("05 50 49 4E 47")).getMessage().contains("truncated"));
        assertTrue(assertThrows(ZmtpProtocolException.class, () -> read("04 50 49 4E 31")).getMessage().contains("not a letter"));
        assertTrue(assertThrows(ZmtpProtocolException.class, () -> read("04 50 49 4E 00")).getMessage().contains("not a letter"));
    }

    @Test
    void theNamesZmtpDefinesComeBackAsConstantsAndTheReaderMovesPastThem() throws Exception {
        ByteBuf b = Unpooled.wrappedBuffer(hex("07 4D 45 53 53 41 47 45 AA"));   // MESSAGE, then a byte
        try {
            assertTrue(FrameReader.readCommandName(b) == "MESSAGE", "the constant: no String per CURVE frame");
            assertEquals(1, b.readableBytes());
            assertEquals((byte) 0xAA, b.readByte());
        } finally {
            b.release();
        }
        assertTrue(read("05 52 45 41 44 59") == ZmtpWire.READY);
        assertEquals("MESSAGf", read("07 4D 45 53 53 41 47 66"), "a name that only starts like one is read as sent");
        assertEquals("MESSAGEX", read("08 4D 45 53 53 41 47 45 58"));
    }
}
