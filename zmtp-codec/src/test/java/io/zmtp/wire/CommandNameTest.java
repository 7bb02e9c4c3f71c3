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
}
