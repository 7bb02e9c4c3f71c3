package io.zmtp.interop;

import io.zmtp.socket.BlockingSocket;
import io.zmtp.testing.Await;
import io.zmtp.testing.FreePorts;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;
import zmq.Msg;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The draft socket types against JeroMQ 0.6.0's, in this JVM: CLIENT/SERVER, RADIO/DISH (JeroMQ
 * has no udp://), SCATTER/GATHER, PEER and CHANNEL, each both ways, with several messages, a
 * JeroMQ socket closed and bound again on its port, and for RADIO/DISH a group nobody joined.
 * JeroMQ's sockets are used by the test's thread only, except an echoing one, which lives on a
 * thread of its own ({@link JeromqEcho}). Where JeroMQ connects, it does so through
 * {@link #jeromqConnected}, which makes a new JeroMQ socket when one never greets (see there).
 */
class JeromqDraftInteropTest extends DraftTestBase {
    ZContext jeromq;

    @BeforeEach
    void startJeromq() {
        jeromq = new ZContext();
        keep(jeromq::close);
    }

    /** A JeroMQ socket that drops what it holds at close and reconnects quickly. */
    ZMQ.Socket jeromq(org.zeromq.SocketType type) {
        ZMQ.Socket s = jeromq.createSocket(type);
        s.setLinger(0);
        s.setReconnectIVL(20);
        s.setReconnectIVLMax(200);
        return s;
    }

    /** A JeroMQ socket bound to {@code endpoint}, retrying while a closed one still holds the port. */
    ZMQ.Socket jeromqBound(org.zeromq.SocketType type, String endpoint) {
        ZMQ.Socket s = jeromq(type);
        long deadline = System.nanoTime() + Await.DEADLINE.toNanos();
        while (true) {
            try {
                s.bind(endpoint);
                return s;
            } catch (ZMQException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Await.pause();
            }
        }
    }

    /**
     * A JeroMQ socket made by {@code make} and connected by {@code connect} (which may keep what
     * connectPeer returned) to our socket {@code ours}, once {@code ours} has it as a peer.
     * JeroMQ 0.6.0 now and then (a few connects in a hundred here, DEALER to ROUTER as well as
     * the draft types) opens the TCP connection and then neither sends its greeting nor reads
     * ours, for good: the socket never recovers, even when we close the connection. So a
     * connection our socket has not completed the handshake of within a second is given up and
     * made again with a new JeroMQ socket, as an application would have to.
     */
    ZMQ.Socket jeromqConnected(BlockingSocket ours, Supplier<ZMQ.Socket> make, Consumer<ZMQ.Socket> connect) {
        int before = peers(ours);
        for (int attempt = 1; ; attempt++) {
            ZMQ.Socket s = make.get();
            connect.accept(s);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (System.nanoTime() < deadline) {
                if (peers(ours) > before) {
                    return s;
                }
                Await.pause();
            }
            if (attempt == 5) {
                throw new AssertionError("JeroMQ's " + s.getSocketType() + " never completed a handshake with our "
                        + ours.type() + " in " + attempt + " attempts");
            }
            System.err.println("JeroMQ's " + s.getSocketType() + " connected but never greeted our " + ours.type()
                    + " (attempt " + attempt + "): trying again with a new socket");
            closeJeromq(s);
        }
    }

    /** How many peers our socket has (connections past their handshake). */
    static int peers(BlockingSocket s) {
        try {
            return s.socket().eventLoop().submit(() -> s.socket().peerCount())
                    .get(Await.DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Waits until our socket has {@code n} peers (a closed JeroMQ socket's connection is gone). */
    static void awaitPeers(BlockingSocket s, int n) {
        Await.until(() -> "our " + s.type() + " has " + n + " peers, not " + peers(s), () -> peers(s) == n);
    }

    /** Closes a JeroMQ socket now (its connections go with it), as a restart would. */
    static void closeJeromq(ZMQ.Socket s) {
        s.close();
    }

    static Msg msg(String body) {
        return new Msg(body.getBytes(StandardCharsets.UTF_8));
    }

    static String text(Msg m) {
        return new String(m.data(), StandardCharsets.UTF_8);
    }

    /** JeroMQ's next message within {@code ms}, or null. */
    static Msg jrecv(ZMQ.Socket s, int ms) {
        s.setReceiveTimeOut(ms);
        return s.recvMsg(0);
    }

    /** JeroMQ's next message that is not a probe; fails the test when none comes in time. */
    static Msg jrecvSkippingProbes(ZMQ.Socket s) {
        long deadline = System.nanoTime() + Await.DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            Msg m = jrecv(s, 200);
            if (m != null && !text(m).startsWith(PROBE)) {
                return m;
            }
        }
        throw new AssertionError("JeroMQ " + s.getSocketType() + " received nothing but probes within " + Await.DEADLINE);
    }

    static void jsend(ZMQ.Socket s, String body) {
        if (!s.sendMsg(msg(body), 0)) {
            throw new AssertionError("JeroMQ refused to send: errno " + s.errno());
        }
    }

    static void jsendTo(ZMQ.Socket s, int routingId, String body) {
        Msg m = msg(body);
        m.setRoutingId(routingId);
        if (!s.sendMsg(m, 0)) {
            throw new AssertionError("JeroMQ refused to send to " + routingId + ": errno " + s.errno());
        }
    }

    static void jsendToGroup(ZMQ.Socket s, String group, String body) {
        Msg m = msg(body);
        m.setGroup(group);
        if (!s.sendMsg(m, 0)) {
            throw new AssertionError("JeroMQ refused to send to group " + group + ": errno " + s.errno());
        }
    }

    /**
     * A JeroMQ socket that sends back every message it receives (to its routing id on a SERVER or
     * PEER), on a thread of its own from its creation to its close.
     */
    final class JeromqEcho implements AutoCloseable {
        final AtomicInteger echoed = new AtomicInteger();
        final AtomicInteger lastRoutingId = new AtomicInteger();
        /** The endpoint bound, its port resolved. */
        final String endpoint;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;

        JeromqEcho(org.zeromq.SocketType type, String bindEndpoint) {
            ZMQ.Socket s = jeromqBound(type, bindEndpoint);
            endpoint = s.getLastEndpoint();
            thread = new Thread(() -> {
                try {
                    while (running.get()) {
                        Msg m = jrecv(s, 20);
                        if (m != null) {
                            lastRoutingId.set(m.getRoutingId());
                            s.sendMsg(m, 0); // a received message keeps its routing id
                            echoed.incrementAndGet();
                        }
                    }
                } finally {
                    closeJeromq(s);
                }
            }, "jeromq-echo-" + type);
            thread.start();
            keep(this);
        }

        @Override
        public void close() {
            running.set(false);
            try {
                thread.join(Await.DEADLINE.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // CLIENT/SERVER

    @Test
    void jeromqClientsTalkToOurServerThroughTheirRoutingIds() {
        BlockingSocket server = ours(SocketType.SERVER);
        String ep = server.bind("tcp://127.0.0.1:0");
        ZMQ.Socket client = jeromqConnected(server, () -> jeromq(org.zeromq.SocketType.CLIENT), c -> c.connect(ep));
        for (int i = 0; i < 5; i++) {
            jsend(client, "request-" + i);
        }
        int id = 0;
        for (int i = 0; i < 5; i++) {
            // the byte[] API: the body, then the routing id of the message just received
            byte[] body = server.recv(Await.DEADLINE);
            assertNotNull(body, "request " + i);
            assertEquals("request-" + i, new String(body, StandardCharsets.UTF_8));
            int from = server.recvRoutingId();
            assertNotEquals(0, from);
            if (i == 0) {
                id = from;
            }
            assertEquals(id, from, "one connection, one routing id");
            server.sendTo(from, ("reply-" + i).getBytes(StandardCharsets.UTF_8));
        }
        for (int i = 0; i < 5; i++) {
            Msg m = jrecv(client, (int) Await.DEADLINE.toMillis());
            assertNotNull(m, "reply " + i);
            assertEquals("reply-" + i, text(m));
        }

        // The client is closed and a new one connects: a new connection, a new routing id.
        closeJeromq(client);
        awaitPeers(server, 0);
        ZMQ.Socket again = jeromqConnected(server, () -> jeromq(org.zeromq.SocketType.CLIENT), c -> c.connect(ep));
        jsend(again, "again");
        Received r = receive(server, Await.DEADLINE.toMillis());
        assertNotNull(r, "the new client's request");
        assertEquals("again", r.text());
        assertNotEquals(0, r.routingId());
        assertNotEquals(id, r.routingId());
        sendTo(server, r.routingId(), "welcome");
        Msg m = jrecv(again, (int) Await.DEADLINE.toMillis());
        assertNotNull(m, "the reply to the new client");
        assertEquals("welcome", text(m));
    }

    @Test
    void ourClientTalksToAJeromqServerAndFindsItAgainAfterItsRestart() {
        JeromqEcho server = new JeromqEcho(org.zeromq.SocketType.SERVER, FreePorts.loopbackEndpoint());
        String ep = server.endpoint;
        BlockingSocket client = ours(SocketType.CLIENT);
        client.connect(ep);
        for (int i = 0; i < 5; i++) {
            send(client, "before-" + i);
        }
        for (int i = 0; i < 5; i++) {
            Received r = receive(client, Await.DEADLINE.toMillis());
            assertNotNull(r, "echo " + i);
            assertEquals("before-" + i, r.text());
        }
        assertNotEquals(0, server.lastRoutingId.get(), "JeroMQ's SERVER numbered our connection");

        server.close();
        new JeromqEcho(org.zeromq.SocketType.SERVER, ep);
        probeUntilReceived("an echo from the restarted JeroMQ server", b -> send(client, b), client);
        for (int i = 0; i < 3; i++) {
            send(client, "after-" + i);
        }
        for (int i = 0; i < 3; i++) {
            assertEquals("after-" + i, receiveSkippingProbes(client).text());
        }
    }

    // RADIO/DISH over tcp

    @Test
    void ourDishJoinsAndLeavesOnAJeromqRadioAndJoinsAgainAfterItsRestart() {
        ZMQ.Socket radio = jeromqBound(org.zeromq.SocketType.RADIO, FreePorts.loopbackEndpoint());
        String ep = radio.getLastEndpoint();
        BlockingSocket dish = ours(SocketType.DISH);
        dish.join("news");
        dish.connect(ep);
        probeUntilReceived("our JOIN reached the JeroMQ radio", b -> jsendToGroup(radio, "news", b), dish);
        for (int i = 0; i < 5; i++) {
            jsendToGroup(radio, "nobody", "unjoined-" + i);
            jsendToGroup(radio, "news", "news-" + i);
        }
        for (int i = 0; i < 5; i++) {
            // the byte[] API: the body, then the group of the message just received
            byte[] body;
            do {
                body = dish.recv(Await.DEADLINE);
                assertNotNull(body, "news " + i);
            } while (new String(body, StandardCharsets.UTF_8).startsWith(PROBE));
            assertEquals("news-" + i, new String(body, StandardCharsets.UTF_8),
                    "the joined group's messages in order, none of 'nobody'");
            assertEquals("news", dish.receivedGroup());
        }

        dish.leave("news");
        dish.join("sport");
        probeUntilReceived("our JOIN of sport reached the JeroMQ radio", b -> jsendToGroup(radio, "sport", b), dish);
        jsendToGroup(radio, "news", "news-after-leave");
        jsendToGroup(radio, "sport", "sport-marker");
        Received next = receiveSkippingProbes(dish);
        assertEquals("sport-marker", next.text(), "a left group's message arrived: " + next);

        closeJeromq(radio);
        ZMQ.Socket again = jeromqBound(org.zeromq.SocketType.RADIO, ep);
        probeUntilReceived("our JOIN reached the restarted JeroMQ radio", b -> jsendToGroup(again, "sport", b), dish);
        jsendToGroup(again, "news", "news-again");
        jsendToGroup(again, "sport", "sport-again");
        Received r = receiveSkippingProbes(dish);
        assertEquals("sport-again", r.text());
        assertEquals("sport", r.group());
    }

    @Test
    void jeromqDishesGetOurRadiosJoinedGroupsOnly() {
        BlockingSocket radio = ours(SocketType.RADIO);
        String ep = radio.bind("tcp://127.0.0.1:0");
        ZMQ.Socket dish = jeromqConnected(radio, () -> jeromq(org.zeromq.SocketType.DISH), d -> {
            d.join("news");
            d.join("weather");
            d.connect(ep);
        });
        probeUntil("the JeroMQ dish's JOIN reached our radio",
                b -> radio.sendToGroup("news", b.getBytes(StandardCharsets.UTF_8)), () -> jrecv(dish, 1) != null);
        for (int i = 0; i < 6; i++) {
            sendToGroup(radio, "nobody", "unjoined-" + i);
            String group = i % 2 == 0 ? "news" : "weather";
            sendToGroup(radio, group, group + "-" + i);
        }
        for (int i = 0; i < 6; i++) {
            Msg m = jrecvSkippingProbes(dish);
            String group = i % 2 == 0 ? "news" : "weather";
            assertEquals(group + "-" + i, text(m), "the joined groups' messages in order, none of 'nobody'");
            assertEquals(group, m.getGroup());
        }

        // JeroMQ's LEAVE: once our radio has the JOIN of "sport" sent after it, it sends "weather" no more.
        dish.leave("weather");
        dish.join("sport");
        probeUntil("the JeroMQ dish's JOIN of sport", b -> sendToGroup(radio, "sport", b), () -> jrecv(dish, 1) != null);
        sendToGroup(radio, "weather", "weather-after-leave");
        sendToGroup(radio, "news", "news-marker");
        assertEquals("news-marker", text(jrecvSkippingProbes(dish)), "a left group's message arrived");

        // A new dish, joined to "news" only, through a new connection.
        closeJeromq(dish);
        awaitPeers(radio, 0);
        ZMQ.Socket again = jeromqConnected(radio, () -> jeromq(org.zeromq.SocketType.DISH), d -> {
            d.join("news");
            d.connect(ep);
        });
        probeUntil("the new JeroMQ dish's JOIN reached our radio", b -> sendToGroup(radio, "news", b),
                () -> jrecv(again, 1) != null);
        sendToGroup(radio, "weather", "weather-after");
        sendToGroup(radio, "news", "news-after");
        assertEquals("news-after", text(jrecvSkippingProbes(again)));
    }

    // SCATTER/GATHER

    @Test
    void ourScatterFeedsAJeromqGatherAndItsRestartOnTheSamePort() {
        ZMQ.Socket gather = jeromqBound(org.zeromq.SocketType.GATHER, FreePorts.loopbackEndpoint());
        String ep = gather.getLastEndpoint();
        BlockingSocket scatter = ours(SocketType.SCATTER);
        scatter.connect(ep);
        for (int i = 0; i < 5; i++) {
            send(scatter, "msg-" + i);
        }
        for (int i = 0; i < 5; i++) {
            Msg m = jrecv(gather, (int) Await.DEADLINE.toMillis());
            assertNotNull(m, "message " + i);
            assertEquals("msg-" + i, text(m));
        }
        closeJeromq(gather);
        ZMQ.Socket again = jeromqBound(org.zeromq.SocketType.GATHER, ep);
        probeUntil("the restarted JeroMQ gather gets a message", b -> send(scatter, b), () -> jrecv(again, 1) != null);
        for (int i = 0; i < 3; i++) {
            send(scatter, "again-" + i);
        }
        for (int i = 0; i < 3; i++) {
            assertEquals("again-" + i, text(jrecvSkippingProbes(again)));
        }
    }

    @Test
    void ourGatherReadsJeromqScatters() {
        BlockingSocket gather = ours(SocketType.GATHER);
        String ep = gather.bind("tcp://127.0.0.1:0");
        ZMQ.Socket scatter = jeromqConnected(gather, () -> jeromq(org.zeromq.SocketType.SCATTER), c -> c.connect(ep));
        for (int i = 0; i < 5; i++) {
            jsend(scatter, "first-" + i);
        }
        for (int i = 0; i < 5; i++) {
            Received r = receive(gather, Await.DEADLINE.toMillis());
            assertNotNull(r, "message " + i);
            assertEquals("first-" + i, r.text());
        }
        closeJeromq(scatter);
        awaitPeers(gather, 0);
        ZMQ.Socket again = jeromqConnected(gather, () -> jeromq(org.zeromq.SocketType.SCATTER), c -> c.connect(ep));
        for (int i = 0; i < 5; i++) {
            jsend(again, "again-" + i);
        }
        for (int i = 0; i < 5; i++) {
            Received r = receive(gather, Await.DEADLINE.toMillis());
            assertNotNull(r, "message " + i + " of the new scatter");
            assertEquals("again-" + i, r.text());
        }
    }

    // PEER

    @Test
    void ourPeerAndAJeromqPeerTalkThroughTheIdOfOurConnectAcrossItsRestart() {
        ZMQ.Socket peer = jeromqBound(org.zeromq.SocketType.PEER, FreePorts.loopbackEndpoint());
        String ep = peer.getLastEndpoint();
        BlockingSocket ours = ours(SocketType.PEER);
        int id = ours.connectPeer(ep);
        assertNotEquals(0, id, "connectPeer returns the connection's routing id");
        for (int i = 0; i < 5; i++) {
            sendTo(ours, id, "msg-" + i);
        }
        int jeromqIdOfUs = 0;
        for (int i = 0; i < 5; i++) {
            Msg m = jrecv(peer, (int) Await.DEADLINE.toMillis());
            assertNotNull(m, "message " + i);
            assertEquals("msg-" + i, text(m));
            jeromqIdOfUs = m.getRoutingId();
            jsendTo(peer, jeromqIdOfUs, "reply-" + i);
        }
        for (int i = 0; i < 5; i++) {
            Received r = receive(ours, Await.DEADLINE.toMillis());
            assertNotNull(r, "reply " + i);
            assertEquals("reply-" + i, r.text());
            assertEquals(id, r.routingId(), "a reply carries the routing id connectPeer returned");
        }

        // JeroMQ's peer is closed and bound again on its port: our connect keeps its routing id.
        closeJeromq(peer);
        ZMQ.Socket again = jeromqBound(org.zeromq.SocketType.PEER, ep);
        probeUntil("the restarted JeroMQ peer gets a message sent to id " + id, b -> sendTo(ours, id, b),
                () -> jrecv(again, 1) != null);
        sendTo(ours, id, "after");
        Msg m = jrecvSkippingProbes(again);
        assertEquals("after", text(m));
        jsendTo(again, m.getRoutingId(), "after-reply");
        Received r = receiveSkippingProbes(ours);
        assertEquals("after-reply", r.text());
        assertEquals(id, r.routingId());
    }

    @Test
    void aJeromqPeerReachesOursThroughTheIdOfItsConnect() {
        BlockingSocket ours = ours(SocketType.PEER);
        String ep = ours.bind("tcp://127.0.0.1:0");
        AtomicInteger connectId = new AtomicInteger();
        ZMQ.Socket peer = jeromqConnected(ours, () -> jeromq(org.zeromq.SocketType.PEER),
                p -> connectId.set(p.connectPeer(ep)));
        int id = connectId.get();
        assertNotEquals(0, id);
        for (int i = 0; i < 5; i++) {
            jsendTo(peer, id, "msg-" + i);
        }
        for (int i = 0; i < 5; i++) {
            Received r = receive(ours, Await.DEADLINE.toMillis());
            assertNotNull(r, "message " + i);
            assertEquals("msg-" + i, r.text());
            assertNotEquals(0, r.routingId());
            sendTo(ours, r.routingId(), "reply-" + i);
        }
        for (int i = 0; i < 5; i++) {
            Msg m = jrecv(peer, (int) Await.DEADLINE.toMillis());
            assertNotNull(m, "reply " + i);
            assertEquals("reply-" + i, text(m));
            assertEquals(id, m.getRoutingId(), "JeroMQ sees the reply come through its connect's id");
        }
    }

    // CHANNEL

    @Test
    void ourChannelTalksToAJeromqChannelAndFindsItAgainAfterItsRestart() {
        JeromqEcho channel = new JeromqEcho(org.zeromq.SocketType.CHANNEL, FreePorts.loopbackEndpoint());
        String ep = channel.endpoint;
        BlockingSocket ours = ours(SocketType.CHANNEL);
        ours.connect(ep);
        for (int i = 0; i < 5; i++) {
            send(ours, "msg-" + i);
        }
        for (int i = 0; i < 5; i++) {
            Received r = receive(ours, Await.DEADLINE.toMillis());
            assertNotNull(r, "echo " + i);
            assertEquals("msg-" + i, r.text());
        }
        channel.close();
        new JeromqEcho(org.zeromq.SocketType.CHANNEL, ep);
        probeUntilReceived("an echo from the restarted JeroMQ channel", b -> send(ours, b), ours);
        send(ours, "after");
        assertEquals("after", receiveSkippingProbes(ours).text());
    }

    @Test
    void aJeromqChannelTalksToOurs() {
        BlockingSocket ours = ours(SocketType.CHANNEL);
        String ep = ours.bind("tcp://127.0.0.1:0");
        ZMQ.Socket channel = jeromqConnected(ours, () -> jeromq(org.zeromq.SocketType.CHANNEL), c -> c.connect(ep));
        for (int i = 0; i < 5; i++) {
            jsend(channel, "msg-" + i);
        }
        for (int i = 0; i < 5; i++) {
            Received r = receive(ours, Await.DEADLINE.toMillis());
            assertNotNull(r, "message " + i);
            assertEquals("msg-" + i, r.text());
            send(ours, "reply-" + i);
        }
        for (int i = 0; i < 5; i++) {
            Msg m = jrecv(channel, (int) Await.DEADLINE.toMillis());
            assertNotNull(m, "reply " + i);
            assertEquals("reply-" + i, text(m));
        }
        assertNull(jrecv(channel, 50), "nothing more");
    }
}
