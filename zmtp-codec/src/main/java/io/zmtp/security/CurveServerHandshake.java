package io.zmtp.security;

import io.netty.buffer.ByteBuf;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.ZmtpCommand;
import io.zmtp.wire.ZmtpMetadata;
import io.zmtp.wire.ZmtpProtocolException;
import io.zmtp.wire.ZmtpWire;
import org.bouncycastle.math.ec.rfc7748.X25519;

import java.util.Arrays;
import io.zmtp.wire.HandshakeSession;
import io.zmtp.wire.MechanismHandshake;

import static io.zmtp.security.CurveLayout.COOKIE_NONCE;
import static io.zmtp.security.CurveLayout.COOKIE_SIZE;
import static io.zmtp.security.CurveLayout.HELLO;
import static io.zmtp.security.CurveLayout.HELLO_DATA;
import static io.zmtp.security.CurveLayout.HELLO_NONCE;
import static io.zmtp.security.CurveLayout.HELLO_PADDING;
import static io.zmtp.security.CurveLayout.INITIATE;
import static io.zmtp.security.CurveLayout.INITIATE_MIN_DATA;
import static io.zmtp.security.CurveLayout.INITIATE_NONCE;
import static io.zmtp.security.CurveLayout.READY_NONCE;
import static io.zmtp.security.CurveLayout.VOUCH_NONCE;
import static io.zmtp.security.CurveLayout.WELCOME;
import static io.zmtp.security.CurveLayout.WELCOME_DATA;
import static io.zmtp.security.CurveLayout.WELCOME_NONCE;
import static io.zmtp.security.CurveLayout.nonce;

/**
 * The CURVE server side of one connection: HELLO -> WELCOME, then INITIATE -> READY.
 *
 * <p>Between WELCOME and INITIATE it holds no key material: C' and s' are in the cookie, sealed
 * with the mechanism's shared, rotating cookie key. It remembers HELLO's short nonce and the
 * cookie's nonce (not secret) so that INITIATE's nonce can be checked and a cookie issued on
 * another connection is refused.
 */
final class CurveServerHandshake implements MechanismHandshake {
    private enum State { EXPECT_HELLO, EXPECT_INITIATE, DONE }

    private final HandshakeSession session;
    private final CurveKeyPair keys;
    private final Authenticator authenticator;
    private final java.security.SecureRandom random;
    private final CookieKeys cookies;

    private State state = State.EXPECT_HELLO;
    /** Made on HELLO, used for INITIATE and READY, then handed to the frame cipher. */
    private CryptoBox box;
    private long helloNonce;
    private byte[] cookieNonce;
    /** While the authenticator is asked: the session key and the client's undecoded metadata. */
    private byte[] heldSessionKey;
    private byte[] heldMetadata;

    CurveServerHandshake(HandshakeSession session, CurveKeyPair keys, Authenticator authenticator,
                         java.security.SecureRandom random, CookieKeys cookies) {
        this.session = session;
        this.keys = keys;
        this.authenticator = authenticator;
        this.random = random;
        this.cookies = cookies;
    }

    @Override
    public void start() throws ZmtpProtocolException {
        PlainMechanism.checkRoles(session, true, CurveLayout.NAME);
    }

    @Override
    public void onCommand(ZmtpCommand command) throws ZmtpProtocolException {
        switch (state) {
            case EXPECT_HELLO:
                expect(command, HELLO);
                onHello(command.data());
                break;
            case EXPECT_INITIATE:
                expect(command, INITIATE);
                onInitiate(command.data());
                break;
            default:
                throw new ZmtpProtocolException("CURVE server: unexpected " + io.zmtp.wire.FrameText.escape(command.name()));
        }
    }

    private static void expect(ZmtpCommand command, String name) throws ZmtpProtocolException {
        if (!command.is(name)) {
            throw new ZmtpProtocolException("CURVE server: expected " + name + ", got " + io.zmtp.wire.FrameText.escape(command.name()));
        }
    }

