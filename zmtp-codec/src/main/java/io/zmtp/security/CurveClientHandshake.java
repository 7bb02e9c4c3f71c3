package io.zmtp.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.zmtp.wire.ZmtpCommand;
import io.zmtp.wire.ZmtpMetadata;
import io.zmtp.wire.ZmtpProtocolException;
import io.zmtp.wire.ZmtpWire;
import org.bouncycastle.math.ec.rfc7748.X25519;

import java.util.Arrays;
import io.zmtp.wire.HandshakeSession;
import io.zmtp.wire.MechanismHandshake;

import static io.zmtp.security.CurveLayout.COOKIE_SIZE;
import static io.zmtp.security.CurveLayout.HELLO;
import static io.zmtp.security.CurveLayout.HELLO_DATA;
import static io.zmtp.security.CurveLayout.HELLO_NONCE;
import static io.zmtp.security.CurveLayout.HELLO_PADDING;
import static io.zmtp.security.CurveLayout.INITIATE;
import static io.zmtp.security.CurveLayout.INITIATE_NONCE;
import static io.zmtp.security.CurveLayout.READY_MIN_DATA;
import static io.zmtp.security.CurveLayout.READY_NONCE;
import static io.zmtp.security.CurveLayout.VOUCH_NONCE;
import static io.zmtp.security.CurveLayout.WELCOME;
import static io.zmtp.security.CurveLayout.WELCOME_DATA;
import static io.zmtp.security.CurveLayout.WELCOME_NONCE;
import static io.zmtp.security.CurveLayout.nonce;

/** The CURVE client side of one connection: HELLO, then WELCOME -> INITIATE, then READY. */
final class CurveClientHandshake implements MechanismHandshake {
    private enum State { START, EXPECT_WELCOME, EXPECT_READY, DONE }

    private final HandshakeSession session;
    private final CurveKeyPair keys;
    private final byte[] serverKey;
    private final java.security.SecureRandom random;
    /** Used for every box of this connection, then handed to the frame cipher. */
    private CryptoBox box = new CryptoBox();

    private State state = State.START;
    /** c' and C': this connection's transient key pair. */
    private final byte[] transientSecret = new byte[32];
    private final byte[] transientPublic = new byte[32];
    /** Key of the boxes between C' and S (HELLO, WELCOME). */
    private final byte[] helloKey = new byte[32];
    /** Key of the boxes between C' and S' (INITIATE, READY, MESSAGE). */
    private final byte[] sessionKey = new byte[32];
    /** The next short nonce we send. */
    private long nextNonce = 1;

    CurveClientHandshake(HandshakeSession session, CurveKeyPair keys, byte[] serverKey, java.security.SecureRandom random) {
        this.session = session;
        this.keys = keys;
        this.serverKey = serverKey;
        this.random = random;
    }

    @Override
    public void start() throws ZmtpProtocolException {
        PlainMechanism.checkRoles(session, false, CurveLayout.NAME);
        X25519.generatePrivateKey(random, transientSecret);
        X25519.scalarMultBase(transientSecret, 0, transientPublic, 0);
        if (!CryptoBox.beforenm(helloKey, serverKey, transientSecret)) {
            throw new ZmtpProtocolException("CURVE client: the server public key is not a usable Curve25519 key");
        }
        long n = nextNonce++;
        byte[] hello = new byte[HELLO_DATA];
        hello[0] = 1; // version 1.0
        hello[1] = 0;
        int off = 2 + HELLO_PADDING;
        System.arraycopy(transientPublic, 0, hello, off, 32);
        CurveLayout.putLong(hello, off + 32, n);
        box.seal(helloKey, nonce(HELLO_NONCE, n), new byte[64], 0, 64, hello, off + 40);
        state = State.EXPECT_WELCOME;
        send(HELLO, hello);
    }

    @Override
    public void onCommand(ZmtpCommand command) throws ZmtpProtocolException {
        switch (state) {
            case EXPECT_WELCOME:
                expect(command, WELCOME);
                onWelcome(command.data());
                break;
            case EXPECT_READY:
                expect(command, ZmtpWire.READY);
                onReady(command.data());
                break;
            default:
                throw new ZmtpProtocolException("CURVE client: unexpected " + io.zmtp.wire.FrameText.escape(command.name()));
        }
    }

    private void expect(ZmtpCommand command, String name) throws ZmtpProtocolException {
        if (!command.is(name)) {
            throw new ZmtpProtocolException(PlainMechanism.unexpected(CurveLayout.NAME, name, command.name()));
        }
    }

