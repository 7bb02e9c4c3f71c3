package io.zmtp.security;

import io.zmtp.wire.HandshakeSession;
import io.zmtp.wire.Mechanism;
import io.zmtp.wire.MechanismHandshake;
import io.zmtp.wire.ZmtpCommand;
import io.zmtp.wire.ZmtpMetadata;
import io.zmtp.wire.ZmtpProtocolException;
import io.zmtp.wire.ZmtpWire;

import java.util.Objects;

/**
 * The NULL mechanism with an {@link Authenticator}: no credentials and no encryption, but each
 * peer's address (and the socket's ZAP domain) is put to the authenticator before the connection
 * opens, as libzmq does for NULL when ZMQ_ZAP_DOMAIN is set. Address rules
 * ({@link AddressRules}) are what it is usually given.
 *
 * <p>On the wire it is NULL: each side sends READY. This side sends its READY only once the
 * authenticator has allowed the peer, and a refused peer gets ERROR with the status code instead
 * (none for 300), as libzmq's NULL does; the peer's READY may arrive before the answer and is
 * kept (decoded, within the metadata limits) until then.
 */
public final class AuthenticatingNullMechanism implements Mechanism {
    private final Authenticator authenticator;

    private AuthenticatingNullMechanism(Authenticator authenticator) {
        this.authenticator = authenticator;
    }

    /** NULL, asking {@code authenticator} about every peer. */
    public static AuthenticatingNullMechanism of(Authenticator authenticator) {
        return new AuthenticatingNullMechanism(Objects.requireNonNull(authenticator, "authenticator"));
    }

    @Override
    public String name() {
        return "NULL";
    }

    @Override
    public boolean asServer() {
        return false;
    }

    @Override
    public MechanismHandshake newHandshake(HandshakeSession session) {
        return new MechanismHandshake() {
            private AuthResult allowed;
            private ZmtpMetadata peer;

            @Override
            public void start() {
                AuthRequest request = AuthRequest.nullMechanism(session.remoteAddress(), session.zapDomain(), null,
                        session.localRoutingId());
                Authentication.ask(session, authenticator, request, result -> {
                    allowed = result;
                    session.sendMetadata(ZmtpWire.READY);
                    if (peer != null) {
                        session.complete(Authentication.withProperties(peer, allowed), allowed.userId(), null);
                    }
                });
            }

            @Override
            public void onCommand(ZmtpCommand command) throws ZmtpProtocolException {
                if (!command.is(ZmtpWire.READY) || peer != null) {
                    throw new ZmtpProtocolException("NULL handshake: expected READY, got "
                            + io.zmtp.wire.FrameText.escape(command.name()));
                }
                peer = session.decodePeerMetadata(command.data());
                if (allowed != null) {
                    session.complete(Authentication.withProperties(peer, allowed), allowed.userId(), null);
                }
            }
        };
    }

    @Override
    public String toString() {
        return "NULL (" + authenticator + ")";
    }
}
