package io.zmtp.socket;

import io.zmtp.wire.ZmtpMessage;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;

/**
 * A RADIO's index of which peers joined which groups (RFC 48): exact names, not prefixes (the
 * {@link Distributor}'s trie is for those). Per peer a group is a set member (a second JOIN of a
 * group changes nothing, one LEAVE ends it; a libzmq DISH never sends either twice). A peer's
 * groups are bounded by the socket's {@link SocketOptions#maxSubscriptions()}, as a publisher's
 * subscribers' prefixes are: {@link #refusal} says when a JOIN passes it, and the socket then
 * closes that peer. The fan-out itself is the Distributor's: each peer at most once, a peer at its
 * send high-water mark misses the message (as PUB's subscribers do).
 */
final class GroupIndex {
    /** The peers of each group that some peer joined; a group nobody joined has no entry. */
    private final HashMap<String, ArrayList<Pipe>> members = new HashMap<>();
    private final int maxGroupsPerPeer;

    GroupIndex(SocketOptions options) {
        this.maxGroupsPerPeer = options.maxSubscriptions();
    }

    /** Why {@code pipe} may not join {@code group}, or null when it may (or already has). */
    String refusal(Pipe pipe, String group) {
        HashSet<String> mine = pipe.joinedGroups;
        if (mine == null || mine.size() < maxGroupsPerPeer || mine.contains(group)) {
            return null;
        }
        return "more than " + maxGroupsPerPeer + " groups joined by one peer";
    }

    /** {@code pipe} joined {@code group}. */
    void join(Pipe pipe, String group) {
        HashSet<String> mine = pipe.joinedGroups;
        if (mine == null) {
            mine = new HashSet<>();
            pipe.joinedGroups = mine;
        }
        if (mine.add(group)) {
            members.computeIfAbsent(group, g -> new ArrayList<>(2)).add(pipe);
        }
    }

    /** {@code pipe} left {@code group} (nothing happens if it had not joined it). */
    void leave(Pipe pipe, String group) {
        HashSet<String> mine = pipe.joinedGroups;
        if (mine != null && mine.remove(group)) {
            removeMember(pipe, group);
        }
    }

    /** Forgets a departed peer's groups. */
    void removeAll(Pipe pipe) {
        HashSet<String> mine = pipe.joinedGroups;
        if (mine == null) {
            return;
        }
        pipe.joinedGroups = null;
        for (String g : mine) {
            removeMember(pipe, g);
        }
    }

    private void removeMember(Pipe pipe, String group) {
        ArrayList<Pipe> peers = members.get(group);
        if (peers != null && peers.remove(pipe) && peers.isEmpty()) {
            members.remove(group);
        }
    }

    /**
     * Sends {@code msg} to the peers that joined its group and to every peer of {@code toAll}
     * (udp:// datagram peers, which cannot join); consumes it.
     */
    void send(ZmtpMessage msg, ArrayList<Pipe> toAll) {
        ArrayList<Pipe> joined = members.get(msg.group());
        if (joined != null) {
            Distributor.writeToEach(joined, msg);
        }
        if (!toAll.isEmpty()) {
            Distributor.writeToEach(toAll, msg);
        }
        msg.release();
    }

    /** How many distinct groups some peer has joined. */
    int groupCount() {
        return members.size();
    }
}
