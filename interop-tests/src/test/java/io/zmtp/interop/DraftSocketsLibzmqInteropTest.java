package io.zmtp.interop;

import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.UnroutableMessageException;
import io.zmtp.testing.Await;
import io.zmtp.testing.FreePorts;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The draft socket types against libzmq 4.3.5 with its drafts on, the only such build reachable
 * here: npm's zeromq 6.8.0 in a Node process ({@link NodePeer}). Each pair both ways where the
 * Node package allows, with several messages, a restart of the Node peer (on the same port where
 * it binds) and, for RADIO/DISH, a group nobody joined. PEER works through the package's base
 * socket with libzmq's type number, but only to receive (it sends no routing id), so PEER is
 * tested one way; CHANNEL works both ways the same way.
 */
class DraftSocketsLibzmqInteropTest extends DraftTestBase {

    NodePeer node(String type, String how, String endpoint, String... options) {
        return keep(NodePeer.start(type, how, endpoint, options));
    }

    static List<String> texts(List<NodePeer.Message> messages) {
        return messages.stream().map(NodePeer.Message::text).toList();
    }

    static List<String> numbered(String prefix, int n) {
        return IntStream.range(0, n).mapToObj(i -> prefix + "-" + i).toList();
    }

    /** The messages of {@code node} that are not probes, waiting until there are {@code n}. */
    static List<NodePeer.Message> awaitNonProbes(NodePeer node, int n) {
        Await.until(() -> n + " messages besides probes at " + node,
                () -> node.messages().stream().filter(m -> !m.text().startsWith(PROBE)).count() >= n);
        return node.messages().stream().filter(m -> !m.text().startsWith(PROBE)).toList();
    }

    // CLIENT/SERVER

    @Test
    void nodeClientsTalkToOurServerEachThroughItsOwnRoutingId() {
        BlockingSocket server = ours(SocketType.SERVER);
        String ep = server.bind("tcp://127.0.0.1:0");
        NodePeer first = node("client", "connect", ep, "--send", "5", "--prefix", "first");
        int firstId = 0;
        for (int i = 0; i < 5; i++) {
            Received r = receive(server, Await.DEADLINE.toMillis());
            assertNotNull(r, "request " + i + " from the Node client");
            assertEquals("first-" + i, r.text());
            assertNotEquals(0, r.routingId(), "a SERVER's message carries its connection's routing id");
            if (i == 0) {
                firstId = r.routingId();
            }
            assertEquals(firstId, r.routingId(), "one connection, one routing id");
            sendTo(server, r.routingId(), "reply-" + i);
        }
        assertEquals(numbered("reply", 5), texts(first.awaitMessages(5)));

        NodePeer second = node("client", "connect", ep, "--send", "1", "--prefix", "second");
        Received r = receive(server, Await.DEADLINE.toMillis());
        assertNotNull(r, "the second client's request");
        assertEquals("second-0", r.text());
        int secondId = r.routingId();
        assertNotEquals(firstId, secondId, "each connection has its own routing id");
        sendTo(server, secondId, "to second");
        sendTo(server, firstId, "to first");
        assertEquals("to second", second.awaitMessages(1).get(0).text());
        assertEquals("to first", first.awaitMessages(6).get(5).text());

        // The first client dies: once its connection is gone, its id routes nowhere (EHOSTUNREACH).
        first.kill();
        int gone = firstId;
        Await.until("a send to the killed client's routing id is refused", () -> {
            try {
                sendTo(server, gone, "to the dead");
                return false;
            } catch (UnroutableMessageException e) {
                return true;
            }
        });
        assertThrows(UnroutableMessageException.class, () -> sendTo(server, 0, "to no id"));

        // A client started again is a new connection with a new id, served as the others.
        NodePeer again = node("client", "connect", ep, "--send", "1", "--prefix", "again");
        Received a = receive(server, Await.DEADLINE.toMillis());
        assertNotNull(a, "the restarted client's request");
        assertEquals("again-0", a.text());
        assertNotEquals(0, a.routingId());
        assertNotEquals(firstId, a.routingId());
        assertNotEquals(secondId, a.routingId());
        sendTo(server, a.routingId(), "welcome back");
        assertEquals("welcome back", again.awaitMessages(1).get(0).text());
    }

