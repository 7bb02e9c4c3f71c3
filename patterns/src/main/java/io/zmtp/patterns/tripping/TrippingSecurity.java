package io.zmtp.patterns.tripping;

import io.zmtp.security.Authenticator;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.socket.SocketOptions;

import java.util.Objects;

/**
 * The demonstrator's two sides of each hop: the options of the broker's ROUTERs and those of its
 * peers (the client and the worker), given to {@link TrippingBroker}, {@link TrippingWorker} and
 * {@link TrippingClient}.
 */
public record TrippingSecurity(SocketOptions broker, SocketOptions peers) {
    /** NULL on both hops (the defaults). */
    public static final TrippingSecurity NONE = new TrippingSecurity(SocketOptions.DEFAULTS, SocketOptions.DEFAULTS);

    public TrippingSecurity {
        Objects.requireNonNull(broker);
        Objects.requireNonNull(peers);
    }

    /**
     * CURVE on both hops with key pairs made now: the broker's ROUTERs are CURVE servers with one
     * key pair (any client key let in), the client and the worker CURVE clients with another.
     */
    public static TrippingSecurity curve() {
        CurveKeyPair brokerKeys = CurveKeyPair.generate();
        return new TrippingSecurity(
                SocketOptions.builder().mechanism(CurveMechanism.server(brokerKeys, Authenticator.allowAll())).build(),
                SocketOptions.builder().mechanism(CurveMechanism.client(brokerKeys.publicKey(), CurveKeyPair.generate()))
                        .build());
    }
}