    private void onHello(ByteBuf data) throws ZmtpProtocolException {
        if (data.readableBytes() != HELLO_DATA) {
            throw new ZmtpProtocolException("CURVE server: HELLO of " + (data.readableBytes() + 6)
                    + " bytes (it is 200, with 72 bytes of padding)");
        }
        int ri = data.readerIndex();
        int major = data.getUnsignedByte(ri);
        int minor = data.getUnsignedByte(ri + 1);
        if (major != 1 || minor != 0) {
            throw new ZmtpProtocolException("CURVE server: HELLO announces CurveZMQ " + major + "." + minor
                    + "; only 1.0 is supported");
        }
        for (int i = 0; i < HELLO_PADDING; i++) {
            if (data.getByte(ri + 2 + i) != 0) {
                throw new ZmtpProtocolException("CURVE server: HELLO padding byte " + i + " is not zero");
            }
        }
        byte[] hello = new byte[HELLO_DATA - 2 - HELLO_PADDING]; // C', short nonce, box
        data.getBytes(ri + 2 + HELLO_PADDING, hello);
        long n = getLong(hello, 32);
        if (n == 0) {
            throw new ZmtpProtocolException("CURVE server: HELLO with short nonce 0");
        }
        byte[] clientTransient = Arrays.copyOfRange(hello, 0, 32);
        box = new CryptoBox();
        byte[] key = new byte[32];
        byte[] transientSecret = new byte[32];
        byte[] plain = new byte[128];
        try {
            if (!CryptoBox.beforenm(key, clientTransient, keys.secretKeyBytes())
                    || !box.open(key, nonce(HELLO_NONCE, n), hello, 40, 80, plain, 0)) {
                throw new ZmtpProtocolException("CURVE server: the HELLO box does not open: the client does not"
                        + " use our public key " + keys.publicKeyZ85() + " (wrong server key?)");
            }
            helloNonce = n;

            // s', S'
            X25519.generatePrivateKey(random, transientSecret);
            byte[] transientPublic = new byte[32];
            X25519.scalarMultBase(transientSecret, 0, transientPublic, 0);

            // cookie = 16-byte nonce + Box[C' + s'](K)
            cookieNonce = new byte[16];
            random.nextBytes(cookieNonce);
            System.arraycopy(clientTransient, 0, plain, 0, 32);
            System.arraycopy(transientSecret, 0, plain, 32, 32);
            byte[] welcomePlain = new byte[128];
            System.arraycopy(transientPublic, 0, welcomePlain, 0, 32);
            System.arraycopy(cookieNonce, 0, welcomePlain, 32, 16);
            CookieKeys.Key k = cookies.sealingKey();
            box.seal(k.bytes, nonce(COOKIE_NONCE, cookieNonce), plain, 0, 64, welcomePlain, 48);

            // WELCOME = 16-byte nonce + Box[S' + cookie](S -> C'), the same key as HELLO's box
            byte[] welcome = new byte[WELCOME_DATA];
            byte[] welcomeNonce = new byte[16];
            random.nextBytes(welcomeNonce);
            System.arraycopy(welcomeNonce, 0, welcome, 0, 16);
            box.seal(key, nonce(WELCOME_NONCE, welcomeNonce), welcomePlain, 0, 128, welcome, 16);
            Arrays.fill(welcomePlain, (byte) 0);
            state = State.EXPECT_INITIATE;
            ByteBuf out = session.alloc().buffer(WELCOME_DATA);
            try {
                out.writeBytes(welcome);
                session.sendCommand(WELCOME, out);
            } finally {
                out.release();
            }
        } finally {
            Arrays.fill(key, (byte) 0);
            Arrays.fill(transientSecret, (byte) 0);
            Arrays.fill(plain, (byte) 0);
            box.wipe();
        }
    }

    private void onInitiate(ByteBuf data) throws ZmtpProtocolException {
        int len = data.readableBytes();
        if (len < INITIATE_MIN_DATA) {
            throw new ZmtpProtocolException("CURVE server: INITIATE of " + (len + 9) + " bytes (at least 257)");
        }
        int ri = data.readerIndex();
        byte[] cookie = new byte[COOKIE_SIZE];
        data.getBytes(ri, cookie);
        if (!CryptoBox.equal(cookie, 0, cookieNonce, 0, 16)) {
            throw new ZmtpProtocolException("CURVE server: INITIATE carries a cookie this connection did not issue");
        }
        byte[] cookiePlain = new byte[64];
        byte[] transientSecret = new byte[32];
        byte[] sessionKey = new byte[32];
        byte[] vouchKey = new byte[32];
        byte[] initiatePlain = null;
        long n = data.getLong(ri + COOKIE_SIZE);
        if (Long.compareUnsigned(n, helloNonce) <= 0) {
            throw new ZmtpProtocolException("CURVE server: INITIATE short nonce " + Long.toUnsignedString(n)
                    + " is not above HELLO's " + Long.toUnsignedString(helloNonce));
        }
        try {
            if (!openCookie(cookie, cookiePlain)) {
                throw new ZmtpProtocolException("CURVE server: the INITIATE cookie does not open (expired: cookie"
                        + " keys rotate, or forged)");
            }
            byte[] clientTransient = Arrays.copyOfRange(cookiePlain, 0, 32);
            System.arraycopy(cookiePlain, 32, transientSecret, 0, 32);
            if (!CryptoBox.beforenm(sessionKey, clientTransient, transientSecret)) {
                throw new ZmtpProtocolException("CURVE server: unusable transient key in the cookie");
            }
            int boxLen = len - COOKIE_SIZE - 8;
            byte[] initiateBox = new byte[boxLen];
            data.getBytes(ri + COOKIE_SIZE + 8, initiateBox);
            initiatePlain = new byte[boxLen - CryptoBox.MAC_BYTES];
            if (!box.open(sessionKey, nonce(INITIATE_NONCE, n), initiateBox, 0, boxLen, initiatePlain, 0)) {
                throw new ZmtpProtocolException("CURVE server: the INITIATE box does not open");
            }
            byte[] clientKey = Arrays.copyOfRange(initiatePlain, 0, 32);
            byte[] vouch = new byte[64];
            if (!CryptoBox.beforenm(vouchKey, clientKey, transientSecret)
                    || !box.open(vouchKey, nonce(VOUCH_NONCE, Arrays.copyOfRange(initiatePlain, 32, 48)),
                            initiatePlain, 48, 80, vouch, 0)) {
                throw new ZmtpProtocolException("CURVE server: the vouch does not open with the client key "
                        + Z85.encode(clientKey));
            }
            Arrays.fill(transientSecret, (byte) 0);
            if (!CryptoBox.equal(vouch, 0, clientTransient, 0, 32)) {
                throw new ZmtpProtocolException("CURVE server: the vouch is for another transient key");
            }
            if (!CryptoBox.equal(vouch, 32, keys.publicKeyBytes(), 0, 32)) {
                throw new ZmtpProtocolException("CURVE server: the vouch is for another server");
            }
            state = State.DONE;
            cookieNonce = null;
            // The metadata is decoded only once the authenticator has let the client in, so an
            // unauthenticated client cannot make us parse it.
            authenticate(clientKey, initiatePlain, sessionKey, n);
        } finally {
            Arrays.fill(cookiePlain, (byte) 0);
            Arrays.fill(transientSecret, (byte) 0);
            Arrays.fill(sessionKey, (byte) 0);
            Arrays.fill(vouchKey, (byte) 0);
            if (initiatePlain != null) {
                Arrays.fill(initiatePlain, (byte) 0);
            }
        }
    }

