package io.zmtp.wire;

/**
 * The NULL mechanism: no security. Each peer sends READY with its properties as soon as the
 * greetings are exchanged (libzmq does so in both roles, which serves 23/ZMTP's symmetric and
 * 37/ZMTP's client-first handshakes alike) and the handshake ends on the peer's READY.
 */
public final class NullMechanism implements Mechanism {
    public static final NullMechanism INSTANCE = new NullMechanism();

    private NullMechanism() {
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
            @Override
            public void start() {
                session.sendMetadata(ZmtpWire.READY);
            }

            @Override
            public void onCommand(ZmtpCommand command) throws ZmtpProtocolException {
                if (!command.is(ZmtpWire.READY)) {
                    throw new ZmtpProtocolException("NULL handshake: expected READY, got " + io.zmtp.wire.FrameText.escape(command.name()));
                }
                session.complete(session.decodePeerMetadata(command.data()), null, null);
            }
        };
    }

    @Override
    public String toString() {
        return "NULL";
    }
}
