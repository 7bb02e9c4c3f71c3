package io.zmtp.interop;

import io.zmtp.socket.SocketEvent;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import static io.zmtp.interop.ByteMessages.assertMessage;
import static io.zmtp.interop.ByteMessages.concat;
import static io.zmtp.interop.ByteMessages.msg;
import static io.zmtp.wire.SocketType.DEALER;
import static io.zmtp.wire.SocketType.PAIR;
import static io.zmtp.wire.SocketType.PULL;
import static io.zmtp.wire.SocketType.PUSH;
import static io.zmtp.wire.SocketType.REP;
import static io.zmtp.wire.SocketType.REQ;
import static io.zmtp.wire.SocketType.ROUTER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Every valid request-reply, pipeline and exclusive pair of socket types between our sockets and
 * real libzmq ones: each pair with our socket on either side, and with either side binding, over
 * tcp (DEALER-ROUTER over ipc as well). Each exchanges single- and multi-frame messages,
 * messages with empty frames and a 10 KB frame, and the envelopes are checked as each type
 * builds them: the routing ids a ROUTER shows (our identity seen by libzmq, libzmq's seen by
 * us), REQ's empty delimiter, REP's stripping of it.
 */
class SocketInteropTest extends LibzmqTestBase {
    /**
     * A valid pair: A sends first, B receives and (except PUSH-PULL) replies. The envelope lists
     * say what A puts in front of its body, what B sees in front of it, what B puts in front of
     * its reply and what A sees in front of that: "@A" and "@B" stand for A's and B's identity,
     * "" for an empty frame.
     */
    enum Pair {
        DEALER_ROUTER(DEALER, ROUTER, List.of(), List.of("@A"), List.of("@A"), List.of()),
        DEALER_DEALER(DEALER, DEALER, List.of(), List.of(), List.of(), List.of()),
        ROUTER_ROUTER(ROUTER, ROUTER, List.of("@B"), List.of("@A"), List.of("@A"), List.of("@B")),
        REQ_REP(REQ, REP, List.of(), List.of(), List.of(), List.of()),
        REQ_ROUTER(REQ, ROUTER, List.of(), List.of("@A", ""), List.of("@A", ""), List.of()),
        DEALER_REP(DEALER, REP, List.of(""), List.of(), List.of(), List.of("")),
        PUSH_PULL(PUSH, PULL, List.of(), List.of(), null, null),
        PAIR_PAIR(PAIR, PAIR, List.of(), List.of(), List.of(), List.of());

        final SocketType a;
        final SocketType b;
        final List<String> aSends;
        final List<String> bSees;
        final List<String> bSends;
        final List<String> aSees;

        Pair(SocketType a, SocketType b, List<String> aSends, List<String> bSees, List<String> bSends,
                List<String> aSees) {
            this.a = a;
            this.b = b;
            this.aSends = aSends;
            this.bSees = bSees;
            this.bSends = bSends;
            this.aSees = aSees;
        }

        @Override
        public String toString() {
            return a + "-" + b;
        }
    }

    static Stream<Arguments> pairs() {
        List<Arguments> l = new ArrayList<>();
        for (Pair p : Pair.values()) {
            for (String ours : p.a == p.b ? List.of("A") : List.of("A", "B")) {
                for (String binder : List.of("A", "B")) {
                    l.add(arguments(p, ours, binder, "tcp"));
                }
            }
        }
        for (String ours : List.of("A", "B")) {
            for (String binder : List.of("A", "B")) {
                l.add(arguments(Pair.DEALER_ROUTER, ours, binder, "ipc"));
            }
        }
        return l.stream();
    }

    /** The bodies every pair exchanges. */
    static List<List<byte[]>> bodies() {
        byte[] big = new byte[10_000];
        new Random(3).nextBytes(big);
        List<byte[]> bigMessage = new ArrayList<>(msg("big"));
        bigMessage.add(big);
        return List.of(msg("hello"), msg("a", "bb", "ccc"), msg(""), msg("x", "", "y", ""), msg("", "after empty"),
                bigMessage);
    }