    @Test
    void ourClientTalksToANodeServerAndFindsItAgainAfterItsRestart() {
        NodePeer server = node("server", "bind", FreePorts.loopbackEndpoint(), "--echo");
        BlockingSocket client = ours(SocketType.CLIENT);
        client.connect(server.endpoint());
        for (int i = 0; i < 5; i++) {
            send(client, "before-" + i);
        }
        for (int i = 0; i < 5; i++) {
            Received r = receive(client, Await.DEADLINE.toMillis());
            assertNotNull(r, "echo " + i);
            assertEquals("before-" + i, r.text());
            assertEquals(0, r.routingId(), "a CLIENT's messages carry no routing id");
        }
        List<NodePeer.Message> atServer = server.awaitMessages(5);
        assertNotEquals(0, atServer.get(0).routingId(), "libzmq's SERVER numbered our connection");
        assertTrue(atServer.stream().allMatch(m -> m.routingId() == atServer.get(0).routingId()), atServer.toString());

        server.kill();
        NodePeer again = node("server", "bind", server.endpoint(), "--echo");
        // What went into the old connection is lost with it; the client reconnects by itself.
        probeUntilReceived("an echo from the restarted server", b -> send(client, b), client);
        for (int i = 0; i < 3; i++) {
            send(client, "after-" + i);
        }
        for (int i = 0; i < 3; i++) {
            assertEquals("after-" + i, receiveSkippingProbes(client).text());
        }
        assertTrue(again.errors().isEmpty(), again.errors().toString());
    }

    // RADIO/DISH over tcp

    @Test
    void nodeDishesGetOurRadiosJoinedGroupsOnlyOverTcp() {
        BlockingSocket radio = ours(SocketType.RADIO);
        String ep = radio.bind("tcp://127.0.0.1:0");
        NodePeer dish = node("dish", "connect", ep, "--join", "news,weather");
        probeUntil("the Node dish's JOIN reached our radio", b -> sendToGroup(radio, "news", b),
                () -> !dish.messages().isEmpty());
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            sendToGroup(radio, "nobody", "unjoined-" + i);
            String group = i % 2 == 0 ? "news" : "weather";
            sendToGroup(radio, group, group + "-" + i);
            expected.add(group + "-" + i);
        }
        List<NodePeer.Message> got = awaitNonProbes(dish, 6);
        assertEquals(expected, texts(got), "the joined groups' messages, in order, and nothing else");
        for (NodePeer.Message m : got) {
            assertEquals(m.text().substring(0, m.text().indexOf('-')), m.group(), "the group travels with " + m);
        }
        assertTrue(dish.messages().stream().noneMatch(m -> "nobody".equals(m.group())), dish.messages().toString());

        // libzmq's LEAVE: once our radio has the JOIN of "sport" sent after it, it sends "weather" no more.
        dish.leave("weather");
        dish.join("sport");
        probeUntil("the Node dish's JOIN of sport", b -> sendToGroup(radio, "sport", b),
                () -> dish.messages().stream().anyMatch(m -> "sport".equals(m.group())));
        sendToGroup(radio, "weather", "weather-after-leave");
        sendToGroup(radio, "news", "news-marker");
        assertEquals("news-marker", awaitNonProbes(dish, 7).get(6).text(), "a left group's message arrived");

