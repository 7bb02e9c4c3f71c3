package io.zmtp.security;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CurveKeyPairTest {
    /** From libzmq 4.3.4: zmq_curve_keypair's output, and the pair in libzmq's documentation. */
    static final String[][] LIBZMQ_PAIRS = {
        {"lN^A[vB9^t&VSVKfQAqC1Gra0Iff(cRKDe@f[z$%", "}]#:N)dTv^mZrf=P4X#QcPya{ik/dQCHX6k.s$Fx"},
        {"rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7", "JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6"},
    };

    @Test
    void publicKeyFromLibzmqSecretKeys() {
        for (String[] p : LIBZMQ_PAIRS) {
            CurveKeyPair k = CurveKeyPair.fromSecretKey(p[1]);
            assertEquals(p[0], k.publicKeyZ85());
            assertEquals(p[1], k.secretKeyZ85());
            assertEquals(k, CurveKeyPair.of(Z85.decode(p[0]), Z85.decode(p[1])));
        }
    }

    @Test
    void generatedPairsAreDistinctAndConsistent() {
        CurveKeyPair a = CurveKeyPair.generate();
        CurveKeyPair b = CurveKeyPair.generate();
        assertNotEquals(a, b);
        assertEquals(40, a.publicKeyZ85().length());
        assertArrayEquals(a.publicKey(), CurveKeyPair.fromSecretKey(a.secretKey()).publicKey());
    }

    @Test
    void mismatchedHalvesAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> CurveKeyPair.of(Z85.decode(LIBZMQ_PAIRS[0][0]), Z85.decode(LIBZMQ_PAIRS[1][1])));
        assertThrows(IllegalArgumentException.class, () -> CurveKeyPair.fromSecretKey(new byte[31]));
        assertThrows(IllegalArgumentException.class, () -> CurveKeyPair.fromSecretKey("tooshort"));
    }

    @Test
    void secretKeyNeverInToString() {
        CurveKeyPair k = CurveKeyPair.fromSecretKey(LIBZMQ_PAIRS[1][1]);
        assertFalse(k.toString().contains(LIBZMQ_PAIRS[1][1]));
        assertEquals("CurveKeyPair{public=" + LIBZMQ_PAIRS[1][0] + "}", k.toString());
        CurveMechanism server = CurveMechanism.server(k, Authenticator.allowAll());
        assertFalse(server.toString().contains(LIBZMQ_PAIRS[1][1]));
        CurveMechanism client = CurveMechanism.client(LIBZMQ_PAIRS[0][0], k);
        assertFalse(client.toString().contains(LIBZMQ_PAIRS[1][1]));
    }

    @Test
    void secretKeyAccessorsHandOutCopies() {
        CurveKeyPair k = CurveKeyPair.generate();
        byte[] s = k.secretKey();
        s[0] ^= 1;
        assertNotEquals(s[0], k.secretKey()[0]);
    }
}
