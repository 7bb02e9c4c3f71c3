package io.zmtp.interop;

import io.zmtp.security.Authenticator;
import io.zmtp.security.CurveAllowList;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.wire.Mechanism;
import io.zmtp.security.PlainMechanism;
import io.zmtp.socket.SocketOptions;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.zmtp.interop.ByteMessages.assertMessage;
import static io.zmtp.interop.ByteMessages.concat;
import static io.zmtp.interop.ByteMessages.msg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * ws:// (ZWS 2.0) between our sockets and libzmq 4.3.4's ws:// transport (Debian's libzmq5 through
 * python3-zmq): every socket pair of {@link SocketInteropTest}, with our socket on either side
 * and either side binding, exchanging the same messages and envelopes (a 10 KB frame among them);
 * PUB-SUB and XPUB-XSUB with prefix filtering and a cancelled subscription (libzmq's ws:// carries
 * subscriptions as ZMTP 3.0 messages); and PLAIN and CURVE on top, our socket as the security
 * server and as the client, with the User-Id on our server's messages.
 */
class WebSocketInteropTest extends LibzmqTestBase {
    static final String USER = "admin";
    static final String PASSWORD = "secret";

    static Stream<Arguments> pairs() {
        List<Arguments> l = new ArrayList<>();
        for (SocketInteropTest.Pair p : SocketInteropTest.Pair.values()) {
            for (String ours : p.a == p.b ? List.of("A") : List.of("A", "B")) {
                for (String binder : List.of("A", "B")) {
                    l.add(arguments(p, ours, binder));
                }
            }
        }
        return l.stream();
    }

    SocketEnd end(SocketType type, boolean ours, String identity) {
        SocketEnd e = ours ? SocketEnd.ours(ctx, type, identity) : SocketEnd.libzmq(zmq, type, identity);
        ends.add(e);
        return e;
    }

    @ParameterizedTest(name = "{0}: ours is {1}, {2} binds, over ws")
    @MethodSource("pairs")
    void pairExchangesMessages(SocketInteropTest.Pair pair, String ours, String binder) {
        String idA = SocketInteropTest.identity("A", pair.a);
        String idB = SocketInteropTest.identity("B", pair.b);
        SocketEnd a = end(pair.a, ours.equals("A"), idA);
        SocketEnd b = end(pair.b, ours.equals("B"), idB);
        if (binder.equals("A")) {
            b.connect(a.bind("ws", tmp));
        } else {
            a.connect(b.bind("ws", tmp));
        }
        for (List<byte[]> body : SocketInteropTest.bodies()) {
            a.send(concat(SocketInteropTest.envelope(pair.aSends, idA, idB), body));
            assertMessage(concat(SocketInteropTest.envelope(pair.bSees, idA, idB), body), b.recv(),
                    b + " received from " + a);
            if (pair.bSends != null) {
                List<byte[]> reply = concat(msg("reply"), body);
                b.send(concat(SocketInteropTest.envelope(pair.bSends, idA, idB), reply));
                assertMessage(concat(SocketInteropTest.envelope(pair.aSees, idA, idB), reply), a.recv(),
                        a + " received the reply");
            }
        }
    }

    static Stream<Arguments> pubSubPairs() {
        List<Arguments> l = new ArrayList<>();
        for (SocketType[] types : new SocketType[][] {{SocketType.PUB, SocketType.SUB}, {SocketType.XPUB, SocketType.XSUB}}) {
            for (String ours : List.of("publisher", "subscriber")) {
                for (String binder : List.of("publisher", "subscriber")) {
                    l.add(arguments(types[0], types[1], ours, binder));
                }
            }
        }
        return l.stream();
    }

    @ParameterizedTest(name = "{0}-{1}: ours is the {2}, the {3} binds, over ws")
    @MethodSource("pubSubPairs")
    void publisherSendsWhatMatchesTheSubscriptions(SocketType pubType, SocketType subType, String ours,
            String binder) {
        SocketEnd pub = end(pubType, ours.equals("publisher"), null);
        SocketEnd sub = end(subType, ours.equals("subscriber"), null);
        if (binder.equals("publisher")) {
            sub.connect(pub.bind("ws", tmp));
        } else {
            pub.connect(sub.bind("ws", tmp));
        }
        if (pubType == SocketType.XPUB && !pub.isOurs()) {
            // libzmq's XPUB delivers subscriptions to its application; nothing to read here
        }
        sub.subscribe("A");
        // The subscription travels asynchronously: publish until the first matching message arrives.
        List<byte[]>[] first = new List[1];
        ByteMessages.eventually("a message matching A arrived", () -> {
            pub.send(msg("B-not-subscribed"));
            pub.send(msg("A-probe"));
            first[0] = sub.recv(50);
            return first[0] != null;
        });
        assertMessage(msg("A-probe"), first[0], "only what matches A arrives");
        skipThrough(pub, sub, "A-end");
        pub.send(msg("B1"));
        pub.send(msg("A1", "", "more"));
        assertMessage(msg("A1", "", "more"), sub.recv(), sub + " from " + pub);
        assertNull(sub.recv(100), "B1 was filtered out");
        // the cancel first: subscriptions travel in order, so once C is in effect, so is the cancel
        // (an XSUB does not filter what arrives: this alone keeps A2 out)
        sub.unsubscribe("A");
        sub.subscribe("C");
        ByteMessages.eventually("C is subscribed", () -> {
            pub.send(msg("C-probe"));
            List<byte[]> m = sub.recv(50);
            return m != null && new String(m.get(0)).equals("C-probe");
        });
        skipThrough(pub, sub, "C-end");
        pub.send(msg("A2"));
        pub.send(msg("C2"));
        assertMessage(msg("C2"), sub.recv(), "after cancelling A only C arrives");
    }