    static String identity(String side, SocketType type) {
        return side + "-" + type.name().toLowerCase();
    }

    static List<byte[]> envelope(List<String> tokens, String idA, String idB) {
        List<byte[]> l = new ArrayList<>();
        for (String t : tokens) {
            l.add(ByteMessages.b(t.equals("@A") ? idA : t.equals("@B") ? idB : t));
        }
        return l;
    }

    SocketEnd end(SocketType type, boolean ours, String identity) {
        SocketEnd e = ours ? SocketEnd.ours(ctx, type, identity) : SocketEnd.libzmq(zmq, type, identity);
        ends.add(e);
        return e;
    }

    @ParameterizedTest(name = "{0}: ours is {1}, {2} binds, over {3}")
    @MethodSource("pairs")
    void pairExchangesMessages(Pair pair, String ours, String binder, String transport) {
        String idA = identity("A", pair.a);
        String idB = identity("B", pair.b);
        SocketEnd a = end(pair.a, ours.equals("A"), idA);
        SocketEnd b = end(pair.b, ours.equals("B"), idB);
        if (binder.equals("A")) {
            b.connect(a.bind(transport, tmp));
        } else {
            a.connect(b.bind(transport, tmp));
        }
        for (List<byte[]> body : bodies()) {
            a.send(concat(envelope(pair.aSends, idA, idB), body));
            assertMessage(concat(envelope(pair.bSees, idA, idB), body), b.recv(), b + " received from " + a);
            if (pair.bSends != null) {
                List<byte[]> reply = concat(msg("reply"), body);
                b.send(concat(envelope(pair.bSends, idA, idB), reply));
                assertMessage(concat(envelope(pair.aSees, idA, idB), reply), a.recv(), a + " received the reply");
            }
        }
    }

    /**
     * A peer with no identity gets one from the ROUTER: libzmq's for our anonymous DEALER, ours
     * for libzmq's. Either way it is 5 bytes starting with a zero byte, and replies reach the peer.
     */
    @ParameterizedTest(name = "ROUTER is ours: {0}")
    @ValueSource(booleans = {true, false})
    void routerNamesAnAnonymousPeer(boolean ourRouter) {
        SocketEnd router = end(ROUTER, ourRouter, null);
        SocketEnd dealer = end(DEALER, !ourRouter, null);
        dealer.connect(router.bind("tcp", tmp));
        dealer.send(msg("who am I"));
        List<byte[]> got = router.recv();
        assertNotNull(got);
        byte[] id = got.get(0);
        assertEquals(5, id.length, "generated routing id " + ByteMessages.show(got));
        assertEquals(0, id[0], "a generated routing id starts with a zero byte");
        router.send(List.of(id, ByteMessages.b("you are " + id.length + " bytes")));
        assertMessage(msg("you are 5 bytes"), dealer.recv(), "reply through the generated id");
    }

    /** A socket-type mismatch with libzmq is fatal for our connecting socket: it stops reconnecting. */
    @Test
    void incompatibleLibzmqPeerStopsOurReconnects() {
        SocketEnd.Libzmq theirs = (SocketEnd.Libzmq) end(PUSH, false, null);
        String ep = theirs.bind("tcp", tmp);
        SocketEnd.Ours ours = (SocketEnd.Ours) end(PUSH, true, null);
        List<SocketEvent> events = new CopyOnWriteArrayList<>();
        ours.socket().monitor(events::add);
        ours.connect(ep);
        ByteMessages.eventually(() -> "RECONNECT_STOPPED in " + events,
                () -> events.stream().anyMatch(e -> e.type() == SocketEvent.Type.RECONNECT_STOPPED));
        assertTrue(events.stream().anyMatch(e -> e.type() == SocketEvent.Type.HANDSHAKE_FAILED
                && e.reason() != null && e.reason().contains("PUSH")), "the reason names the types: " + events);
        assertEquals(0, ours.peerCount());
    }
}
