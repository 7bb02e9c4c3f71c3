package io.zmtp.socket;

import io.netty.util.concurrent.Future;
import io.zmtp.testing.TestDnsServer;
import io.zmtp.transport.DatagramCodec;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.zmtp.socket.RadioDishTest.inGroup;
import static io.zmtp.socket.SocketTesting.T;
import static io.zmtp.socket.SocketTesting.awaitPeers;
import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RADIO and DISH over udp:// (zmq_udp(7)): datagrams, groups, bad datagrams, multicast, refusals. */
class RadioDishUdpTest extends ContextTest {

    /** A datagram as libzmq writes it: group length, group, body. */
    static byte[] datagram(String group, String body) {
        byte[] g = group.getBytes(StandardCharsets.UTF_8);
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        byte[] d = new byte[1 + g.length + b.length];
        d[0] = (byte) g.length;
        System.arraycopy(g, 0, d, 1, g.length);
        System.arraycopy(b, 0, d, 1 + g.length, b.length);
        return d;
    }

    static int port(String endpoint) {
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    @Test
    void radioToDishOverUnicastUdp() {
        DishSocket dish = ctx.dish(SocketOptions.DEFAULTS);
        RadioDishTest.Received got = new RadioDishTest.Received(dish);
        get(dish.join("weather"));
        String ep = get(dish.bind("udp://127.0.0.1:0"));
        assertTrue(port(ep) > 0, ep);
        awaitPeers(dish, 1);
        RadioSocket radio = ctx.radio(SocketOptions.DEFAULTS);
        get(radio.connect(ep));
        awaitPeers(radio, 1);
        // a datagram carries no JOIN: the RADIO sends every group, the DISH filters
        for (int i = 0; i < 5; i++) {
            get(radio.send(inGroup("weather", "w" + i)));
            get(radio.send(inGroup("sports", "filtered " + i)));
        }
        // UDP on the loopback does not reorder or lose a handful of datagrams
        for (int i = 0; i < 5; i++) {
            assertEquals("weather:w" + i, got.next());
        }
        eventually("the other group's datagrams were dropped and counted", () -> dish.metrics().datagramDrops() == 5);
        get(dish.leave("weather"));
        get(dish.join("sports"));
        get(radio.send(inGroup("weather", "after leave")));
        get(radio.send(inGroup("sports", "now joined")));
        assertEquals("sports:now joined", got.next());
    }

    @Test
    void datagramsAreLaidOutAsLibzmqWritesThem() throws Exception {
        try (DatagramSocket listener = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            listener.setSoTimeout((int) T.toMillis());
            RadioSocket radio = ctx.radio(SocketOptions.DEFAULTS);
            get(radio.connect("udp://localhost:" + listener.getLocalPort())); // a host name, resolved now
            awaitPeers(radio, 1);
            get(radio.send(inGroup("grp", "body")));
            DatagramPacket p = new DatagramPacket(new byte[100], 100);
            listener.receive(p);
            byte[] got = java.util.Arrays.copyOf(p.getData(), p.getLength());
            assertArrayEquals(datagram("grp", "body"), got);

            get(radio.send(ZmtpMessage.of(new byte[DatagramCodec.MAX_DATAGRAM]).group("big")));
            eventually("a message past one datagram was dropped and counted", () -> radio.metrics().datagramDrops() == 1);
        }
    }

    @Test
    void badDatagramsAreDroppedAndCountedWhileGoodOnesArrive() throws Exception {
        DishSocket dish = ctx.dish(SocketOptions.DEFAULTS);
        RadioDishTest.Received got = new RadioDishTest.Received(dish);
        get(dish.join("g"));
        String ep = get(dish.bind("udp://*:0"));
        awaitPeers(dish, 1);
        InetSocketAddress to = new InetSocketAddress("127.0.0.1", port(ep));
        byte[][] bad = {
                new byte[0],                                   // empty
                {5, 'g', 'x'},                                 // group length past the end
                {0, 'b', 'o', 'd', 'y'},                       // empty group
                new byte[DatagramCodec.MAX_DATAGRAM + 100],    // too large
                datagram("h", "a group nobody joined"),
        };
        bad[3][0] = 1;
        bad[3][1] = 'g';
        try (DatagramSocket s = new DatagramSocket()) {
            for (byte[] d : bad) {
                s.send(new DatagramPacket(d, d.length, to));
                byte[] good = datagram("g", "good " + d.length);
                s.send(new DatagramPacket(good, good.length, to));
            }
        }
        for (byte[] d : bad) {
            assertEquals("g:good " + d.length, got.next());
        }
        eventually(() -> "each bad datagram was counted: " + dish.metrics(), () -> dish.metrics().datagramDrops() == bad.length);
        assertTrue(got.queue.isEmpty(), "nothing else was delivered: " + got.queue);
        assertEquals(1, SocketTesting.peers(dish), "the channel is still open");
    }

    @Test
    void multicastOnTheLoopback() throws Exception {
        NetworkInterface lo = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
        Assumptions.assumeTrue(lo != null && lo.isUp() && lo.supportsMulticast(),
                "the loopback interface does not do multicast here (Linux: ip link set lo multicast on)");
        int port = FlowControlTest.freePort();
        String ep = "udp://" + lo.getName() + ";239.192.7.1:" + port;
        DishSocket dish = ctx.dish(SocketOptions.DEFAULTS);
        RadioDishTest.Received got = new RadioDishTest.Received(dish);
        get(dish.join("m"));
        assertEquals(ep, get(dish.bind(ep)));
        RadioSocket radio = ctx.radio(SocketOptions.DEFAULTS);
        get(radio.connect(ep));
        awaitPeers(radio, 1);
        // the first datagrams may go before the group is joined in the kernel: send until one lands
        long deadline = System.nanoTime() + T.toNanos();
        String first = null;
        while (first == null && System.nanoTime() < deadline) {
            get(radio.send(inGroup("m", "hello")));
            first = got.queue.poll(100, TimeUnit.MILLISECONDS);
        }
        assertEquals("m:hello", first);
    }

    @Test
    void onlyRadioConnectsAndOnlyDishBindsUdp() {
        ZmtpSocket pub = ctx.socket(SocketType.PUB);
        assertRefused(pub.bind("udp://127.0.0.1:0"), "RADIO and DISH");
        assertRefused(pub.connect("udp://127.0.0.1:5555"), "RADIO and DISH");
        assertRefused(ctx.radio(SocketOptions.DEFAULTS).bind("udp://127.0.0.1:0"), "a RADIO connects");
        assertRefused(ctx.dish(SocketOptions.DEFAULTS).connect("udp://127.0.0.1:5555"), "a DISH binds");
    }

    /**
     * A RADIO's udp:// host is looked up as a tcp:// connect's is: on the loop, by the context's
     * name servers (here one the test runs on a loopback port), and a name it does not know fails
     * the connect with the lookup's reason.
     */
    @Test
    void aRadioLooksItsHostUpThroughTheContextsNameServers() {
        try (TestDnsServer dns = new TestDnsServer()) {
            ZmtpContext named = ZmtpContext.create(1).nameResolution(List.of(dns.address()), Duration.ofMillis(500));
            try {
                dns.set("dish.zmtp.test", "127.0.0.1");
                DishSocket dish = named.dish(SocketOptions.DEFAULTS);
                RadioDishTest.Received got = new RadioDishTest.Received(dish);
                get(dish.join("g"));
                int port = port(get(dish.bind("udp://127.0.0.1:0")));
                RadioSocket radio = named.radio(SocketOptions.DEFAULTS);
                get(radio.connect("udp://dish.zmtp.test:" + port));
                assertEquals(1, dns.questionsA("dish.zmtp.test").size(), "asked the context's name server");
                get(radio.send(inGroup("g", "by name")));
                assertEquals("g:by name", got.next());
                Future<Void> unknown = named.radio(SocketOptions.DEFAULTS).connect("udp://nobody.zmtp.test:" + port);
                Throwable why = unknown.awaitUninterruptibly().cause();
                assertInstanceOf(IllegalArgumentException.class, why);
                assertTrue(why.getMessage().contains("nobody.zmtp.test"), why.getMessage());
            } finally {
                named.close(Duration.ofSeconds(5));
            }
        }
    }

    /**
     * The interface before a udp:// endpoint's semicolon is never looked up by the JDK on the
     * loop: an interface's name and an IP literal are found without DNS (the context's name server
     * hears nothing), and a host name is looked up by the context's name servers (a name only the
     * test's server knows, with the loopback's address), one they do not know failing the connect
     * with the lookup's reason. RADIOs, which send to a group by the interface without joining it:
     * the loopback need not do multicast.
     */
    @Test
    void aMulticastInterfaceIsFoundWithoutTheJdksResolver() throws Exception {
        NetworkInterface lo = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
        Assumptions.assumeTrue(lo != null, "no loopback interface");
        try (TestDnsServer dns = new TestDnsServer()) {
            ZmtpContext named = ZmtpContext.create(1).nameResolution(List.of(dns.address()), Duration.ofMillis(500));
            try {
                String group = ";239.192.7.1:" + FlowControlTest.freePort();
                get(named.radio(SocketOptions.DEFAULTS).connect("udp://" + lo.getName() + group));
                get(named.radio(SocketOptions.DEFAULTS).connect("udp://127.0.0.1" + group));
                assertRefused(named.radio(SocketOptions.DEFAULTS).connect("udp://192.0.2.1" + group),
                        "no network interface 192.0.2.1");
                assertEquals(List.of(), dns.questions(), "an interface's name or address: no DNS");

                dns.set("iface.zmtp.test", "127.0.0.1");
                get(named.radio(SocketOptions.DEFAULTS).connect("udp://iface.zmtp.test" + group));
                assertEquals(1, dns.questionsA("iface.zmtp.test").size(), "asked the context's name server");
                assertRefused(named.radio(SocketOptions.DEFAULTS).connect("udp://nobody.zmtp.test" + group),
                        "no network interface nobody.zmtp.test: name lookup of nobody.zmtp.test");
                assertEquals(1, dns.questionsA("nobody.zmtp.test").size(), "asked the context's name server");
            } finally {
                named.close(Duration.ofSeconds(5));
            }
        }
    }

    private static void assertRefused(Future<?> f, String words) {
        Throwable t = f.awaitUninterruptibly().cause();
        assertInstanceOf(IllegalArgumentException.class, t);
        assertTrue(t.getMessage().contains(words), t.getMessage());
    }
}