    /**
     * Publishes {@code marker} and receives until it arrives: the probes published before it,
     * still in flight, arrive before it, so what comes next is what the test sends next.
     */
    static void skipThrough(SocketEnd pub, SocketEnd sub, String marker) {
        pub.send(msg(marker));
        while (true) {
            List<byte[]> m = sub.recv();
            assertNotNull(m, "the marker " + marker + " arrived");
            if (new String(m.get(0)).equals(marker)) {
                return;
            }
        }
    }

    static Stream<Arguments> security() {
        List<Arguments> l = new ArrayList<>();
        for (String mechanism : List.of("PLAIN", "CURVE")) {
            for (String ourRole : List.of("server", "client")) {
                for (String binder : List.of("server", "client")) {
                    l.add(arguments(mechanism, ourRole, binder));
                }
            }
        }
        return l.stream();
    }

    /** PLAIN and CURVE on ws://: DEALER (security client) to ROUTER (security server). */
    @ParameterizedTest(name = "{0}: ours is the {1}, the {2} binds, over ws")
    @MethodSource("security")
    void securityMechanismsRunOverWebSocket(String mechanism, String ourRole, String binder) {
        zmq.zapStart().zapAllowPlain(USER, PASSWORD);
        boolean curve = mechanism.equals("CURVE");
        String[] libzmqKeys = zmq.curveKeypair();
        CurveKeyPair ourKeys = CurveKeyPair.generate();
        SocketEnd server;
        SocketEnd client;
        String expectedUser = null;
        if (ourRole.equals("server")) {
            Mechanism m = curve ? CurveMechanism.server(ourKeys, CurveAllowList.ofZ85(libzmqKeys[0]))
                    : PlainMechanism.server(Authenticator.plainAccounts(Map.of(USER, PASSWORD)));
            server = SocketEnd.ours(ctx, SocketType.ROUTER, null, SocketOptions.builder().mechanism(m));
            SocketEnd.Libzmq c = SocketEnd.libzmq(zmq, SocketType.DEALER, "client");
            if (curve) {
                zmq.optText(c.id, "CURVE_SERVERKEY", ourKeys.publicKeyZ85())
                        .optText(c.id, "CURVE_PUBLICKEY", libzmqKeys[0]).optText(c.id, "CURVE_SECRETKEY", libzmqKeys[1]);
            } else {
                zmq.optText(c.id, "PLAIN_USERNAME", USER).optText(c.id, "PLAIN_PASSWORD", PASSWORD);
            }
            client = c;
            expectedUser = curve ? libzmqKeys[0] : USER;
        } else {
            SocketEnd.Libzmq s = SocketEnd.libzmq(zmq, SocketType.ROUTER, null);
            if (curve) {
                zmq.opt(s.id, "CURVE_SERVER", 1).optText(s.id, "CURVE_SECRETKEY", libzmqKeys[1]);
                zmq.zapAllowCurve(ourKeys.publicKeyZ85());
            } else {
                zmq.opt(s.id, "PLAIN_SERVER", 1);
            }
            server = s;
            Mechanism m = curve ? CurveMechanism.client(libzmqKeys[0], ourKeys) : PlainMechanism.client(USER, PASSWORD);
            client = SocketEnd.ours(ctx, SocketType.DEALER, "client", SocketOptions.builder().mechanism(m));
        }
        ends.add(server);
        ends.add(client);
        if (binder.equals("server")) {
            client.connect(server.bind("ws", tmp));
        } else {
            server.connect(client.bind("ws", tmp));
        }
        client.send(msg("hello"));
        if (expectedUser != null) {
            ZmtpMessage m = ((SocketEnd.Ours) server).blocking.receive(Duration.ofMillis(ByteMessages.T));
            assertNotNull(m, "our server received nothing");
            try {
                assertEquals(expectedUser, m.properties().userId());
                assertEquals("hello", new String(m.frameBytes(1)));
            } finally {
                m.release();
            }
        } else {
            assertMessage(msg("client", "hello"), server.recv(), "libzmq's server received");
        }
        server.send(msg("client", "world"));
        assertMessage(msg("world"), client.recv(), "the reply");
    }
}
