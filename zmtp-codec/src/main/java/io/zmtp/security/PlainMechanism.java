package io.zmtp.security;

import io.netty.buffer.ByteBuf;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.ZmtpCommand;
import io.zmtp.wire.ZmtpMetadata;
import io.zmtp.wire.ZmtpProtocolException;
import io.zmtp.wire.ZmtpWire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import io.zmtp.wire.HandshakeSession;
import io.zmtp.wire.Mechanism;
import io.zmtp.wire.MechanismHandshake;

/**
 * The PLAIN mechanism (24/ZMTP-PLAIN): a user name and password, sent in clear text, checked by
 * the server's {@link Authenticator}. Use it on trusted networks only; it authenticates but does
 * not encrypt.
 *
 * <pre>
 * client (as-server 0)                 server (as-server 1)
 *   HELLO user, password        --&gt;
 *                               &lt;--      WELCOME        (or ERROR "400": refused)
 *   INITIATE metadata           --&gt;
 *                               &lt;--      READY metadata
 * </pre>
 * The client's user id (from the authenticator) reaches the server's application as the
 * {@code User-Id} property of the handshake event and of every message. Data frames travel as
 * ordinary frames.
 *
 * <p><b>Roles.</b> We announce as-server 1 as the server and 0 as the client. libzmq announces 0
 * in both roles, so a client accepts a peer announcing 0; a server refuses a peer that also
 * announces 1, and two clients fail on each other's HELLO.
 *
 * <p><b>libzmq's PLAIN ERROR.</b> libzmq (4.2.3 and later, through 4.3.x) writes its PLAIN ERROR
 * command as {@code 5E "RROR"} instead of {@code 05 "ERROR"} (a C hex escape swallows the E) and
 * its PLAIN client only recognises that form. We send the correct ERROR; a libzmq PLAIN client we
 * refuse therefore reports a protocol failure rather than an authentication failure, but it is
 * refused all the same. The codec accepts libzmq's form when it receives it, so our client
 * reports libzmq's refusal as the ERROR it is.
 */
public final class PlainMechanism implements Mechanism {
    public static final String NAME = "PLAIN";
    private static final String HELLO = "HELLO";
    private static final String WELCOME = "WELCOME";
    private static final String INITIATE = "INITIATE";

    private final byte[] username;
    private final byte[] password;
    private final Authenticator authenticator;

    private PlainMechanism(byte[] username, byte[] password, Authenticator authenticator) {
        this.username = username;
        this.password = password;
        this.authenticator = authenticator;
    }

    /**
     * A PLAIN client presenting {@code username} and {@code password} (UTF-8, each up to 255 bytes).
     */
    public static PlainMechanism client(String username, String password) {
        byte[] u = username.getBytes(StandardCharsets.UTF_8);
        byte[] p = password.getBytes(StandardCharsets.UTF_8);
        if (u.length > 255 || p.length > 255) {
            throw new IllegalArgumentException("PLAIN user name and password are at most 255 bytes each");
        }
        return new PlainMechanism(u, p, null);
    }