    private boolean openCookie(byte[] cookie, byte[] plain) {
        byte[] n = nonce(COOKIE_NONCE, Arrays.copyOf(cookie, 16));
        for (CookieKeys.Key k : cookies.openingKeys()) {
            if (box.open(k.bytes, n, cookie, 16, 80, plain, 0)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Asks the authenticator about the client; READY goes out once it allows. Meanwhile only
     * what READY and the cipher need is held: a copy of the session key and the client's
     * metadata, still undecoded.
     */
    private void authenticate(byte[] clientKey, byte[] initiatePlain, byte[] sessionKey, long peerNonce) {
        AuthRequest request = AuthRequest.curve(session.remoteAddress(), session.zapDomain(), null,
                session.localRoutingId(), clientKey);
        heldSessionKey = sessionKey.clone();
        heldMetadata = Arrays.copyOfRange(initiatePlain, 128, initiatePlain.length);
        Authentication.ask(session, authenticator, request, result -> allowed(result, peerNonce));
    }

    private void allowed(AuthResult result, long peerNonce) throws ZmtpProtocolException {
        byte[] sessionKey = heldSessionKey;
        byte[] metadata = heldMetadata;
        heldSessionKey = null;
        heldMetadata = null;
        try {
            // Checked before READY goes out: a peer we cannot talk to gets ERROR, not READY.
            ZmtpMetadata peer = session.decodePeerMetadata(io.netty.buffer.Unpooled.wrappedBuffer(metadata));
            // READY = short nonce + Box[metadata](S' -> C'); our short nonces start at 1.
            long n = 1;
            ZmtpMetadata local = session.localMetadata();
            byte[] meta = new byte[local.encodedSize()];
            ByteBuf m = io.netty.buffer.Unpooled.wrappedBuffer(meta);
            m.writerIndex(0);
            local.encode(m);
            byte[] ready = new byte[8 + CryptoBox.MAC_BYTES + meta.length];
            CurveLayout.putLong(ready, 0, n);
            box.seal(sessionKey, nonce(READY_NONCE, n), meta, 0, meta.length, ready, 8);
            ByteBuf out = session.alloc().buffer(ready.length);
            try {
                out.writeBytes(ready);
                session.sendCommand(ZmtpWire.READY, out);
            } finally {
                out.release();
            }
            CurveFrameCipher cipher = new CurveFrameCipher(session.alloc(), box, sessionKey, false, n + 1, peerNonce);
            box = null; // the cipher owns it now
            session.complete(Authentication.withProperties(peer, result), result.userId(), cipher);
        } finally {
            Arrays.fill(sessionKey, (byte) 0);
            Arrays.fill(metadata, (byte) 0);
        }
    }

    static long getLong(byte[] b, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[off + i] & 0xFF);
        }
        return v;
    }

    @Override
    public void close() {
        cookieNonce = null;
        if (heldSessionKey != null) {
            Arrays.fill(heldSessionKey, (byte) 0);
            heldSessionKey = null;
        }
        heldMetadata = null;
        if (box != null) {
            box.wipe();
            box = null;
        }
    }
}
