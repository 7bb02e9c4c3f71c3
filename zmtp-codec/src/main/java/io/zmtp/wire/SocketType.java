package io.zmtp.wire;

import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The ZeroMQ socket types that ZMTP 3.x peers announce in the {@code Socket-Type} property,
 * with what the wire needs to know of each: the table of valid pairs from 23/ZMTP, the code of a
 * ZMTP 2.0 greeting, and which types send an identity or subscriptions.
 *
 * <p>The class that implements a type is bound in the socket layer, by a switch over these
 * constants that the compiler checks is complete ({@code io.zmtp.socket.SocketTypes}); the wire
 * layer never names it. The tables below are switches the compiler checks the same way, so a new
 * constant does not compile until it has its peers and its class.
 */
public enum SocketType {
    PAIR(0), PUB(1), SUB(2), REQ(3), REP(4), DEALER(5), ROUTER(6), PULL(7), PUSH(8), XPUB(9), XSUB(10),
    /**
     * libzmq's ZMQ_STREAM: raw TCP peers that speak no ZMTP at all (no greeting, no frames), each
     * connection with a routing id of its own. It has no ZMTP peer type: {@link #validPeers()} is
     * empty, and a ZMTP peer announcing it is refused by every other type.
     */
    STREAM(-1),
    /*
     * The thread-safe types of ZMTP 3.1 (libzmq's drafts): single-frame messages only, and no
     * ZMTP 2.0 code. Their peers are those of libzmq's check_socket_type (mechanism.cpp), which
     * adds PEER and CHANNEL to 37/ZMTP's table.
     */
    /** RFC 41: replies to a CLIENT through the routing id each received message carries. */
    SERVER(-1),
    /** RFC 41: round-robin out to its SERVERs, fair-queued in. */
    CLIENT(-1),
    /** RFC 48: publishes each message to the DISH peers that joined its group. */
    RADIO(-1),
    /** RFC 48: receives the messages of the groups it joined. */
    DISH(-1),
    /** RFC 49: fair-queued in from SCATTERs. */
    GATHER(-1),
    /** RFC 49: round-robin out to GATHERs. */
    SCATTER(-1),
    /** RFC 51: SERVER-like routing among PEERs; connecting returns the peer's routing id. */
    PEER(-1),
    /** RFC 52: one peer, as PAIR, single frames. */
    CHANNEL(-1);

    private final byte[] wireName = name().getBytes(StandardCharsets.US_ASCII);
    private final int zmtp20Code;

    /** @param zmtp20Code the socket-type byte of a ZMTP 2.0 greeting (15/ZMTP), or -1 for a type 2.0 did not have */
    SocketType(int zmtp20Code) {
        this.zmtp20Code = zmtp20Code;
    }

    /** The name as it travels in the Socket-Type property. */
    public byte[] wireName() {
        return wireName.clone();
    }

    /** The socket-type byte of a ZMTP 2.0 greeting, or -1 for a type 2.0 did not have. */
    int zmtp20Code() {
        return zmtp20Code;
    }

    /** Whether a peer of type {@code peer} may talk to a socket of this type (23/ZMTP's table). */
    public boolean isCompatibleWith(SocketType peer) {
        return validPeers().contains(peer);
    }

    /** The peer types this type accepts. */
    public Set<SocketType> validPeers() {
        return switch (this) {
            case REQ -> EnumSet.of(REP, ROUTER);
            case REP -> EnumSet.of(REQ, DEALER);
            case DEALER -> EnumSet.of(REP, DEALER, ROUTER);
            case ROUTER -> EnumSet.of(REQ, DEALER, ROUTER);
            case PUB, XPUB -> EnumSet.of(SUB, XSUB);
            case SUB, XSUB -> EnumSet.of(PUB, XPUB);
            case PUSH -> EnumSet.of(PULL);
            case PULL -> EnumSet.of(PUSH);
            case PAIR -> EnumSet.of(PAIR);
            case STREAM -> EnumSet.noneOf(SocketType.class);
            case SERVER -> EnumSet.of(CLIENT);
            case CLIENT -> EnumSet.of(SERVER);
            case RADIO -> EnumSet.of(DISH);
            case DISH -> EnumSet.of(RADIO);
            case GATHER -> EnumSet.of(SCATTER);
            case SCATTER -> EnumSet.of(GATHER);
            case PEER -> EnumSet.of(PEER);
            case CHANNEL -> EnumSet.of(CHANNEL);
        };
    }

    /**
     * The type a peer that does not announce its own is taken to be: the usual partner of this
     * type (a REQ's REP, a DEALER's ROUTER). ZWS 2.0 without a mechanism (jszmq, libzmq's
     * fallback) sends no Socket-Type, and libzmq does not check it either.
     */
    public SocketType assumedPeer() {
        return switch (this) {
            case PUB, XPUB -> SUB;
            case SUB, XSUB -> PUB;
            case REQ -> REP;
            case REP -> REQ;
            case DEALER -> ROUTER;
            case ROUTER -> DEALER;
            case PUSH -> PULL;
            case PULL -> PUSH;
            case PAIR -> PAIR;
            case STREAM -> STREAM;
            case SERVER -> CLIENT;
            case CLIENT -> SERVER;
            case RADIO -> DISH;
            case DISH -> RADIO;
            case GATHER -> SCATTER;
            case SCATTER -> GATHER;
            case PEER -> PEER;
            case CHANNEL -> CHANNEL;
        };
    }

    /** Whether this type sends its routing identity to peers (only REQ, DEALER and ROUTER do). */
    public boolean sendsIdentity() {
        return this == REQ || this == DEALER || this == ROUTER;
    }

    /** Whether this type sends subscriptions upstream. */
    public boolean isSubscriber() {
        return this == SUB || this == XSUB;
    }

    /** Whether this type filters outgoing messages by its peers' subscriptions. */
    public boolean isPublisher() {
        return this == PUB || this == XPUB;
    }

    /**
     * Whether a socket of this type hands messages to its application: every type but PUB, whose
     * peers send it subscriptions only, RADIO, whose peers send it JOIN and LEAVE only, and PUSH
     * and SCATTER, whose peers send them nothing.
     */
    public boolean deliversMessages() {
        return this != PUB && this != RADIO && this != PUSH && this != SCATTER;
    }

    /**
     * Whether this is one of ZMTP 3.1's thread-safe types (CLIENT, SERVER, RADIO, DISH, GATHER,
     * SCATTER, PEER, CHANNEL), whose messages are single frames.
     */
    public boolean isSingleFrame() {
        return ordinal() >= SERVER.ordinal();
    }

    /** Whether this type's connections carry raw bytes instead of ZMTP (STREAM). */
    public boolean isRaw() {
        return this == STREAM;
    }

    /**
     * Parses a Socket-Type property value; returns null for a name that is not one of ours.
     */
    public static SocketType fromWireName(byte[] value) {
        if (value == null || value.length == 0 || value.length > 7) {
            return null;
        }
        String name = new String(value, StandardCharsets.US_ASCII);
        for (SocketType t : values()) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        return null;
    }

    /** Parses a type name given by a user, case-insensitively. */
    public static SocketType parse(String name) {
        return valueOf(name.trim().toUpperCase(Locale.ROOT));
    }
}