    /** A PLAIN server asking {@code authenticator} about every client. */
    public static PlainMechanism server(Authenticator authenticator) {
        return new PlainMechanism(null, null, Objects.requireNonNull(authenticator, "authenticator"));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean asServer() {
        return authenticator != null;
    }

    @Override
    public MechanismHandshake newHandshake(HandshakeSession session) {
        return asServer() ? new ServerHandshake(session) : new ClientHandshake(session);
    }

    /** Never shows the password. */
    @Override
    public String toString() {
        return asServer() ? "PLAIN server (" + authenticator + ")"
                : "PLAIN client (user '" + new String(username, StandardCharsets.UTF_8) + "')";
    }

    /**
     * The as-server flags must differ. libzmq always announces 0, even as a PLAIN or CURVE server
     * (libzmq issue 3863), so a client cannot hold a 0 against its peer; only two peers that both
     * announce the server role are refused here. Two clients fail on the first command instead
     * (each receives the other's HELLO).
     */
    static void checkRoles(HandshakeSession session, boolean weAreServer, String mechanism)
            throws ZmtpProtocolException {
        if (weAreServer && session.peerAsServer()) {
            throw new ZmtpProtocolException(mechanism + " handshake: both peers claim the server role"
                    + " (as-server flag 1 on both sides)");
        }
    }

    /** The message for a client that receives a command other than the one it waits for. */
    static String unexpected(String mechanism, String expected, String got) {
        return mechanism + " client: expected " + expected + ", got " + io.zmtp.wire.FrameText.escape(got)
                + ("HELLO".equals(got) ? " (the peer is a " + mechanism + " client too)" : "");
    }

    private final class ClientHandshake implements MechanismHandshake {
        private final HandshakeSession session;
        private String expected = WELCOME;

        ClientHandshake(HandshakeSession session) {
            this.session = session;
        }

        @Override
        public void start() throws ZmtpProtocolException {
            checkRoles(session, false, NAME);
            ByteBuf hello = session.alloc().buffer(2 + username.length + password.length);
            try {
                hello.writeByte(username.length).writeBytes(username);
                hello.writeByte(password.length).writeBytes(password);
                session.sendCommand(HELLO, hello);
            } finally {
                hello.setZero(0, hello.capacity());
                hello.release();
            }
        }

        @Override
        public void onCommand(ZmtpCommand command) throws ZmtpProtocolException {
            if (!command.is(expected)) {
                throw new ZmtpProtocolException(unexpected(NAME, expected, command.name()));
            }
            if (expected.equals(WELCOME)) {
                if (command.data().isReadable()) {
                    throw new ZmtpProtocolException("PLAIN client: WELCOME with " + command.data().readableBytes()
                            + " bytes of data (it has none)");
                }
                expected = ZmtpWire.READY;
                session.sendMetadata(INITIATE);
            } else {
                expected = "";
                session.complete(session.decodePeerMetadata(command.data()), null, null);
            }
        }
    }

    private final class ServerHandshake implements MechanismHandshake {
        /** Between HELLO and the authenticator's answer: any command is a protocol error. */
        private static final String WAITING = "the authenticator's answer";
        private final HandshakeSession session;
        private String expected = HELLO;
        private AuthResult allowed;

        ServerHandshake(HandshakeSession session) {
            this.session = session;
        }

        @Override
        public void start() throws ZmtpProtocolException {
            checkRoles(session, true, NAME);
        }

        @Override
        public void onCommand(ZmtpCommand command) throws ZmtpProtocolException {
            if (!command.is(expected)) {
                throw new ZmtpProtocolException("PLAIN server: expected " + expected + ", got " + io.zmtp.wire.FrameText.escape(command.name()));
            }
            if (expected.equals(HELLO)) {
                onHello(command.data());
            } else {
                // Checked before READY goes out: a peer we cannot talk to gets ERROR, not READY.
                ZmtpMetadata peer = session.decodePeerMetadata(command.data());
                expected = "";
                session.sendMetadata(ZmtpWire.READY);
                session.complete(Authentication.withProperties(peer, allowed), allowed.userId(), null);
            }
        }

        private void onHello(ByteBuf data) throws ZmtpProtocolException {
            int ri = data.readerIndex();
            int n = data.readableBytes();
            int userLen = n >= 1 ? data.getUnsignedByte(ri) : -1;
            int passLen = userLen >= 0 && n >= 2 + userLen ? data.getUnsignedByte(ri + 1 + userLen) : -1;
            if (passLen < 0 || n != 2 + userLen + passLen) {
                throw new ZmtpProtocolException("PLAIN server: malformed HELLO (" + n
                        + " bytes that are not user-length, user, password-length, password)");
            }
            byte[] user = new byte[userLen];
            data.getBytes(ri + 1, user);
            byte[] pass = new byte[passLen];
            data.getBytes(ri + 2 + userLen, pass);
            AuthRequest request = AuthRequest.plain(session.remoteAddress(), session.zapDomain(), null,
                    session.localRoutingId(), user, pass);
            Arrays.fill(pass, (byte) 0);
            expected = WAITING;
            Authentication.ask(session, authenticator, request, result -> {
                allowed = result;
                expected = INITIATE;
                session.sendCommand(WELCOME, null);
            });
        }
    }
}
