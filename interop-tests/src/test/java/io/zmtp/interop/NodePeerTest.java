package io.zmtp.interop;

import io.zmtp.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Node peer of the draft types' interop tests against itself, libzmq 4.3.5 on both ends: what
 * works through npm's zeromq 6.8.0 and what does not, as docs/interop.md says, so that a failure
 * of {@link DraftSocketsLibzmqInteropTest} points at our side and not at the peer.
 */
class NodePeerTest {
    final List<NodePeer> nodes = new ArrayList<>();

    NodePeer node(String type, String how, String endpoint, String... options) {
        NodePeer n = NodePeer.start(type, how, endpoint, options);
        nodes.add(n);
        return n;
    }

    @AfterEach
    void stop() {
        nodes.forEach(NodePeer::close);
    }

    static List<String> texts(List<NodePeer.Message> l) {
        return l.stream().map(NodePeer.Message::text).toList();
    }

    @Test
    void clientAndServerWithTheServersRoutingIds() {
        NodePeer server = node("server", "bind", "tcp://127.0.0.1:*", "--echo");
        NodePeer client = node("client", "connect", server.endpoint(), "--send", "3");
        assertEquals(List.of("node-0", "node-1", "node-2"), texts(client.awaitMessages(3)));
        List<NodePeer.Message> atServer = server.awaitMessages(3);
        assertNotEquals(0, atServer.get(0).routingId(), "libzmq's SERVER reports the routing id");
        assertTrue(client.messages().stream().allMatch(m -> m.routingId() == 0), "a CLIENT's have none");
    }

    @Test
    void radioAndDishOverTcpAndUdp() {
        NodePeer radio = node("radio", "bind", "tcp://127.0.0.1:*");
        NodePeer dish = node("dish", "connect", radio.endpoint(), "--join", "news");
        DraftTestBase.probeUntil("the dish's JOIN", b -> radio.sendToGroup("news", b), () -> !dish.messages().isEmpty());
        radio.sendToGroup("nobody", "unjoined");
        radio.sendToGroup("news", "news");
        Await.until("news at the dish", () -> dish.messages().stream().anyMatch(m -> m.text().equals("news")));
        assertTrue(dish.messages().stream().allMatch(m -> "news".equals(m.group())), dish.messages().toString());

        int port = DraftTestBase.freeUdpPort();
        NodePeer udpDish = node("dish", "bind", "udp://127.0.0.1:" + port, "--join", "news");
        NodePeer udpRadio = node("radio", "connect", "udp://127.0.0.1:" + port);
        DraftTestBase.probeUntil("a datagram", b -> udpRadio.sendToGroup("news", b), () -> !udpDish.messages().isEmpty());
        assertEquals("news", udpDish.messages().get(0).group());
    }

    @Test
    void scatterAndGather() {
        NodePeer gather = node("gather", "bind", "tcp://127.0.0.1:*");
        node("scatter", "connect", gather.endpoint(), "--send", "3");
        assertEquals(List.of("node-0", "node-1", "node-2"), texts(gather.awaitMessages(3)));
    }

    @Test
    void channelThroughLibzmqsTypeNumber() {
        NodePeer a = node("channel", "bind", "tcp://127.0.0.1:*", "--echo");
        NodePeer b = node("channel", "connect", a.endpoint(), "--send", "3");
        assertEquals(List.of("node-0", "node-1", "node-2"), texts(b.awaitMessages(3)));
    }

    /** The package sets no routing id on a PEER's message, and libzmq refuses to send one without. */
    @Test
    void aPeerThroughLibzmqsTypeNumberCannotSend() {
        NodePeer a = node("peer", "bind", "tcp://127.0.0.1:*");
        NodePeer b = node("peer", "connect", a.endpoint(), "--send", "1");
        Await.until(() -> "an error from " + b, () -> !b.errors().isEmpty());
        assertEquals(List.of("ERR send EHOSTUNREACH"), b.errors());
        assertEquals(0, b.sentCount());
    }
}
