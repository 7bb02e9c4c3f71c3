package io.zmtp.wire;

/**
 * A ZMTP security mechanism as configured for one socket (NULL, PLAIN client or server, CURVE
 * client or server). It is shared by all of that socket's connections and creates one
 * {@link MechanismHandshake} per connection.
 */
public interface Mechanism {

    /** The name in the greeting's mechanism field: "NULL", "PLAIN" or "CURVE". */
    String name();

    /** The greeting's as-server flag: true for the server role of PLAIN and CURVE. */
    boolean asServer();

    /** A new handshake for one connection, after both greetings have been exchanged. */
    MechanismHandshake newHandshake(HandshakeSession session);
}
