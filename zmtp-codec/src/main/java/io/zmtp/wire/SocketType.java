package io.zmtp.wire;

import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The ZeroMQ socket types that ZMTP 3.x peers announce in the {@code Socket-Type} property,
 * with the table of valid pairs from 23/ZMTP.
 */
public enum SocketType {
    PAIR("PairSocket"), PUB("PubSocket"), SUB("SubSocket"), REQ("ReqSocket"), REP("RepSocket"),
    DEALER("DealerSocket"), ROUTER("RouterSocket"), PULL("PullSocket"), PUSH("PushSocket"),
    XPUB("XPubSocket"), XSUB("XSubSocket"),
    /**
     * libzmq's ZMQ_STREAM: raw TCP peers that speak no ZMTP at all (no greeting, no frames), each
     * connection with a routing id of its own. It has no ZMTP peer type: {@link #validPeers()} is
     * empty, and a ZMTP peer announcing it is refused by every other type.
     */
    STREAM("StreamSocket");

    private final byte[] wireName = name().getBytes(StandardCharsets.US_ASCII);
    private final String socketClass;

    /**
     * @param socketClass the simple name of the class in {@code io.zmtp.socket} that implements
     *     the type, with a constructor {@code (ZmtpContext, SocketOptions, EventLoop)}; sockets are
     *     made through it, so a new type takes its constant here and its class there, nothing else
     *     (named, not referenced: the wire layer does not depend on the socket layer)
     */
    SocketType(String socketClass) {
        this.socketClass = socketClass;
    }

    /** The simple name of the {@code io.zmtp.socket} class that implements this type. */
    public String socketClass() {
        return socketClass;
    }

    /** The name as it travels in the Socket-Type property. */
    public byte[] wireName() {
        return wireName.clone();
    }

    /** Whether a peer of type {@code peer} may talk to a socket of this type (23/ZMTP's table). */
    public boolean isCompatibleWith(SocketType peer) {
        return validPeers().contains(peer);
    }

    /** The peer types this type accepts. */
    public Set<SocketType> validPeers() {
        switch (this) {
            case REQ: return EnumSet.of(REP, ROUTER);
            case REP: return EnumSet.of(REQ, DEALER);
            case DEALER: return EnumSet.of(REP, DEALER, ROUTER);
            case ROUTER: return EnumSet.of(REQ, DEALER, ROUTER);
            case PUB: case XPUB: return EnumSet.of(SUB, XSUB);
            case SUB: case XSUB: return EnumSet.of(PUB, XPUB);
            case PUSH: return EnumSet.of(PULL);
            case PULL: return EnumSet.of(PUSH);
            case PAIR: return EnumSet.of(PAIR);
            case STREAM: return EnumSet.noneOf(SocketType.class);
            default: throw new AssertionError(this);
        }
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

    /** Whether this type's connections carry raw bytes instead of ZMTP (STREAM). */
    public boolean isRaw() {
        return this == STREAM;
    }

    /**
     * Parses a Socket-Type property value; returns null for a name that is not one of ours
     * (ZMTP 3.1's thread-safe types, or garbage).
     */
    public static SocketType fromWireName(byte[] value) {
        if (value == null || value.length == 0 || value.length > 6) {
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
