package io.zmtp.security;

import io.zmtp.security.CurveWire.Frame;
import io.zmtp.testing.CodecHarness;
import io.zmtp.testing.PeerBytes;
import io.zmtp.wire.ZmtpOptions;

import java.util.List;

import static io.zmtp.security.CurveHandshakeTest.DEALER_META;
import static io.zmtp.security.CurveHandshakeTest.SERVER;
import static io.zmtp.security.CurveHandshakeTest.greeting;
import static io.zmtp.security.CurveHandshakeTest.router;
import static io.zmtp.security.CurveWire.frames;
import static io.zmtp.security.CurveWire.key;
import static io.zmtp.security.CurveWire.nonce;
import static io.zmtp.security.CurveWire.open;
import static io.zmtp.security.CurveWire.range;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** A hand-written client's view of one handshake with our server. */
final class ManualCurveClient implements AutoCloseable {
    final CodecHarness h;
    final CurveKeyPair transientKeys;
    final CurveKeyPair longTerm;
    byte[] serverTransient;
    byte[] cookie;
    byte[] sessionKey;

    ManualCurveClient(CurveMechanism server, CurveKeyPair transientKeys, CurveKeyPair longTerm) {
        this(router(server), transientKeys, longTerm);
    }

    ManualCurveClient(ZmtpOptions options, CurveKeyPair transientKeys, CurveKeyPair longTerm) {
        this.h = new CodecHarness(options);
        this.transientKeys = transientKeys;
        this.longTerm = longTerm;
        h.written();
    }

    byte[] helloData(long n) {
        return CurveWire.helloData(transientKeys.publicKey(), transientKeys.secretKey(), SERVER.publicKey(), n);
    }

    /** Greeting and HELLO; returns the WELCOME frame. */
    Frame hello(long n) {
        h.feed(greeting(false).command("HELLO", helloData(n)).toArray());
        byte[] out = h.written();
        assertEquals(1, out[21], "the server's as-server flag is 1");
        List<Frame> fs = frames(range(out, 53, out.length));
        assertEquals(1, fs.size());
        Frame welcome = fs.get(0);
        byte[] plain = open(key(transientKeys.publicKey(), SERVER.secretKey()),
                nonce("WELCOME-", range(welcome.data(), 0, 16)), range(welcome.data(), 16, 160));
        assertNotNull(plain, "Box[S' + cookie](S->C') opens");
        serverTransient = range(plain, 0, 32);
        cookie = range(plain, 32, 128);
        sessionKey = key(serverTransient, transientKeys.secretKey());
        return welcome;
    }

    byte[] vouch() {
        return CurveWire.vouch(transientKeys.publicKey(), SERVER.publicKey(), longTerm.secretKey(), serverTransient,
                new byte[16]);
    }

    byte[] initiateData(long n, byte[] vouch, byte[] meta) {
        return CurveWire.initiateData(cookie, n, sessionKey, longTerm.publicKey(), vouch, meta);
    }

    void initiate(long n) {
        initiate(n, DEALER_META);
    }

    void initiate(long n, byte[] meta) {
        h.feed(PeerBytes.create().command("INITIATE", initiateData(n, vouch(), meta)).toArray());
    }

    @Override
    public void close() {
        h.close();
    }
}
