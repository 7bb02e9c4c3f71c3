package io.zmtp.patterns.binarystar;

import java.time.Duration;

/**
 * What a {@link BinaryStarServer} does, reported to its listener on its event loop; each
 * {@code toString} is the command's line (the guide's "I:"/"W:"/"E:" lines where it has one).
 */
public sealed interface BinaryStarEvent {

    /** Bound and connected: serving clients on {@code frontend}, publishing state on {@code statePublisher}. */
    record Listening(BinaryStarState role, String frontend, String statePublisher, String statePeer)
            implements BinaryStarEvent {
        @Override
        public String toString() {
            return "I: " + role.name().toLowerCase(java.util.Locale.ROOT) + " serving clients on " + frontend
                    + ", state on " + statePublisher + ", peer state from " + statePeer;
        }
    }

    /** The server changed state (became active, became passive). */
    record StateChanged(BinaryStarState from, BinaryStarState to, String reason) implements BinaryStarEvent {
        @Override
        public String toString() {
            return "I: " + reason + " (" + from + " -> " + to + ")";
        }
    }

    /** A client request arrived in a state that must not serve it: dropped. */
    record RequestRefused(BinaryStarState state, String reason) implements BinaryStarEvent {
        @Override
        public String toString() {
            return "W: client request refused: " + reason;
        }
    }

    /** The peer published nothing for the peer expiry (two heartbeats): it counts as gone. */
    record PeerLost(BinaryStarState state, Duration expiry) implements BinaryStarEvent {
        @Override
        public String toString() {
            return "W: no state from the peer for " + expiry.toMillis() + " ms, peer counts as gone";
        }
    }

    /** The peer's state was heard again after it had counted as gone (or for the first time). */
    record PeerHeard(BinaryStarState state, BinaryStarState peer) implements BinaryStarEvent {
        @Override
        public String toString() {
            return "I: peer is " + peer;
        }
    }

    /** A state message that is not one of the four states: dropped. */
    record InvalidState(String detail) implements BinaryStarEvent {
        @Override
        public String toString() {
            return "W: invalid state message from the peer dropped: " + detail;
        }
    }

    /** The pair is in a state that must not be (dual actives, dual passives, same role twice): the server stops. */
    record Fatal(BinaryStarState state, BinaryStarState peer, String reason) implements BinaryStarEvent {
        @Override
        public String toString() {
            return "E: fatal error - " + reason + ", aborting";
        }
    }

    /** A client request was handed to the application (only with {@code traceMessages}). */
    record Served(BinaryStarState state, String detail) implements BinaryStarEvent {
        @Override
        public String toString() {
            return "I: serving " + detail;
        }
    }
}
