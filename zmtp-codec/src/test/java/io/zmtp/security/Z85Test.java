package io.zmtp.security;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static io.zmtp.testing.PeerBytes.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class Z85Test {

    /** 32/Z85's test vector. */
    @Test
    void specVector() {
        byte[] data = hex("86 4F D2 6F B5 59 F7 5B");
        assertEquals("HelloWorld", Z85.encode(data));
        assertArrayEquals(data, Z85.decode("HelloWorld"));
    }

    /** Keys printed by libzmq 4.3.4's zmq_curve_keypair, and their bytes as its zmq_z85_decode gives them. */
    @Test
    void libzmqKeys() {
        String[][] keys = {
            {"lN^A[vB9^t&VSVKfQAqC1Gra0Iff(cRKDe@f[z$%", "43297d0e61cfde0de2217bae30970f4f04a914e889751e99a69ad8e131814b54"},
            {"}]#:N)dTv^mZrf=P4X#QcPya{ik/dQCHX6k.s$Fx", "fbcdbbabecf7516246b204ef9eda88322737e4b638c45ed877d5274ac1f7b903"},
            {"rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7", "54fcba24e93249969316fb617c872bb0c1d1ff14800427c594cbfacf1bc2d652"},
            {"JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6", "8e0bdd697628b91d8f245587ee95c5b04d48963f79259877b49cd9063aead3b7"},
        };
        for (String[] k : keys) {
            assertArrayEquals(hex(k[1]), Z85.decode(k[0]), k[0]);
            assertEquals(k[0], Z85.encode(hex(k[1])));
        }
    }

    @Test
    void roundTripsEveryByteValue() {
        Random r = new Random(1);
        for (int n = 0; n <= 64; n += 4) {
            byte[] b = new byte[n];
            r.nextBytes(b);
            assertArrayEquals(b, Z85.decode(Z85.encode(b)));
        }
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) {
            all[i] = (byte) i;
        }
        assertArrayEquals(all, Z85.decode(Z85.encode(all)));
        assertEquals("%nSc0", Z85.encode(hex("FF FF FF FF")), "the largest group");
    }

    @Test
    void refusesBadInputWithoutEchoingIt() {
        assertThrows(IllegalArgumentException.class, () -> Z85.encode(new byte[3]));
        assertThrows(IllegalArgumentException.class, () -> Z85.decode("Hello"+"Worl"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Z85.decode("Hell\"World"));
        assertFalse(e.getMessage().contains("Hell"), "the message does not repeat the (possibly secret) text");
        assertTrue(e.getMessage().contains("position 4"));
        assertThrows(IllegalArgumentException.class, () -> Z85.decode("%nSc1"), "above 2^32-1");
        assertThrows(IllegalArgumentException.class, () -> Z85.decode("#####"), "above 2^32-1");
        assertThrows(IllegalArgumentException.class, () -> Z85.decode("Hell\u00e9World"));
    }
}