    private void onWelcome(ByteBuf data) throws ZmtpProtocolException {
        if (data.readableBytes() != WELCOME_DATA) {
            throw new ZmtpProtocolException("CURVE client: WELCOME of " + (data.readableBytes() + 8)
                    + " bytes (it is 168)");
        }
        byte[] welcome = new byte[WELCOME_DATA];
        data.getBytes(data.readerIndex(), welcome);
        byte[] plain = new byte[128];
        byte[] welcomeNonce = nonce(WELCOME_NONCE, Arrays.copyOfRange(welcome, 0, 16));
        if (!box.open(helloKey, welcomeNonce, welcome, 16, 144, plain, 0)) {
            throw new ZmtpProtocolException("CURVE client: the WELCOME box does not open (not from the server we expect)");
        }
        Arrays.fill(helloKey, (byte) 0);
        byte[] serverTransient = Arrays.copyOfRange(plain, 0, 32);
        if (!CryptoBox.beforenm(sessionKey, serverTransient, transientSecret)) {
            throw new ZmtpProtocolException("CURVE client: the server's transient key is not usable");
        }

        // vouch = 16-byte nonce + Box[C' + S](C -> S')
        byte[] vouchKey = new byte[32];
        CryptoBox.beforenm(vouchKey, serverTransient, keys.secretKeyBytes());
        byte[] vouchTail = new byte[16];
        random.nextBytes(vouchTail);
        byte[] vouchPlain = new byte[64];
        System.arraycopy(transientPublic, 0, vouchPlain, 0, 32);
        System.arraycopy(serverKey, 0, vouchPlain, 32, 32);

        ZmtpMetadata local = session.localMetadata();
        int metaLen = local.encodedSize();
        byte[] initiatePlain = new byte[128 + metaLen];
        System.arraycopy(keys.publicKeyBytes(), 0, initiatePlain, 0, 32);
        System.arraycopy(vouchTail, 0, initiatePlain, 32, 16);
        box.seal(vouchKey, nonce(VOUCH_NONCE, vouchTail), vouchPlain, 0, 64, initiatePlain, 48);
        Arrays.fill(vouchKey, (byte) 0);
        ByteBuf meta = Unpooled.wrappedBuffer(initiatePlain, 128, metaLen);
        meta.writerIndex(0);
        local.encode(meta);

        long n = nextNonce++;
        byte[] initiate = new byte[COOKIE_SIZE + 8 + 16 + initiatePlain.length];
        System.arraycopy(plain, 32, initiate, 0, COOKIE_SIZE);
        CurveLayout.putLong(initiate, COOKIE_SIZE, n);
        box.seal(sessionKey, nonce(INITIATE_NONCE, n), initiatePlain, 0, initiatePlain.length, initiate, COOKIE_SIZE + 8);
        Arrays.fill(plain, (byte) 0);
        state = State.EXPECT_READY;
        send(INITIATE, initiate);
    }

    private void send(String name, byte[] data) {
        ByteBuf b = Unpooled.wrappedBuffer(data);
        try {
            session.sendCommand(name, b);
        } finally {
            b.release();
        }
    }

    private void onReady(ByteBuf data) throws ZmtpProtocolException {
        int len = data.readableBytes();
        if (len < READY_MIN_DATA) {
            throw new ZmtpProtocolException("CURVE client: READY of " + (len + 6) + " bytes (at least 30)");
        }
        int ri = data.readerIndex();
        long n = data.getLong(ri);
        if (n == 0) {
            throw new ZmtpProtocolException("CURVE client: READY with short nonce 0");
        }
        ByteBuf meta = session.alloc().heapBuffer(len - 8 - CryptoBox.MAC_BYTES);
        try {
            if (!box.open(sessionKey, nonce(READY_NONCE, n), data, ri + 8, len - 8, meta)) {
                throw new ZmtpProtocolException("CURVE client: the READY box does not open");
            }
            ZmtpMetadata peer = session.decodePeerMetadata(meta);
            state = State.DONE;
            CurveFrameCipher cipher = new CurveFrameCipher(session.alloc(), box, sessionKey, true, nextNonce, n);
            box = null; // the cipher owns it now
            Arrays.fill(transientSecret, (byte) 0);
            session.complete(peer, null, cipher);
        } finally {
            meta.release();
        }
    }

    @Override
    public void close() {
        Arrays.fill(transientSecret, (byte) 0);
        Arrays.fill(helloKey, (byte) 0);
        Arrays.fill(sessionKey, (byte) 0);
        if (box != null) {
            box.wipe();
            box = null;
        }
    }
}
