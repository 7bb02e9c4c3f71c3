package io.zmtp.patterns.freelance;

/**
 * What a Freelance server or client did (one CLI line each; what tests wait on). Servers, their
 * peers and request details are described with {@link io.zmtp.wire.FrameText} (escaped).
 */
public sealed interface FreelanceEvent {

    /** A server bound its endpoint; {@code identity} is its routing id (model 3), else empty. */
    record Listening(int model, String endpoint, String identity) implements FreelanceEvent {
        @Override
        public String toString() {
            return "I: model " + model + " server listening on " + endpoint
                    + (identity.isEmpty() ? "" : " as " + identity);
        }
    }

    /**
     * A server answered a request (or a PING); {@code detail} describes the request. Reported only
     * with {@code traceMessages} on (the command's --verbose).
     */
    record Answered(String detail) implements FreelanceEvent {
        @Override
        public String toString() {
            return "I: answered " + detail;
        }
    }

    /** A message a server or client could not use was dropped. */
    record Discarded(String reason) implements FreelanceEvent {
        @Override
        public String toString() {
            return "W: discarded " + reason;
        }
    }

    /** A client sent request {@code request} to {@code server}. */
    record Sent(long request, String server) implements FreelanceEvent {
        @Override
        public String toString() {
            return "I: request " + request + " sent to " + server;
        }
    }

    /** A server gave no reply in time or was lost; the request goes to the next one. */
    record FailedOver(long request, String server, String reason) implements FreelanceEvent {
        @Override
        public String toString() {
            return "W: no reply to request " + request + " from " + server + " (" + reason + "), trying another";
        }
    }

    /** Request {@code request} got its reply from {@code server}. */
    record Replied(long request, String server) implements FreelanceEvent {
        @Override
        public String toString() {
            return "I: request " + request + " answered by " + server;
        }
    }

    /** Request {@code request} failed: no server answered in time. */
    record Failed(long request, String reason) implements FreelanceEvent {
        @Override
        public String toString() {
            return "E: request " + request + " failed: " + reason;
        }
    }

    /** The agent heard from a server it took for dead or did not know alive yet (model 3). */
    record ServerAlive(String server) implements FreelanceEvent {
        @Override
        public String toString() {
            return "I: server " + server + " is alive";
        }
    }

    /** The agent takes a server for dead (silent for its time to live, or disconnected; model 3). */
    record ServerDead(String server, String reason) implements FreelanceEvent {
        @Override
        public String toString() {
            return "W: server " + server + " is dead (" + reason + ")";
        }
    }
}