        // A dish killed and started again joins again (only "news" now), through a new connection.
        dish.kill();
        NodePeer again = node("dish", "connect", ep, "--join", "news");
        probeUntil("the restarted Node dish's JOIN", b -> sendToGroup(radio, "news", b),
                () -> !again.messages().isEmpty());
        sendToGroup(radio, "weather", "weather-after");
        sendToGroup(radio, "news", "news-after");
        assertEquals(List.of("news-after"), texts(awaitNonProbes(again, 1)));
        assertTrue(again.errors().isEmpty(), again.errors().toString());
    }

    @Test
    void ourDishJoinsAndLeavesOnANodeRadioAndJoinsAgainAfterItsRestart() {
        NodePeer radio = node("radio", "bind", FreePorts.loopbackEndpoint());
        BlockingSocket dish = ours(SocketType.DISH);
        dish.join("news");
        dish.connect(radio.endpoint());
        probeUntilReceived("our JOIN reached the Node radio", b -> radio.sendToGroup("news", b), dish);
        for (int i = 0; i < 5; i++) {
            radio.sendToGroup("nobody", "unjoined-" + i);
            radio.sendToGroup("news", "news-" + i);
        }
        for (int i = 0; i < 5; i++) {
            Received r = receiveSkippingProbes(dish);
            assertEquals("news-" + i, r.text(), "the joined group's messages in order, none of 'nobody'");
            assertEquals("news", r.group());
        }

        // LEAVE on the wire: once the radio has our JOIN of "sport" (sent after the LEAVE), it
        // sends "news" no more.
        dish.leave("news");
        dish.join("sport");
        probeUntilReceived("our JOIN of sport reached the Node radio", b -> radio.sendToGroup("sport", b), dish);
        radio.sendToGroup("news", "news-after-leave");
        radio.sendToGroup("sport", "sport-marker");
        Received next = receiveSkippingProbes(dish);
        assertEquals("sport-marker", next.text(), "a left group's message arrived: " + next);
        assertEquals("sport", next.group());

        // The radio is killed and bound again on its port: our dish reconnects and joins again.
        radio.kill();
        NodePeer again = node("radio", "bind", radio.endpoint());
        probeUntilReceived("our JOIN reached the restarted Node radio", b -> again.sendToGroup("sport", b), dish);
        again.sendToGroup("news", "news-again");
        again.sendToGroup("sport", "sport-again");
        assertEquals("sport-again", receiveSkippingProbes(dish).text());
    }

    // RADIO/DISH over udp

    @Test
    void ourRadioSendsToANodeDishOverUdpAndToItsRestart() {
        int port = freeUdpPort();
        NodePeer dish = node("dish", "bind", "udp://127.0.0.1:" + port, "--join", "news");
        BlockingSocket radio = ours(SocketType.RADIO);
        radio.connect("udp://localhost:" + port); // a name, resolved as a tcp endpoint's is
        probeUntil("a datagram reached the Node dish", b -> sendToGroup(radio, "news", b),
                () -> !dish.messages().isEmpty());
        for (int i = 0; i < 5; i++) {
            sendToGroup(radio, "nobody", "unjoined-" + i);
            sendToGroup(radio, "news", "news-" + i);
        }
        List<NodePeer.Message> got = awaitNonProbes(dish, 5);
        assertEquals(numbered("news", 5), texts(got));
        assertTrue(got.stream().allMatch(m -> "news".equals(m.group())), got.toString());
        assertTrue(dish.messages().stream().noneMatch(m -> "nobody".equals(m.group())), dish.messages().toString());

        // No connection to lose: a dish bound again on the port gets what the radio sends next.
        dish.kill();
        NodePeer again = node("dish", "bind", "udp://127.0.0.1:" + port, "--join", "news");
        probeUntil("a datagram reached the restarted Node dish", b -> sendToGroup(radio, "news", b),
                () -> !again.messages().isEmpty());
        sendToGroup(radio, "news", "news-again");
        assertEquals(List.of("news-again"), texts(awaitNonProbes(again, 1)));
    }

    @Test
    void ourDishReceivesANodeRadioOverUdpAndItsRestart() {
        int port = freeUdpPort();
        BlockingSocket dish = ours(SocketType.DISH);
        dish.join("news");
        dish.bind("udp://127.0.0.1:" + port);
        NodePeer radio = node("radio", "connect", "udp://127.0.0.1:" + port);
        probeUntilReceived("a datagram from the Node radio", b -> radio.sendToGroup("news", b), dish);
        for (int i = 0; i < 5; i++) {
            radio.sendToGroup("nobody", "unjoined-" + i);
            radio.sendToGroup("news", "news-" + i);
        }
        for (int i = 0; i < 5; i++) {
            Received r = receiveSkippingProbes(dish);
            assertEquals("news-" + i, r.text(), "the joined group's datagrams in order, none of 'nobody'");
            assertEquals("news", r.group());
        }
        // A udp:// RADIO sends every group; our DISH dropped and counted those it has not joined.
        assertEquals(5, dish.socket().metrics().datagramDrops(), "the datagrams of group 'nobody'");

        radio.kill();
        NodePeer again = node("radio", "connect", "udp://127.0.0.1:" + port);
        probeUntilReceived("a datagram from the restarted Node radio", b -> again.sendToGroup("news", b), dish);
        again.sendToGroup("nobody", "unjoined-again");
        again.sendToGroup("news", "news-again");
        assertEquals("news-again", receiveSkippingProbes(dish).text());
    }

    @Test
    void radioAndDishOverUdpMulticastBothWays() {
        String group = "239.192.45.1";
        assumeMulticast(group);
        int port = freeUdpPort();
        NodePeer nodeDish = node("dish", "bind", "udp://" + group + ":" + port, "--join", "news");
        BlockingSocket radio = ours(SocketType.RADIO);
        radio.connect("udp://" + group + ":" + port);
        probeUntil("a multicast datagram reached the Node dish", b -> sendToGroup(radio, "news", b),
                () -> !nodeDish.messages().isEmpty());
        for (int i = 0; i < 3; i++) {
            sendToGroup(radio, "nobody", "unjoined-" + i);
            sendToGroup(radio, "news", "news-" + i);
        }
        assertEquals(numbered("news", 3), texts(awaitNonProbes(nodeDish, 3)));
        nodeDish.kill();

        int port2 = freeUdpPort();
        BlockingSocket dish = ours(SocketType.DISH);
        dish.join("news");
        dish.bind("udp://" + group + ":" + port2);
        NodePeer nodeRadio = node("radio", "connect", "udp://" + group + ":" + port2);
        probeUntilReceived("a multicast datagram from the Node radio", b -> nodeRadio.sendToGroup("news", b), dish);
        for (int i = 0; i < 3; i++) {
            nodeRadio.sendToGroup("nobody", "unjoined-" + i);
            nodeRadio.sendToGroup("news", "news-" + i);
        }
        for (int i = 0; i < 3; i++) {
            assertEquals("news-" + i, receiveSkippingProbes(dish).text());
        }
    }

    @Test
    void theLongestGroupsAndUtf8GroupsCrossBothWays() {
        String longest = "g".repeat(255); // tcp: a group frame of up to 255 bytes
        BlockingSocket radio = ours(SocketType.RADIO);
        NodePeer dish = node("dish", "connect", radio.bind("tcp://127.0.0.1:0"), "--join", longest + ",météo");
        probeUntil("the Node dish's JOIN of a 255-byte group", b -> sendToGroup(radio, longest, b),
                () -> !dish.messages().isEmpty());
        assertEquals(longest, dish.messages().get(0).group());
        sendToGroup(radio, "météo", "soleil");
        NodePeer.Message m = awaitNonProbes(dish, 1).get(0);
        assertEquals("soleil", m.text());
        assertEquals("météo", m.group(), "the group's UTF-8 bytes as libzmq sees them");

        NodePeer nodeRadio = node("radio", "bind", FreePorts.loopbackEndpoint());
        BlockingSocket ourDish = ours(SocketType.DISH);
        ourDish.join(longest);
        ourDish.join("météo");
        ourDish.connect(nodeRadio.endpoint());
        probeUntilReceived("our JOIN of a 255-byte group", b -> nodeRadio.sendToGroup(longest, b), ourDish);
        nodeRadio.sendToGroup("météo", "pluie");
        Received r = receiveSkippingProbes(ourDish);
        assertEquals("pluie", r.text());
        assertEquals("météo", r.group());

        // udp: libzmq reads a datagram's group length as a signed byte, so 127 bytes is its longest.
        String longestUdp = "u".repeat(127);
        int port = freeUdpPort();
        BlockingSocket udpDish = ours(SocketType.DISH);
        udpDish.join(longestUdp);
        udpDish.bind("udp://localhost:" + port); // a name, resolved as a tcp endpoint's is
        NodePeer udpRadio = node("radio", "connect", "udp://127.0.0.1:" + port);
        probeUntilReceived("a datagram of a 127-byte group", b -> udpRadio.sendToGroup(longestUdp, b), udpDish);
        udpRadio.sendToGroup(longestUdp, "last");
        Received u = receiveSkippingProbes(udpDish);
        assertEquals("last", u.text());
        assertEquals(longestUdp, u.group());
    }

    // SCATTER/GATHER

    @Test
    void ourScatterFeedsNodeGathersOneAfterAnother() {
        BlockingSocket scatter = ours(SocketType.SCATTER);
        String ep = scatter.bind("tcp://127.0.0.1:0");
        NodePeer gather = node("gather", "connect", ep);
        for (int i = 0; i < 5; i++) {
            send(scatter, "msg-" + i); // waits for the gather's connection
        }
        assertEquals(numbered("msg", 5), texts(gather.awaitMessages(5)));

        gather.kill();
        NodePeer again = node("gather", "connect", ep);
        probeUntil("the restarted Node gather gets a message", b -> send(scatter, b), () -> !again.messages().isEmpty());
        for (int i = 0; i < 3; i++) {
            send(scatter, "again-" + i);
        }
        assertEquals(numbered("again", 3), texts(awaitNonProbes(again, 3)));
    }

    @Test
    void ourGatherReadsANodeScatterAndItsRestartOnTheSamePort() {
        NodePeer scatter = node("scatter", "bind", FreePorts.loopbackEndpoint(), "--send", "5", "--prefix", "first");
        BlockingSocket gather = ours(SocketType.GATHER);
        gather.connect(scatter.endpoint());
        for (int i = 0; i < 5; i++) {
            Received r = receive(gather, Await.DEADLINE.toMillis());
            assertNotNull(r, "message " + i + " from the Node scatter");
            assertEquals("first-" + i, r.text());
        }
        scatter.kill();
        // A SCATTER with no peer holds its sends: all five reach us once we are connected again.
        node("scatter", "bind", scatter.endpoint(), "--send", "5", "--prefix", "again");
        for (int i = 0; i < 5; i++) {
            Received r = receive(gather, Await.DEADLINE.toMillis());
            assertNotNull(r, "message " + i + " from the restarted Node scatter");
            assertEquals("again-" + i, r.text());
        }
    }

    // CHANNEL (libzmq's type 20 through the package's base socket)

    @Test
    void ourChannelTalksToANodeChannelAndFindsItAgainAfterItsRestart() {
        NodePeer channel = node("channel", "bind", FreePorts.loopbackEndpoint(), "--echo");
        BlockingSocket ours = ours(SocketType.CHANNEL);
        ours.connect(channel.endpoint());
        for (int i = 0; i < 5; i++) {
            send(ours, "msg-" + i);
        }
        for (int i = 0; i < 5; i++) {
            Received r = receive(ours, Await.DEADLINE.toMillis());
            assertNotNull(r, "echo " + i);
            assertEquals("msg-" + i, r.text());
        }
        channel.kill();
        NodePeer again = node("channel", "bind", channel.endpoint(), "--echo");
        probeUntilReceived("an echo from the restarted Node channel", b -> send(ours, b), ours);
        send(ours, "after");
        assertEquals("after", receiveSkippingProbes(ours).text());
        assertTrue(again.errors().isEmpty(), again.errors().toString());
    }

    @Test
    void aNodeChannelTalksToOurs() {
        BlockingSocket ours = ours(SocketType.CHANNEL);
        String ep = ours.bind("tcp://127.0.0.1:0");
        NodePeer channel = node("channel", "connect", ep, "--send", "5");
        for (int i = 0; i < 5; i++) {
            Received r = receive(ours, Await.DEADLINE.toMillis());
            assertNotNull(r, "message " + i + " from the Node channel");
            assertEquals("node-" + i, r.text());
            send(ours, "reply-" + i);
        }
        assertEquals(numbered("reply", 5), texts(channel.awaitMessages(5)));
    }

    // PEER (libzmq's type 19: the Node package can receive on it, not send)

    @Test
    void ourPeerReachesANodePeerThroughTheIdOfItsConnectAcrossARestart() {
        NodePeer peer = node("peer", "bind", FreePorts.loopbackEndpoint());
        BlockingSocket ours = ours(SocketType.PEER);
        int id = ours.connectPeer(peer.endpoint());
        assertNotEquals(0, id, "connectPeer returns the connection's routing id");
        for (int i = 0; i < 5; i++) {
            sendTo(ours, id, "msg-" + i);
        }
        assertEquals(numbered("msg", 5), texts(peer.awaitMessages(5)));

        // The Node peer restarts on its port: the connect endpoint keeps its routing id.
        peer.kill();
        NodePeer again = node("peer", "bind", peer.endpoint());
        probeUntil("the restarted Node peer gets a message sent to id " + id, b -> sendTo(ours, id, b),
                () -> !again.messages().isEmpty());
        sendTo(ours, id, "after");
        assertEquals(List.of("after"), texts(awaitNonProbes(again, 1)));
    }
}
