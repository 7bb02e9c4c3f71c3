package io.zmtp.socket;

import io.netty.util.concurrent.Future;
import io.zmtp.testing.PeerBytes;
import io.zmtp.testing.RawPeer;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.DataInputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.zmtp.socket.SocketTesting.T;
import static io.zmtp.socket.SocketTesting.awaitPeers;
import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static io.zmtp.socket.SocketTesting.onLoop;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RADIO and DISH (RFC 48) over tcp, ipc and inproc: groups, join and leave, rejoins, hostile peers. */
class RadioDishTest extends ContextTest {

    @TempDir
    Path dir;

    /** What a DISH received: "group:body". */
    static final class Received {
        final BlockingQueue<String> queue = new LinkedBlockingQueue<>();

        Received(ZmtpSocket dish) {
            dish.onMessage(m -> {
                try {
                    queue.add(m.group() + ":" + m.frameString(0) + (m.size() > 1 ? " (" + m.size() + " frames)" : ""));
                } finally {
                    m.release();
                }
            });
        }

        String next() {
            try {
                String s = queue.poll(T.toMillis(), TimeUnit.MILLISECONDS);
                if (s == null) {
                    throw new AssertionError("no message within " + T);
                }
                return s;
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    static ZmtpMessage inGroup(String group, String body) {
        return ZmtpMessage.of(body.getBytes(StandardCharsets.UTF_8)).group(group);
    }

    static int groups(RadioSocket radio) {
        return onLoop(radio, radio::groupCount);
    }

    private String endpoint(String transport) {
        return switch (transport) {
            case "tcp" -> "tcp://127.0.0.1:0";
            case "ipc" -> "ipc://" + dir.resolve("radio.sock");
            default -> "inproc://radio-" + transport;
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc", "inproc"})
    void dishReceivesTheGroupsItJoinedOnly(String transport) {
        RadioSocket radio = ctx.radio(SocketOptions.DEFAULTS);
        String ep = get(radio.bind(endpoint(transport)));
        DishSocket dish = ctx.dish(SocketOptions.DEFAULTS);
        Received got = new Received(dish);
        get(dish.join("weather"));
        get(dish.join("news"));
        get(dish.connect(ep));
        eventually("both JOINs reached the RADIO", () -> groups(radio) == 2);

        for (int i = 0; i < 5; i++) {
            get(radio.send(inGroup("weather", "w" + i)));
            get(radio.send(inGroup("sports", "nobody joined " + i)));
            get(radio.send(inGroup("news", "n" + i)));
            get(radio.send(inGroup("weathe", "a prefix is not the group")));
        }
        for (int i = 0; i < 5; i++) {
            assertEquals("weather:w" + i, got.next());
            assertEquals("news:n" + i, got.next(), "one connection keeps the order: nothing else came between");
        }

        get(dish.leave("weather"));
        eventually("the LEAVE reached the RADIO", () -> groups(radio) == 1);
        get(radio.send(inGroup("weather", "after leave")));
        get(radio.send(inGroup("news", "marker")));
        assertEquals("news:marker", got.next(), "nothing of the group left arrives any more");
        assertTrue(got.queue.isEmpty());
    }

    @Test
    void groupsAreExactAndFilteredByTheDishToo() {
        RadioSocket radio = ctx.radio(SocketOptions.DEFAULTS);
        String ep = get(radio.bind("inproc://exact"));
        DishSocket dish = ctx.dish(SocketOptions.DEFAULTS);
        Received got = new Received(dish);
        get(dish.join("a"));
        get(dish.connect(ep));
        eventually("joined", () -> groups(radio) == 1);
        get(radio.send(inGroup("ab", "longer")));
        get(radio.send(inGroup("a", "exact")));
        assertEquals("a:exact", got.next());
    }

    @Test
    void joinAndLeaveAreCheckedAsLibzmqChecksThem() {
        DishSocket dish = ctx.dish(SocketOptions.DEFAULTS);
        assertInstanceOf(IllegalArgumentException.class, dish.join("").awaitUninterruptibly().cause());
        assertInstanceOf(IllegalArgumentException.class, dish.join("x".repeat(256)).awaitUninterruptibly().cause());
        get(dish.join("x".repeat(255)));
        assertInstanceOf(IllegalArgumentException.class, dish.join("x".repeat(255)).awaitUninterruptibly().cause(),
                "joined twice: EINVAL in libzmq");
        assertInstanceOf(IllegalArgumentException.class, dish.leave("never").awaitUninterruptibly().cause());
        get(dish.leave("x".repeat(255)));
        assertEquals(0, (int) onLoop(dish, dish::groupCount));
    }

    @Test
    void radioSendsOnlyGroupedSingleFrames() {
        RadioSocket radio = ctx.radio(SocketOptions.DEFAULTS);
        Future<Void> noGroup = radio.send(ZmtpMessage.of("body".getBytes()));
        assertInstanceOf(IllegalArgumentException.class, noGroup.awaitUninterruptibly().cause());
        ZmtpMessage two = ZmtpMessage.ofStrings("a", "b").group("g");
        assertThrows(IllegalArgumentException.class, () -> radio.send(two), "refused before it reaches the loop");
        assertEquals(1, two.refCnt(), "a refused multipart message is left to its owner");
        two.release();
        assertThrows(IllegalArgumentException.class, () -> ZmtpMessage.of(new byte[1]).group(""));
        DishSocket dish = ctx.dish(SocketOptions.DEFAULTS);
        assertInstanceOf(UnsupportedOperationException.class,
                dish.send(inGroup("g", "x")).awaitUninterruptibly().cause());
    }

    @Test
    void dishRejoinsWhenTheRadioRestarts() {
        int port = FlowControlTest.freePort();
        String ep = "tcp://127.0.0.1:" + port;
        RadioSocket radio = ctx.radio(SocketOptions.DEFAULTS);
        get(radio.bind(ep));
        DishSocket dish = ctx.dish(SocketOptions.builder().reconnectInterval(Duration.ofMillis(20)).build());
        Received got = new Received(dish);
        get(dish.join("g1"));
        get(dish.join("g2"));
        get(dish.connect(ep));
        eventually("joined", () -> groups(radio) == 2);
        get(radio.close(Duration.ZERO));

        RadioSocket again = ctx.radio(SocketOptions.DEFAULTS);
        get(again.bind(ep));
        eventually("the DISH joined its groups again", () -> groups(again) == 2);
        get(again.send(inGroup("g2", "after restart")));
        assertEquals("g2:after restart", got.next());
    }

    @Test
    void theGroupTravelsAsAFrameBeforeTheBody() throws Exception {
        RadioSocket radio = ctx.radio(SocketOptions.DEFAULTS);
        String ep = get(radio.bind("tcp://127.0.0.1:0"));
        try (Socket dish = new Socket("127.0.0.1", RawPeer.port(ep))) {
            dish.setSoTimeout((int) T.toMillis());
            dish.getOutputStream().write(PeerBytes.create().greeting31().ready("Socket-Type", "DISH")
                    .command("JOIN", "grp".getBytes()).toArray());
            eventually("joined", () -> groups(radio) == 1);
            get(radio.send(inGroup("grp", "body")));
            byte[] expected = PeerBytes.create().frame(true, "grp").frame(false, "body").toArray();
            assertArrayEquals(expected, afterReady(dish.getInputStream(), expected.length));
        }
    }

    /** Reads the peer's greeting and READY, then returns the next {@code n} bytes. */
    private static byte[] afterReady(InputStream raw, int n) throws Exception {
        DataInputStream in = new DataInputStream(raw);
        in.readFully(new byte[64]); // greeting
        int flags = in.readUnsignedByte();
        int size = (flags & 0x02) != 0 ? (int) in.readLong() : in.readUnsignedByte();
        in.readFully(new byte[size]); // READY
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    @ParameterizedTest
    @ValueSource(strings = {"DISH", "PUB"})
    void joinSentToANonRadioClosesThatConnectionOnly(String victimType) throws Exception {
        // the attacker pretends to be the victim's peer type (RADIO for a DISH, SUB for a PUB)
        ZmtpSocket victim = ctx.socket(SocketType.valueOf(victimType));
        String ep = get(victim.bind("tcp://127.0.0.1:0"));
        ZmtpSocket good = ctx.socket(victimType.equals("DISH") ? SocketType.RADIO : SocketType.SUB);
        get(good.connect(ep));
        awaitPeers(victim, 1);
        String peerType = victimType.equals("DISH") ? "RADIO" : "SUB";
        try (RawPeer attacker = RawPeer.handshaken(ep, "127.0.0.1", peerType)) {
            awaitPeers(victim, 2);
            attacker.send(PeerBytes.create().command("JOIN", "g".getBytes()).toArray());
            assertTrue(attacker.closedWithin(T.toMillis()), "a JOIN at a " + victimType + " closes that connection");
        }
        awaitPeers(victim, 1);
        if (victim instanceof DishSocket dish) {
            Received got = new Received(dish);
            get(dish.join("still"));
            eventually("the good RADIO heard the JOIN", () -> groups((RadioSocket) good) == 1);
            get(good.send(inGroup("still", "served")));
            assertEquals("still:served", got.next());
        } else {
            SocketTesting.Inbox inbox = new SocketTesting.Inbox(good);
            get(good.subscribe(""));
            eventually("subscribed", () -> onLoop(victim, ((PubSocket) victim)::subscriptionCount) == 1);
            get(victim.send("served"));
            assertEquals(List.of("served"), inbox.next());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"no body", "empty group", "long group"})
    void malformedGroupFrameClosesThatRadioOnly(String kind) throws Exception {
        DishSocket dish = ctx.dish(SocketOptions.DEFAULTS);
        Received got = new Received(dish);
        get(dish.join("g"));
        String ep = get(dish.bind("tcp://127.0.0.1:0"));
        RadioSocket good = ctx.radio(SocketOptions.DEFAULTS);
        get(good.connect(ep));
        eventually("joined", () -> groups(good) == 1);
        byte[] bad = switch (kind) {
            case "no body" -> PeerBytes.create().frame(false, "g").toArray();
            case "empty group" -> PeerBytes.create().frame(true, new byte[0]).frame(false, "x").toArray();
            default -> PeerBytes.create().frame(true, new byte[256]).frame(false, "x").toArray();
        };
        try (RawPeer attacker = RawPeer.handshaken(ep, "127.0.0.1", "RADIO")) {
            awaitPeers(dish, 2);
            attacker.send(bad);
            assertTrue(attacker.closedWithin(T.toMillis()), kind + ": the connection closes");
        }
        get(good.send(inGroup("g", "still served")));
        assertEquals("g:still served", got.next());
        assertTrue(got.queue.isEmpty());
    }

    @Test
    void multipartBodyFromARadioIsDroppedAndCounted() throws Exception {
        DishSocket dish = ctx.dish(SocketOptions.DEFAULTS);
        Received got = new Received(dish);
        get(dish.join("g"));
        String ep = get(dish.bind("tcp://127.0.0.1:0"));
        try (RawPeer radio = RawPeer.handshaken(ep, "127.0.0.1", "RADIO")) {
            awaitPeers(dish, 1);
            radio.send(PeerBytes.create().frame(true, "g").frame(true, "part 1").frame(false, "part 2")
                    .frame(true, "g").frame(false, "single").toArray());
            assertEquals("g:single", got.next());
            assertEquals(1, dish.metrics().multipartDrops());
            assertTrue(got.queue.isEmpty());
        }
    }

    @Test
    void blockingSocketsSpeakGroups() {
        BlockingSocket dish = ctx.blocking(SocketType.DISH);
        String ep = dish.bind("tcp://127.0.0.1:0");
        dish.join("a").join("b");
        BlockingSocket radio = ctx.blocking(SocketType.RADIO);
        radio.connect(ep);
        eventually("both JOINs reached the RADIO", () -> groups((RadioSocket) radio.socket()) == 2);
        radio.sendToGroup("z", "nobody".getBytes());
        radio.sendToGroup("b", "to b".getBytes());
        assertEquals("to b", dish.recvStr(T));
        assertEquals("b", dish.receivedGroup());
        radio.sendToGroup("a", "to a".getBytes());
        ZmtpMessage m = dish.receive(T);
        assertEquals("a", m.group());
        assertEquals("a", dish.receivedGroup());
        m.release();
        dish.leave("a");
        assertThrows(IllegalArgumentException.class, () -> dish.leave("a"), "not joined any more");

        assertThrows(IllegalArgumentException.class, () -> radio.sendToGroup("", "x".getBytes()));
        assertThrows(IllegalArgumentException.class, () -> radio.send("no group"), "a RADIO message needs a group");
        ZmtpMessage two = ZmtpMessage.ofStrings("1", "2").group("a");
        assertThrows(IllegalArgumentException.class, () -> radio.send(two), "single frames only");
        assertEquals(1, two.refCnt(), "the refused message is still the caller's");
        two.release();
        assertThrows(IllegalArgumentException.class, () -> radio.sendMore("1").send("2"));
        assertThrows(UnsupportedOperationException.class, () -> radio.join("a"));
        dish.close();
        radio.close();
    }

    @Test
    void aRadioDropsForADishAtItsMarkAndNeverWaits() {
        int hwm = 5;
        RadioSocket radio = ctx.radio(SocketOptions.builder().sendHwm(hwm).build());
        get(radio.bind("inproc://radio-hwm"));
        DishSocket dish = ctx.dish(SocketOptions.builder().receiveHwm(hwm).build());
        get(dish.join("g"));
        get(dish.connect("inproc://radio-hwm"));
        eventually("joined", () -> groups(radio) == 1);
        // no handler on the DISH: what it receives waits, so the marks fill up
        List<Future<Void>> sends = new java.util.ArrayList<>();
        for (int i = 0; i < 50; i++) {
            sends.add(radio.send(inGroup("g", "m" + i)));
        }
        eventually("a RADIO never waits", () -> sends.stream().allMatch(Future::isDone));
        assertTrue(sends.stream().allMatch(Future::isSuccess));
        SocketMetrics m = onLoop(radio, radio::metrics);
        assertEquals(50, m.messagesOut() + m.hwmDrops(), "each message was written or dropped: " + m);
        assertTrue(m.hwmDrops() > 0, "some were dropped at the mark: " + m);
    }

    @Test
    void aDishThatJoinsTooManyGroupsIsDisconnected() throws Exception {
        RadioSocket radio = ctx.radio(SocketOptions.builder().maxSubscriptions(2).build());
        String ep = get(radio.bind("tcp://127.0.0.1:0"));
        try (RawPeer dish = RawPeer.handshaken(ep, "127.0.0.1", "DISH")) {
            dish.send(PeerBytes.create().command("JOIN", "a".getBytes()).command("JOIN", "b".getBytes())
                    .command("JOIN", "a".getBytes()).toArray());
            eventually("two groups joined; a JOIN again changes nothing", () -> groups(radio) == 2);
            dish.send(PeerBytes.create().command("JOIN", "c".getBytes()).toArray());
            assertTrue(dish.closedWithin(T.toMillis()), "a third group passes maxSubscriptions");
        }
        eventually("its groups are forgotten", () -> groups(radio) == 0);
    }
}
